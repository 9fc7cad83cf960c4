import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int } from 'type-graphql';
import {
  DocumentKindEnum,
  FieldTypeEnum,
  HttpMethodEnum,
  MessageChannelEnum,
  MessageDirectionEnum,
  ModelProviderEnum,
  RedactPresetEnum,
  RoleEnum,
  SignatureSchemeEnum,
  SortDirectionEnum,
  VisibilityEnum,
} from './enums.js';

// Input types carry no validation of their own: the domain's zod schemas are the only validation.

@InputType()
export class CreateAgentInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => String, { nullable: true }) instructions?: string;
  @Field(() => String, { nullable: true }) defaultModel?: string | null;
  @Field(() => VisibilityEnum, { nullable: true }) visibility?: VisibilityEnum;
  @Field(() => ID, { nullable: true }) teamId?: string | null;
  @Field(() => Boolean, { nullable: true }) allowWorkspaceKeys?: boolean;
}

@InputType()
export class UpdateAgentInput {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => String, { nullable: true }) instructions?: string;
  @Field(() => String, { nullable: true }) defaultModel?: string | null;
  @Field(() => VisibilityEnum, { nullable: true }) visibility?: VisibilityEnum;
  @Field(() => ID, { nullable: true }) teamId?: string | null;
  @Field(() => Boolean, { nullable: true }) allowWorkspaceKeys?: boolean;
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
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'JSON Schema of the request body; a body that does not match is refused (400)' })
  inputSchema?: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: "JSON Schema of the answer's output, shown in the agent's OpenAPI document" })
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
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'JSON Schema of the arguments; default {input: string}' })
  inputSchema?: Record<string, unknown> | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'JSON Schema of the result; when set, results carry structuredContent checked against it' })
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
  @Field(() => SignatureSchemeEnum, { nullable: true, description: 'Default HMAC_SHA256' }) scheme?: SignatureSchemeEnum;
  @Field(() => String) secretName!: string;
}

const MAX_BODY_BYTES_DESCRIPTION =
  'The largest body the integration accepts, in bytes (1 to 1048576); larger ones are refused with 413. ' +
  'Null: 65536 (64 KiB) without a signature check, 1048576 (1 MiB) with one.';

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
  @Field(() => Int, { nullable: true, description: `${MAX_BODY_BYTES_DESCRIPTION} Pass null to go back to the default.` }) maxBodyBytes?: number | null;
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

@InputType()
export class ConfigureModelInput {
  @Field(() => String, { description: 'The reference agents and endpoints use' }) name!: string;
  @Field(() => ModelProviderEnum) provider!: ModelProviderEnum;
  @Field(() => String, { description: "The provider's model name" }) model!: string;
  @Field(() => String, { nullable: true }) baseUrl?: string | null;
  @Field(() => String, { nullable: true, description: 'Name of a secret holding the API key' }) apiKeySecret?: string | null;
  @Field(() => Float, { nullable: true }) inputPricePerMillion?: number;
  @Field(() => Float, { nullable: true }) outputPricePerMillion?: number;
  @Field(() => Boolean, { nullable: true }) isDefault?: boolean;
}

@InputType()
export class CapabilitiesInput {
  @Field(() => Boolean, { nullable: true }) endpointManagement?: boolean;
  @Field(() => Boolean, { nullable: true }) documents?: boolean;
}

@InputType()
export class GuardrailsInput {
  @Field(() => [String], { nullable: true }) blockedInputPatterns?: string[];
  @Field(() => [String], { nullable: true }) redactOutputPatterns?: string[];
  @Field(() => [RedactPresetEnum], { nullable: true }) redactPresets?: RedactPresetEnum[];
  @Field(() => Int, { nullable: true }) maxInputChars?: number | null;
  @Field(() => Int, { nullable: true }) maxOutputTokens?: number | null;
  @Field(() => Int, { nullable: true }) maxToolSteps?: number;
  @Field(() => Float, { nullable: true }) maxCreditsPerRun?: number | null;
}

@InputType()
export class InviteMemberInput {
  @Field(() => String) email!: string;
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => RoleEnum, { nullable: true, description: 'Default MEMBER' }) role?: RoleEnum;
}

@InputType()
export class CreditDefaultsInput {
  @Field(() => Float, { nullable: true }) agentDailyCreditLimit?: number | null;
  @Field(() => Int, { nullable: true }) maxConcurrentRequests?: number | null;
  @Field(() => Float, { nullable: true }) scriptRunCredits?: number;
}

@InputType()
export class DataProcessingInput {
  @Field(() => Boolean, { nullable: true }) dpaAccepted?: boolean;
  @Field(() => [String], { nullable: true }) subprocessors?: string[];
  @Field(() => String, { nullable: true }) region?: string | null;
}

@InputType()
export class WorkspaceSettingsInput {
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'flag name → boolean' }) featureFlags?: Record<string, boolean>;
  @Field(() => CreditDefaultsInput, { nullable: true }) creditDefaults?: CreditDefaultsInput;
  @Field(() => GraphQLJSONObject, { nullable: true }) accountRules?: Record<string, unknown>;
  @Field(() => DataProcessingInput, { nullable: true }) dataProcessing?: DataProcessingInput;
  @Field(() => GraphQLJSONObject, { nullable: true }) loginSettings?: Record<string, unknown>;
  @Field(() => GraphQLJSONObject, { nullable: true }) valueCapture?: Record<string, unknown>;
  @Field(() => [String], { nullable: true }) tags?: string[];
  @Field(() => Int, { nullable: true }) activityRetentionDays?: number;
}

@InputType()
export class RecordMessageInput {
  @Field(() => MessageDirectionEnum) direction!: MessageDirectionEnum;
  @Field(() => MessageChannelEnum) channel!: MessageChannelEnum;
  @Field(() => String) from!: string;
  @Field(() => String) to!: string;
  @Field(() => String, { nullable: true }) subject?: string | null;
  @Field(() => String) body!: string;
  @Field(() => Date, { nullable: true, description: 'Default now' }) sentAt?: Date;
}

@InputType({ description: "One key of a record sort order, as the Document API's `sort`" })
export class RecordSortInput {
  @Field(() => String, { description: 'A STRING, NUMBER, DATETIME or BOOLEAN field of the document' }) field!: string;
  @Field(() => SortDirectionEnum, { nullable: true, description: 'Default ASC' }) direction?: SortDirectionEnum | null;
}
