import { z } from 'zod';
import { SURFACES } from '../core/surface.entities.js';
import {
  REDACT_PRESETS,
  VISIBILITIES,
  type Capabilities,
  type CorsSettings,
  type Guardrails,
} from '../core/agent.entities.js';
import { patternRefusal } from '../core/patterns.js';
import { slugInput } from '../core/agent-slug.js';
import { modelRef, nonEmpty, optionalText } from '../validation.js';

export const createAgentInput = z.object({
  name: nonEmpty(200),
  slug: slugInput.nullable().optional(),
  description: optionalText(2000).default(''),
  instructions: optionalText(100_000).default(''),
  defaultModel: modelRef.nullable().optional(),
  visibility: z.enum(VISIBILITIES).default('WORKSPACE'),
  teamId: z.string().min(1).max(100).nullable().optional(),
  allowWorkspaceKeys: z.boolean().default(false),
});

export const updateAgentInput = z.object({
  name: nonEmpty(200).optional(),
  slug: slugInput.optional(),
  description: optionalText(2000).optional(),
  instructions: optionalText(100_000).optional(),
  defaultModel: modelRef.nullable().optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  teamId: z.string().min(1).max(100).nullable().optional(),
  allowWorkspaceKeys: z.boolean().optional(),
});

export const surfaceInput = z.object({
  surface: z.enum(SURFACES),
  enabled: z.boolean().optional(),
  activityLogging: z.boolean().optional(),
});

/** An origin is scheme + host (+ port), nothing else: `https://app.example.com`. */
export const origin = z
  .string()
  .trim()
  .max(300)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === v.replace(/\/$/, '') && !v.endsWith('/')
      );
    } catch {
      return false;
    }
  }, 'must be an origin: scheme and host only, like https://app.example.com');

export const corsInput = z.object({
  allowPlatformApps: z.boolean(),
  customOrigins: z.array(origin).max(100).default([]),
});

export const capabilitiesInput = z.object({
  endpointManagement: z.boolean().optional(),
  documents: z.boolean().optional(),
  messaging: z.boolean().optional(),
});

/** A blocked or redaction pattern: a phrase or an RE2 regular expression the linear-time engine can run. */
const pattern = z
  .string()
  .min(1)
  .max(500)
  .superRefine((p, ctx) => {
    const refusal = patternRefusal(p);
    if (refusal)
      ctx.addIssue({
        code: 'custom',
        message: `the pattern \`${p}\` cannot run in the linear-time pattern engine: ${refusal}`,
      });
  });

export const guardrailsInput = z.object({
  blockedInputPatterns: z.array(pattern).max(100).optional(),
  redactOutputPatterns: z.array(pattern).max(100).optional(),
  redactPresets: z.array(z.enum(REDACT_PRESETS)).max(REDACT_PRESETS.length).optional(),
  maxInputChars: z.number().int().min(1).max(10_000_000).nullable().optional(),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).nullable().optional(),
  maxToolSteps: z.number().int().min(1).max(100).optional(),
  maxCreditsPerRun: z.number().positive().max(1e9).nullable().optional(),
});

export const limitsInput = z.object({
  dailyCreditLimit: z.number().nonnegative('must be zero or more').max(1e12).nullable().optional(),
  maxConcurrentRequests: z.number().int().min(1, 'must be at least 1').max(10_000).nullable().optional(),
});

export { defaultSurfaces } from '../core/surface.entities.js';
export const DEFAULT_CORS: CorsSettings = { allowPlatformApps: true, customOrigins: [] };
export const DEFAULT_CAPABILITIES: Capabilities = { endpointManagement: false, documents: false, messaging: false };
export const DEFAULT_GUARDRAILS: Guardrails = {
  blockedInputPatterns: [],
  redactOutputPatterns: [],
  redactPresets: [],
  maxInputChars: null,
  maxOutputTokens: null,
  maxToolSteps: 5,
  maxCreditsPerRun: null,
};
