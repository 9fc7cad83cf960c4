import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { REDACT_PRESETS, type RedactPreset, VISIBILITIES, type Visibility } from '../../domain/core/agent.entities.js';
import { type Surface, SURFACES } from '../../domain/core/surface.entities.js';
import { register } from '../graphql-enum.js';

// Agents and their settings (surfaces, CORS, capabilities, guardrails, limits). GraphQL types of the area;
// inputs carry no validation of their own: the domain's zod schemas are the only validation.

export const SurfaceEnum = register(SURFACES, 'Surface', { description: 'An agent surface' });
export type SurfaceEnum = Surface;
export const VisibilityEnum = register(VISIBILITIES, 'Visibility');
export type VisibilityEnum = Visibility;
export const RedactPresetEnum = register(REDACT_PRESETS, 'RedactPreset', { nameOf: (v) => v });
export type RedactPresetEnum = RedactPreset;

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
  @Field(() => Boolean, {
    description:
      "The agent may send email and text messages from its channels (send_email, send_sms), to each channel's allowed senders or into the thread it answers",
  })
  messaging!: boolean;
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
  @Field(() => String, {
    description:
      "The agent's handle, unique in its workspace: lower-case letters, digits and dashes, derived from the name when the agent is made and kept when it is renamed",
  })
  slug!: string;
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

@InputType()
export class CreateAgentInput {
  @Field(() => String) name!: string;
  @Field(() => String, {
    nullable: true,
    description: "The agent's handle; absent: derived from the name (a taken one gets -2, -3 …)",
  })
  slug?: string | null;
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
  @Field(() => String, { nullable: true, description: 'A new handle; renaming the agent keeps its handle' })
  slug?: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => String, { nullable: true }) instructions?: string;
  @Field(() => String, { nullable: true }) defaultModel?: string | null;
  @Field(() => VisibilityEnum, { nullable: true }) visibility?: VisibilityEnum;
  @Field(() => ID, { nullable: true }) teamId?: string | null;
  @Field(() => Boolean, { nullable: true }) allowWorkspaceKeys?: boolean;
}

@InputType()
export class CapabilitiesInput {
  @Field(() => Boolean, { nullable: true }) endpointManagement?: boolean;
  @Field(() => Boolean, { nullable: true }) documents?: boolean;
  @Field(() => Boolean, { nullable: true }) messaging?: boolean;
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
