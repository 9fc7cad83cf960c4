import { z } from 'zod';
import { SURFACES } from '../core/surface.entities.js';
import {
  capabilitiesInput,
  corsInput,
  createAgentInput,
  guardrailsInput,
  limitsInput,
  surfaceInput,
  updateAgentInput,
} from '../agents/agent.schemas.js';
import { documentInput, exposureInput } from '../documents/document.schemas.js';
import { recordItem } from '../documents/document-api.schemas.js';
import { httpEndpointInput, mcpToolInput, webhookInput } from '../entries/entry.schemas.js';
import { allowedSendersOf, channelAddress, channelInput } from '../entries/channel.schemas.js';
import { Invalid } from '../errors.js';
import { slugInput } from '../core/agent-slug.js';
import { manifestSchedule } from './manifest.schedules.js';

// The agent manifest (`apiVersion: agents/v1`, `kind: Agent`), composed from the very schemas the
// GraphQL inputs are validated with: a manifest is accepted exactly when the mutations it stands
// for would be. Agent-level fields are all optional (absent: left as they are); an entry of a list
// is whole (its absent fields take the input's defaults). Unknown fields are refused by the
// manifest parser (unknownFields in manifest.parse.ts), which walks these same shapes.

export const API_VERSION = 'agents/v1';
export const KIND = 'Agent';

/** The largest manifest text accepted, in bytes (UTF-8). */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Agents one manifest text may describe. */
export const MAX_MANIFEST_AGENTS = 100;

const surfaceSetting = surfaceInput.omit({ surface: true });

export const manifestDocument = documentInput.extend({
  exposure: exposureInput
    .nullable()
    .optional()
    .describe(
      'Exposure on the Document API (read, write) and the MCP server (mcp: listed and read as a resource); absent or null: not exposed',
    ),
  records: z
    .array(recordItem)
    .max(10_000)
    .optional()
    .describe('Records of a DATABASE document; absent: its records are left as they are'),
});

/**
 * A channel, its address and senders as addChannel stores them (E.164, lower case), so that the
 * plan compares what the workspace holds; an address of the wrong form is an issue at its field.
 */
export const manifestChannel = channelInput.transform((c, ctx) => {
  try {
    return {
      ...c,
      address: channelAddress(c.kind, c.address),
      allowedSenders: allowedSendersOf(c.kind, c.allowedSenders ?? []),
    };
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    // `input.address`, `input.allowedSenders.2`: the path inside the channel.
    const path = (err.field ?? '')
      .split('.')
      .slice(1)
      .map((k) => (/^\d+$/.test(k) ? Number(k) : k));
    ctx.issues.push({ code: 'custom', message: err.message.replace(/^[^:]*: /, ''), path, input: c });
    return z.NEVER;
  }
});

export const manifestSpec = z.object({
  instructions: updateAgentInput.shape.instructions,
  defaultModel: updateAgentInput.shape.defaultModel,
  visibility: updateAgentInput.shape.visibility,
  team: updateAgentInput.shape.teamId.describe("The team's name; null: no team"),
  allowWorkspaceKeys: updateAgentInput.shape.allowWorkspaceKeys,
  capabilities: capabilitiesInput.optional(),
  guardrails: guardrailsInput.optional(),
  limits: limitsInput.optional(),
  surfaces: z
    .object(
      Object.fromEntries(SURFACES.map((s) => [s, surfaceSetting.optional()])) as Record<
        (typeof SURFACES)[number],
        z.ZodOptional<typeof surfaceSetting>
      >,
    )
    .optional(),
  cors: corsInput.optional(),
  httpApi: z.object({ endpoints: z.array(httpEndpointInput).max(500).optional() }).optional(),
  mcp: z.object({ tools: z.array(mcpToolInput).max(500).optional() }).optional(),
  webhooks: z.object({ integrations: z.array(webhookInput).max(500).optional() }).optional(),
  channels: z
    .array(manifestChannel)
    .max(500)
    .optional()
    .describe(
      'Email addresses and SMS numbers, matched by kind and address; an address routes to one agent across the service',
    ),
  documents: z.array(manifestDocument).max(500).optional(),
  schedules: z
    .array(manifestSchedule)
    .max(500)
    .optional()
    .describe('Schedules, matched by name: runs that start by themselves (they fire while the SCHEDULE surface is on)'),
});

export const agentManifest = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(KIND),
  metadata: z.object({
    name: createAgentInput.shape.name,
    slug: slugInput
      .optional()
      .describe(
        "The agent's handle, unique in the workspace; the agent is matched by it. Absent: the agent of that exact name when there is one, else the slug the name gives",
      ),
    description: updateAgentInput.shape.description,
  }),
  spec: manifestSpec.default({}),
});

export type AgentManifest = z.output<typeof agentManifest>;
export type ManifestSpec = AgentManifest['spec'];
export type ManifestDocument = z.output<typeof manifestDocument>;

/**
 * The JSON Schema (draft 2020-12) of one manifest document, generated from the zod schemas above:
 * what editors validate and complete with. Every object with named fields is closed
 * (`additionalProperties: false`), as the service refuses unknown fields; rules zod checks in code
 * (a script compiles, a pattern runs in the linear-time engine, names are unique) are checked by
 * the service only.
 */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(agentManifest, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  close(schema);
  return {
    $schema: schema.$schema,
    title: 'Agent manifest (agents/v1)',
    description:
      'One agent with all its surfaces, as `exportAgents` writes it and `planManifest` / `applyManifest` take it. See docs/agents-as-code.md.',
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
  };
}

function close(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(close);
  if (typeof node !== 'object' || node === null) return;
  const o = node as Record<string, unknown>;
  if (o.type === 'object' && o.properties && o.additionalProperties === undefined) o.additionalProperties = false;
  for (const v of Object.values(o)) close(v);
}
