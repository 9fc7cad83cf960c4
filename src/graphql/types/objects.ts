import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import {
  ActivityKindEnum,
  ApiKeyKindEnum,
  DeliveryStatusEnum,
  DocumentKindEnum,
  FieldTypeEnum,
  HandlerKindEnum,
  HttpMethodEnum,
  KeyScopeEnum,
  MessageChannelEnum,
  MessageDirectionEnum,
  ModelProviderEnum,
  RedactPresetEnum,
  RoleEnum,
  SecretKindEnum,
  SignatureSchemeEnum,
  SurfaceEnum,
  VisibilityEnum,
} from './enums.js';

// Output types. Resolvers return domain entities; where a shape differs (handler, surfaces)
// a field resolver or a small mapper in the resolver shapes it.

@ObjectType()
export class Team {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => Float, { nullable: true }) dailyCreditLimit!: number | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType()
export class Member {
  @Field(() => ID) id!: string;
  @Field(() => String) email!: string;
  @Field(() => String) name!: string;
  @Field(() => RoleEnum) role!: RoleEnum;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType()
export class MemberTokenResult {
  @Field(() => String, { description: 'The plaintext token; shown only here' }) token!: string;
  @Field(() => ID, { description: 'The token id (for revokeMemberToken)' }) id!: string;
  @Field(() => ID) memberId!: string;
  @Field(() => String) prefix!: string;
  @Field(() => String) last4!: string;
}

@ObjectType({ description: 'A personal GraphQL token as listed: never the token itself' })
export class MemberToken {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) prefix!: string;
  @Field(() => String) last4!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
}

@ObjectType()
export class Workspace {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => Float, { nullable: true }) dailyCreditLimit!: number | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType({ description: 'The groups the Workspace API overview returns' })
export class WorkspaceSettings {
  @Field(() => GraphQLJSONObject) featureFlags!: object;
  @Field(() => GraphQLJSONObject) creditDefaults!: object;
  @Field(() => GraphQLJSONObject) accountRules!: object;
  @Field(() => GraphQLJSONObject) dataProcessing!: object;
  @Field(() => GraphQLJSONObject) loginSettings!: object;
  @Field(() => GraphQLJSONObject) valueCapture!: object;
  @Field(() => [String]) tags!: string[];
  @Field(() => Int) activityRetentionDays!: number;
}

@ObjectType()
export class SurfaceSetting {
  @Field(() => SurfaceEnum) surface!: SurfaceEnum;
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => Boolean) activityLogging!: boolean;
}

@ObjectType()
export class CorsSettings {
  @Field(() => Boolean) allowPlatformApps!: boolean;
  @Field(() => [String]) customOrigins!: string[];
}

@ObjectType()
export class Capabilities {
  @Field(() => Boolean) endpointManagement!: boolean;
  @Field(() => Boolean) documents!: boolean;
}

@ObjectType()
export class Guardrails {
  @Field(() => [String]) blockedInputPatterns!: string[];
  @Field(() => [String]) redactOutputPatterns!: string[];
  @Field(() => [RedactPresetEnum]) redactPresets!: RedactPresetEnum[];
  @Field(() => Int, { nullable: true }) maxInputChars!: number | null;
  @Field(() => Int, { nullable: true }) maxOutputTokens!: number | null;
  @Field(() => Int) maxToolSteps!: number;
  @Field(() => Float, { nullable: true }) maxCreditsPerRun!: number | null;
}

@ObjectType()
export class AgentLimits {
  @Field(() => Float, { nullable: true }) dailyCreditLimit!: number | null;
  @Field(() => Int, { nullable: true }) maxConcurrentRequests!: number | null;
}

@ObjectType()
export class Agent {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) description!: string;
  @Field(() => String) instructions!: string;
  @Field(() => String, { nullable: true }) defaultModel!: string | null;
  @Field(() => VisibilityEnum) visibility!: VisibilityEnum;
  @Field(() => ID, { nullable: true }) teamId!: string | null;
  @Field(() => Boolean) allowWorkspaceKeys!: boolean;
  @Field(() => CorsSettings) cors!: CorsSettings;
  @Field(() => Capabilities) capabilities!: Capabilities;
  @Field(() => Guardrails) guardrails!: Guardrails;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType({ description: 'An API key as listed: never the key itself' })
