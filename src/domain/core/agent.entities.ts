import type { Surfaces } from './surface.entities.js';

// Entities of agents as the domain sees them. Repositories map rows to these explicitly.

export interface CorsSettings {
  allowPlatformApps: boolean;
  customOrigins: string[];
}

export interface Capabilities {
  endpointManagement: boolean;
  documents: boolean;
  /** The agent may send email and text messages from its channels (send_email, send_sms). */
  messaging: boolean;
}

/** The capabilities stored for an agent, completed: one added since it was last written (messaging) reads as off. */
export function capabilitiesOf(stored: Partial<Capabilities>): Capabilities {
  return {
    endpointManagement: stored.endpointManagement ?? false,
    documents: stored.documents ?? false,
    messaging: stored.messaging ?? false,
  };
}

export interface Guardrails {
  blockedInputPatterns: string[];
  redactOutputPatterns: string[];
  redactPresets: RedactPreset[];
  maxInputChars: number | null;
  maxOutputTokens: number | null;
  maxToolSteps: number;
  maxCreditsPerRun: number | null;
}
export const REDACT_PRESETS = ['email', 'phone', 'creditCard'] as const;
export type RedactPreset = (typeof REDACT_PRESETS)[number];

export const VISIBILITIES = ['WORKSPACE', 'PRIVATE'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface Agent {
  id: string;
  workspaceId: string;
  teamId: string | null;
  createdBy: string | null;
  name: string;
  /** The agent's handle, unique in its workspace (core/agent-slug.ts). */
  slug: string;
  description: string;
  instructions: string;
  defaultModel: string | null;
  visibility: Visibility;
  allowWorkspaceKeys: boolean;
  surfaces: Surfaces;
  cors: CorsSettings;
  capabilities: Capabilities;
  guardrails: Guardrails;
  dailyCreditLimit: number | null;
  maxConcurrentRequests: number | null;
  createdAt: Date;
  updatedAt: Date;
}
