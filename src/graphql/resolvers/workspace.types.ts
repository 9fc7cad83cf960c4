import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { MODEL_PROVIDERS, type ModelProvider } from '../../domain/models/model.entities.js';
import { type Role, ROLES } from '../../domain/principal.js';
import { SECRET_KINDS, type SecretKind } from '../../domain/secrets/secret.entities.js';
import { TOKEN_SCOPES, type TokenScope } from '../../domain/workspace/workspace.entities.js';
import { register } from '../graphql-enum.js';
import { MessageChannelEnum, MessageDirectionEnum } from './message.types.js';

// The workspace: members, tokens, teams, settings, secrets, models and recording messages. GraphQL types of the area;
// inputs carry no validation of their own: the domain's zod schemas are the only validation.

export const RoleEnum = register(ROLES, 'Role');
export type RoleEnum = Role;
export const TokenScopeEnum = register(TOKEN_SCOPES, 'TokenScope');
export type TokenScopeEnum = TokenScope;
export const SecretKindEnum = register(SECRET_KINDS, 'SecretKind');
export type SecretKindEnum = SecretKind;
export const ModelProviderEnum = register(MODEL_PROVIDERS, 'ModelProvider');
export type ModelProviderEnum = ModelProvider;

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
  @Field(() => TokenScopeEnum, {
    description:
      "WORKSPACE: acts in its own workspace only; PERSON: in any of the person's workspaces, the one named by the AES-Workspace request header (else its own)",
  })
  scope!: TokenScopeEnum;
}

@ObjectType({ description: 'A personal GraphQL token as listed: never the token itself' })
export class MemberToken {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) prefix!: string;
  @Field(() => String) last4!: string;
  @Field(() => TokenScopeEnum) scope!: TokenScopeEnum;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
}

@ObjectType()
export class Workspace {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'Unique across the deployment: its tenant host under TENANT_BASE_URL' })
  slug!: string;
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
  @Field(() => Int, {
    description:
      'Days stored messages (email, SMS) and their attachments are kept before housekeeping deletes them; 0 keeps them forever (default 90)',
  })
  messageRetentionDays!: number;
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
  @Field(() => String, {
    nullable: true,
    description: 'Server URL; to anyone but an admin its user info, query and fragment read ***',
  })
  baseUrl!: string | null;
  @Field(() => String, { nullable: true }) apiKeySecret!: string | null;
  @Field(() => Float) inputPricePerMillion!: number;
  @Field(() => Float) outputPricePerMillion!: number;
  @Field(() => Boolean) isDefault!: boolean;
  @Field(() => Boolean, {
    description:
      'Whether the model takes images in user messages; the OpenAI-compatible API refuses image parts for a model that does not',
  })
  acceptsImages!: boolean;
  @Field(() => String, {
    nullable: true,
    description:
      "Set on configureModel's answer when the model name could not be checked against the provider's model list (the provider has no list, refused the key, or could not be reached), saying why; null otherwise and on queries",
  })
  warning?: string | null;
}

@ObjectType({
  description:
    "A model provider the service's environment configures (OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_API_KEY): read-only, never its key",
})
export class EnvironmentModel {
  @Field(() => ModelProviderEnum, {
    description: 'OPENAI_COMPATIBLE for OPENAI_BASE_URL (a server of its own), OPENAI for the public API',
  })
  provider!: ModelProviderEnum;
  @Field(() => String, {
    nullable: true,
    description: "The server called, its user info, query and fragment read ***; null for the provider's public API",
  })
  baseUrl!: string | null;
  @Field(() => String, { description: 'The model a run uses when nothing names one (OPENAI_MODEL, ANTHROPIC_MODEL)' })
  model!: string;
  @Field(() => String, { description: 'The environment variable that configures it' }) source!: string;
  @Field(() => Boolean, { description: 'Whether a key is set (the key itself is never shown)' }) hasKey!: boolean;
  @Field(() => Boolean, {
    description: 'Whether runs that name no model use it when the workspace has no default model (the first one)',
  })
  isFallback!: boolean;
}

@ObjectType({ description: "testModel's answer: one small call to the model through the same resolution as a run" })
export class ModelTestResult {
  @Field(() => Boolean) ok!: boolean;
  @Field(() => String, { nullable: true, description: "The model's answer" }) output!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The provider's error as it gave it (HTTP status and message), credentials removed",
  })
  error!: string | null;
  @Field(() => Int, { description: 'Time the call took, in milliseconds' }) latencyMs!: number;
}

@InputType()
export class ConfigureModelInput {
  @Field(() => String, { description: 'The reference agents and endpoints use' }) name!: string;
  @Field(() => ModelProviderEnum) provider!: ModelProviderEnum;
  @Field(() => String, { description: "The provider's model name" }) model!: string;
  @Field(() => String, { nullable: true }) baseUrl?: string | null;
  @Field(() => String, { nullable: true, description: 'Name of a secret holding the API key' }) apiKeySecret?:
    string | null;
  @Field(() => Float, { nullable: true }) inputPricePerMillion?: number;
  @Field(() => Float, { nullable: true }) outputPricePerMillion?: number;
  @Field(() => Boolean, { nullable: true }) isDefault?: boolean;
  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether the model takes images in user messages (default false)',
  })
  acceptsImages?: boolean;
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
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'flag name → boolean' }) featureFlags?: Record<
    string,
    boolean
  >;
  @Field(() => CreditDefaultsInput, { nullable: true }) creditDefaults?: CreditDefaultsInput;
  @Field(() => GraphQLJSONObject, { nullable: true }) accountRules?: Record<string, unknown>;
  @Field(() => DataProcessingInput, { nullable: true }) dataProcessing?: DataProcessingInput;
  @Field(() => GraphQLJSONObject, { nullable: true }) loginSettings?: Record<string, unknown>;
  @Field(() => GraphQLJSONObject, { nullable: true }) valueCapture?: Record<string, unknown>;
  @Field(() => [String], { nullable: true }) tags?: string[];
  @Field(() => Int, { nullable: true }) activityRetentionDays?: number;
  @Field(() => Int, { nullable: true, description: 'Days messages are kept, 0 to 36500; 0 keeps them forever' })
  messageRetentionDays?: number;
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