export class ApiKey {
  @Field(() => ID) id!: string;
  @Field(() => ApiKeyKindEnum) kind!: ApiKeyKindEnum;
  @Field(() => ID, { nullable: true }) agentId!: string | null;
  @Field(() => String) name!: string;
  @Field(() => String) prefix!: string;
  @Field(() => String) last4!: string;
  @Field(() => [KeyScopeEnum]) scopes!: KeyScopeEnum[];
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
  @Field(() => Date, { nullable: true, description: 'When the key stops working (refused with 401 from then on); null: it works until revoked' })
  expiresAt!: Date | null;
}

@ObjectType()
export class CreatedApiKey {
  @Field(() => String, { description: 'The plaintext key; shown only in this response' }) key!: string;
  @Field(() => ApiKey) apiKey!: ApiKey;
}

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
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'JSON Schema of the request body, when the endpoint declares one' })
  inputSchema!: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: "JSON Schema of the answer's output, when the endpoint declares one" })
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
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'JSON Schema of the result, when the tool declares one' })
  outputSchema!: Record<string, unknown> | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType()
export class WebhookSignature {
  @Field(() => SignatureSchemeEnum) scheme!: SignatureSchemeEnum;
  @Field(() => String) secretName!: string;
}

@ObjectType({ description: 'A callback a webhook integration received, and how its processing went' })
export class WebhookDelivery {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) integration!: string;
  @Field(() => DeliveryStatusEnum) status!: DeliveryStatusEnum;
  @Field(() => String, { nullable: true, description: "The sender's own id of the delivery (X-GitHub-Delivery, webhook-id, Stripe event id, Slack event_id)" })
  senderDeliveryId!: string | null;
  @Field(() => ID, { nullable: true, description: 'The delivery this one replays' }) replayOf!: string | null;
  @Field(() => String) method!: string;
  @Field(() => GraphQLJSONObject, { description: 'Request headers; credential and signature headers are not stored' }) headers!: object;
  @Field(() => GraphQLJSONObject) query!: object;
  @Field(() => Int, { description: 'Processing attempts so far (each has a run entry in the activity log)' }) attempts!: number;
  @Field(() => Int, { description: 'Attempts that failed (they drive the retry schedule)' }) failures!: number;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => String, { nullable: true, description: 'The run of the latest attempt' }) runId!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => Date, { nullable: true }) completedAt!: Date | null;
  @Field(() => Date, {
    nullable: true,
    description: 'When the body was dropped, its replay window (WEBHOOK_BODY_RETENTION_DAYS) having passed since the delivery finished: `body` is then empty and the delivery cannot be replayed',
  })
  bodyDroppedAt!: Date | null;
}

@ObjectType()
export class WebhookDeliveryConnection {
  @Field(() => [WebhookDelivery]) nodes!: WebhookDelivery[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page' }) endCursor!: string | null;
  @Field(() => Boolean) hasNextPage!: boolean;
}

@ObjectType()
export class Webhook {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) integration!: string;
  @Field(() => String, { nullable: true }) modelOverride!: string | null;
  @Field(() => WebhookSignature, { nullable: true }) signature!: WebhookSignature | null;
  @Field(() => Int, { nullable: true, description: 'The largest body accepted, in bytes; null: 65536 (64 KiB) without a signature check, 1048576 (1 MiB) with one' })
  maxBodyBytes!: number | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

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
  @Field(() => GraphQLJSONObject, { description: "The record's fields (as the Document API returns them, without the id)" }) data!: Record<string, unknown>;
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
  @Field(() => Date) createdAt!: Date;
}

