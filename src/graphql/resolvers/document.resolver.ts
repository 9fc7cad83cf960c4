import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { DomainError, Invalid } from '../../domain/errors.js';
import type { Context } from '../context.js';
import { PAGE_ARGUMENTS } from '../limits.js';
import {
  Document,
  DocumentExposure,
  DocumentInput,
  DocumentRecordConnection,
  RecordSortInput,
  UpdateDocumentInput,
} from './document.types.js';

/**
 * The largest page of `documentRecords`: what the operation limits assume for a `first` they cannot
 * see (a variable), so that the byte weight of `DocumentRecord.data` is counted for every record a
 * page may hold.
 */
export const MAX_RECORD_PAGE = PAGE_ARGUMENTS.first!;

@Resolver(() => Document)
export class DocumentResolver {
  @Query(() => DocumentRecordConnection, {
    description:
      "Records of an agent's database document matching `filter`, in `sort` order, a page at a time: the Document API's query " +
      '(POST …/data/query) with the same filter operators, sort keys and errors, for members who can see the agent (no exposure needed)',
  })
  async documentRecords(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('documentId', () => ID) documentId: string,
    @Arg('filter', () => GraphQLJSONObject, {
      nullable: true,
      description:
        'field → a value (equal), a list (any of) or operators (eq, ne, gt, gte, lt, lte, in, contains, exists); `id` filters by record id',
    })
    filter: Record<string, unknown> | null | undefined,
    @Arg('sort', () => [RecordSortInput], {
      nullable: true,
      description: '1 to 3 sort keys; insertion order breaks ties (and is the order without a sort)',
    })
    sort: RecordSortInput[] | null | undefined,
    @Arg('first', () => Int, { defaultValue: 50, description: `Records per page, 1 to ${MAX_RECORD_PAGE}` })
    first: number,
    @Arg('after', () => String, {
      nullable: true,
      description: "The previous page's endCursor, with the same filter and sort",
    })
    after: string | null | undefined,
    @Ctx() ctx: Context,
  ): Promise<DocumentRecordConnection> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_RECORD_PAGE)
      throw new Invalid(`first: must be between 1 and ${MAX_RECORD_PAGE}`, 'first');
    const input = {
      filter: filter ?? undefined,
      sort: sort
        ? sort.map((k) => ({ field: k.field, ...(k.direction ? { direction: k.direction } : {}) }))
        : undefined,
      limit: first,
      cursor: after ?? undefined,
    };
    try {
      const page = await ctx.services.records.query(ctx.principal, agentId, documentId, 'agent', input);
      return {
        nodes: page.records.map(({ id, ...data }) => ({ id, data })),
        totalCount: page.totalCount,
        endCursor: page.nextCursor,
        hasNextPage: page.nextCursor !== null,
      };
    } catch (err) {
      // The domain calls the position `cursor` (the Document API's name); here it is `after`.
      if (err instanceof DomainError && err.details?.field === 'cursor')
        throw new Invalid(err.message.replace(/^cursor\b/, 'after'), 'after');
      throw err;
    }
  }

  @Mutation(() => Document)
  createDocument(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => DocumentInput) input: DocumentInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.documents.create(ctx.principal, agentId, input);
  }

  @Mutation(() => Document)
  updateDocument(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateDocumentInput) input: UpdateDocumentInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.documents.update(ctx.principal, id, input);
  }

  @Mutation(() => Boolean)
  deleteDocument(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.documents.delete(ctx.principal, id);
  }

  @Mutation(() => DocumentExposure, {
    description:
      "Exposes a document on the Document API with read and/or write permission, and/or as a resource of the agent's MCP server",
  })
  exposeDocument(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('documentId', () => ID) documentId: string,
    @Arg('read', () => Boolean, { nullable: true }) read: boolean | undefined,
    @Arg('write', () => Boolean, { nullable: true }) write: boolean | undefined,
    @Arg('mcp', () => Boolean, {
      nullable: true,
      description:
        "Listed and read as a resource on the agent's MCP server; omitted: unchanged (off for a new exposure)",
    })
    mcp: boolean | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'exposeDocument', {
      agentId,
      documentId,
      read,
      write,
      mcp,
    });
  }

  @Mutation(() => Boolean)
  unexposeDocument(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('documentId', () => ID) documentId: string,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'unexposeDocument', { agentId, documentId });
  }
}
