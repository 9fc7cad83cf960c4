import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import {
  DOCUMENT_KINDS,
  type DocumentKind,
  FIELD_TYPES,
  type FieldType,
} from '../../domain/documents/document.entities.js';
import { register } from '../graphql-enum.js';

// Documents, their records and their Document API exposure. GraphQL types of the area;
// inputs carry no validation of their own: the domain's zod schemas are the only validation.

export const DocumentKindEnum = register(DOCUMENT_KINDS, 'DocumentKind');
export type DocumentKindEnum = DocumentKind;
export const FieldTypeEnum = register(FIELD_TYPES, 'FieldType');
export type FieldTypeEnum = FieldType;
/** The direction of a record sort key (the Document API's `"asc"` / `"desc"`). */
export const SortDirectionEnum = register(['asc', 'desc'] as const, 'SortDirection');
export type SortDirectionEnum = 'asc' | 'desc';

@ObjectType()
export class FieldDef {
  @Field(() => String) name!: string;
  @Field(() => FieldTypeEnum) type!: FieldTypeEnum;
  @Field(() => Boolean) required!: boolean;
}

@ObjectType()
export class Document {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) name!: string;
  @Field(() => String) description!: string;
  @Field(() => DocumentKindEnum) kind!: DocumentKindEnum;
  @Field(() => String) content!: string;
  @Field(() => [FieldDef]) fields!: FieldDef[];
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType({ description: 'A record of a database document' })
export class DocumentRecord {
  @Field(() => ID) id!: string;
  @Field(() => GraphQLJSONObject, {
    description: "The record's fields (as the Document API returns them, without the id)",
  })
  data!: Record<string, unknown>;
}

@ObjectType({ description: 'A page of records matching a filter, in the sort order' })
export class DocumentRecordConnection {
  @Field(() => [DocumentRecord]) nodes!: DocumentRecord[];
  @Field(() => Int, { description: 'How many records match the filter in all' }) totalCount!: number;
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page' }) endCursor!: string | null;
  @Field(() => Boolean) hasNextPage!: boolean;
}

@ObjectType()
export class DocumentExposure {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => ID) documentId!: string;
  @Field(() => Boolean) read!: boolean;
  @Field(() => Boolean) write!: boolean;
  @Field(() => Boolean, {
    description: "Read on the agent's MCP server: listed by resources/list and read by resources/read",
  })
  mcp!: boolean;
  @Field(() => Date) createdAt!: Date;
}

@InputType()
export class FieldDefInput {
  @Field(() => String) name!: string;
  @Field(() => FieldTypeEnum) type!: FieldTypeEnum;
  @Field(() => Boolean, { nullable: true }) required?: boolean;
}

@InputType()
export class DocumentInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => DocumentKindEnum, { nullable: true, description: 'Default TEXT' }) kind?: DocumentKindEnum;
  @Field(() => String, { nullable: true }) content?: string;
  @Field(() => [FieldDefInput], { nullable: true }) fields?: FieldDefInput[];
}

@InputType()
export class UpdateDocumentInput {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => String, { nullable: true }) content?: string;
  @Field(() => [FieldDefInput], { nullable: true }) fields?: FieldDefInput[];
}

@InputType({ description: "One key of a record sort order, as the Document API's `sort`" })
export class RecordSortInput {
  @Field(() => String, { description: 'A STRING, NUMBER, DATETIME or BOOLEAN field of the document' }) field!: string;
  @Field(() => SortDirectionEnum, { nullable: true, description: 'Default ASC' }) direction?: SortDirectionEnum | null;
}