@ObjectType({ description: 'A stored secret: name and kind only, never the value' })
export class Secret {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => SecretKindEnum) kind!: SecretKindEnum;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType()
export class Model {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => ModelProviderEnum) provider!: ModelProviderEnum;
  @Field(() => String) model!: string;
  @Field(() => String, { nullable: true, description: 'Server URL; to anyone but an admin its user info, query and fragment read ***' }) baseUrl!: string | null;
  @Field(() => String, { nullable: true }) apiKeySecret!: string | null;
  @Field(() => Float) inputPricePerMillion!: number;
  @Field(() => Float) outputPricePerMillion!: number;
  @Field(() => Boolean) isDefault!: boolean;
  @Field(() => String, {
    nullable: true,
    description:
      "Set on configureModel's answer when the model name could not be checked against the provider's model list (the provider has no list, refused the key, or could not be reached), saying why; null otherwise and on queries",
  })
  warning?: string | null;
}

@ObjectType({ description: "testModel's answer: one small call to the model through the same resolution as a run" })
export class ModelTestResult {
  @Field(() => Boolean) ok!: boolean;
  @Field(() => String, { nullable: true, description: "The model's answer" }) output!: string | null;
  @Field(() => String, { nullable: true, description: "The provider's error as it gave it (HTTP status and message), credentials removed" }) error!: string | null;
  @Field(() => Int, { description: 'Time the call took, in milliseconds' }) latencyMs!: number;
}

@ObjectType()
export class Message {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => MessageDirectionEnum) direction!: MessageDirectionEnum;
  @Field(() => MessageChannelEnum) channel!: MessageChannelEnum;
  @Field(() => String) from!: string;
  @Field(() => String) to!: string;
  @Field(() => String, { nullable: true }) subject!: string | null;
  @Field(() => String) body!: string;
  @Field(() => Date) sentAt!: Date;
}

@ObjectType()
export class ActivityEntry {
  @Field(() => ID) id!: string;
  @Field(() => ActivityKindEnum) kind!: ActivityKindEnum;
  @Field(() => SurfaceEnum) surface!: SurfaceEnum;
  @Field(() => String, { nullable: true }) entry!: string | null;
  @Field(() => String, { nullable: true }) method!: string | null;
  @Field(() => String, { nullable: true }) path!: string | null;
  @Field(() => Int, { nullable: true }) status!: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) requestHeaders!: object | null;
  @Field(() => GraphQLJSON, { nullable: true }) requestBody!: unknown;
  @Field(() => GraphQLJSON, { nullable: true }) response!: unknown;
  @Field(() => Boolean) truncated!: boolean;
  @Field(() => Float) credits!: number;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
  @Field(() => String, { nullable: true }) keyId!: string | null;
  @Field(() => String, { nullable: true }) runId!: string | null;
  @Field(() => String, { nullable: true, description: "The request's X-Request-Id (sent by the caller or generated), also in the service's log line" }) requestId!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType()
export class ActivityConnection {
  @Field(() => [ActivityEntry]) nodes!: ActivityEntry[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page' }) endCursor!: string | null;
  @Field(() => Boolean) hasNextPage!: boolean;
}

@ObjectType()
export class DailyUsage {
  @Field(() => String, { description: 'UTC day, YYYY-MM-DD' }) day!: string;
  @Field(() => Float) credits!: number;
  @Field(() => Int) runs!: number;
}

@ObjectType({ description: "Runs of one surface on one UTC day, counted from the agent's activity log" })
export class SurfaceUsage {
  @Field(() => String, { description: 'UTC day, YYYY-MM-DD' }) day!: string;
  @Field(() => SurfaceEnum) surface!: SurfaceEnum;
  @Field(() => Int, { description: 'Runs (each counted once, whatever the entries of its request)' }) runs!: number;
  @Field(() => Float, { description: 'Credits of those runs' }) credits!: number;
}

@ObjectType({ description: "The outcome of a webhook delivery's latest run, from that run's activity entry" })
export class DeliveryRun {
  @Field(() => ID) runId!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: "The handler's output (null when it failed)" }) output!: unknown;
  @Field(() => String, { nullable: true, description: 'Why the run failed, or null' }) error!: string | null;
  @Field(() => Float) credits!: number;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
}
