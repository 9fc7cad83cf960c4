import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import {
  HANDLER_KINDS,
  type HandlerKind,
  HTTP_METHODS,
  type HttpMethod,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
} from '../../domain/entries/entry.entities.js';
import { MAX_BODY_BYTES_DESCRIPTION } from '../../domain/entries/entry.schemas.js';
import { register } from '../graphql-enum.js';

// Entries of the HTTP API, MCP and webhook surfaces. GraphQL types of the area;
// inputs carry no validation of their own: the domain's zod schemas are the only validation.

export const HandlerKindEnum = register(HANDLER_KINDS, 'HandlerKind');
export type HandlerKindEnum = HandlerKind;
export const HttpMethodEnum = register(HTTP_METHODS, 'HttpMethod');
export type HttpMethodEnum = HttpMethod;
export const SignatureSchemeEnum = register(SIGNATURE_SCHEMES, 'SignatureScheme');
export type SignatureSchemeEnum = SignatureScheme;

@ObjectType()
export class HandlerOut {
  @Field(() => HandlerKindEnum) kind!: HandlerKindEnum;
  @Field(() => String, { nullable: true }) prompt!: string | null;
  @Field(() => String, { nullable: true }) script!: string | null;
}

@ObjectType('HttpEndpoint')
export class HttpEndpoint {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) path!: string;
  @Field(() => [HttpMethodEnum]) methods!: HttpMethodEnum[];
  @Field(() => String, { nullable: true }) modelOverride!: string | null;
  @Field(() => String) description!: string;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'JSON Schema of the request body, when the endpoint declares one',
  })
  inputSchema!: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: "JSON Schema of the answer's output, when the endpoint declares one",
  })
  outputSchema!: Record<string, unknown> | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType()
export class McpTool {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) name!: string;
  @Field(() => String) description!: string;
  @Field(() => String, { nullable: true }) modelOverride!: string | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'JSON Schema of the result, when the tool declares one',
  })
  outputSchema!: Record<string, unknown> | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType()
export class WebhookSignature {
  @Field(() => SignatureSchemeEnum) scheme!: SignatureSchemeEnum;
  @Field(() => String) secretName!: string;
}

@ObjectType()
export class Webhook {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) integration!: string;
  @Field(() => String, { nullable: true }) modelOverride!: string | null;
  @Field(() => WebhookSignature, { nullable: true }) signature!: WebhookSignature | null;
  @Field(() => Int, {
    nullable: true,
    description:
      'The largest body accepted, in bytes; null: 65536 (64 KiB) without a signature check, 1048576 (1 MiB) with one',
  })
  maxBodyBytes!: number | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@InputType({ description: 'Exactly one of prompt or script' })
export class HandlerInput {
  @Field(() => String, { nullable: true }) prompt?: string | null;
  @Field(() => String, { nullable: true }) script?: string | null;
}

@InputType()
export class HttpEndpointInput {
  @Field(() => String) path!: string;
  @Field(() => [HttpMethodEnum], { nullable: true, description: 'Default [POST]' }) methods?: HttpMethodEnum[];
  @Field(() => HandlerInput) handler!: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'JSON Schema of the request body; a body that does not match is refused (400)',
  })
  inputSchema?: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: "JSON Schema of the answer's output, shown in the agent's OpenAPI document",
  })
  outputSchema?: Record<string, unknown> | null;
}

@InputType()
export class UpdateHttpEndpointInput {
  @Field(() => String, { nullable: true }) path?: string;
  @Field(() => [HttpMethodEnum], { nullable: true }) methods?: HttpMethodEnum[];
  @Field(() => HandlerInput, { nullable: true }) handler?: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => GraphQLJSONObject, { nullable: true }) inputSchema?: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) outputSchema?: Record<string, unknown> | null;
}

@InputType()
export class McpToolInput {
  @Field(() => String) name!: string;
  @Field(() => String) description!: string;
  @Field(() => HandlerInput) handler!: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'JSON Schema of the arguments; default {input: string}',
  })
  inputSchema?: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'JSON Schema of the result; when set, results carry structuredContent checked against it',
  })
  outputSchema?: Record<string, unknown> | null;
}

@InputType()
export class UpdateMcpToolInput {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => HandlerInput, { nullable: true }) handler?: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) inputSchema?: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) outputSchema?: Record<string, unknown> | null;
}

@InputType()
export class SignatureInput {
  @Field(() => SignatureSchemeEnum, { nullable: true, description: 'Default HMAC_SHA256' })
  scheme?: SignatureSchemeEnum;
  @Field(() => String) secretName!: string;
}

@InputType()
export class WebhookInput {
  @Field(() => String) integration!: string;
  @Field(() => HandlerInput) handler!: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => SignatureInput, { nullable: true }) signature?: SignatureInput | null;
  @Field(() => Int, { nullable: true, description: MAX_BODY_BYTES_DESCRIPTION }) maxBodyBytes?: number | null;
}

@InputType()
export class UpdateWebhookInput {
  @Field(() => String, { nullable: true }) integration?: string;
  @Field(() => HandlerInput, { nullable: true }) handler?: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => SignatureInput, { nullable: true }) signature?: SignatureInput | null;
  @Field(() => Int, {
    nullable: true,
    description: `${MAX_BODY_BYTES_DESCRIPTION} Pass null to go back to the default.`,
  })
  maxBodyBytes?: number | null;
}
