import type { Agent, Capabilities, CorsSettings, Guardrails, Visibility } from '../core/agent.entities.js';
import type { DocumentKind, FieldDef } from '../documents/document.entities.js';
import type { Handler, HttpMethod, SignatureScheme } from '../entries/entry.entities.js';
import { SURFACES, type Surfaces } from '../core/surface.entities.js';
import type { Repositories } from '../ports.js';
import { DEFAULT_CAPABILITIES, DEFAULT_CORS, DEFAULT_GUARDRAILS, defaultSurfaces } from '../agents/agent.schemas.js';
import { pathShape } from '../entries/entry.schemas.js';
import type { Channel } from '../entries/channel.entities.js';
import type { AgentManifest } from './manifest.schemas.js';
import { desiredSchedules, schedulesState, type ScheduleState } from './manifest.schedules.js';

export { canonical, canonicalJson, writeYaml } from './manifest.canonical.js';

// An agent as a manifest describes it — without ids or timestamps — and its one canonical written
// form. The export writes that form; a plan compares the workspace's and the file's in that form,
// so "no change" and "the same text" are one and the same thing.

export interface AgentSettings {
  name: string;
  /** The agent's handle: what it is matched by. */
  slug: string;
  description: string;
  instructions: string;
  defaultModel: string | null;
  visibility: Visibility;
  /** The team's name. */
  team: string | null;
  allowWorkspaceKeys: boolean;
  capabilities: Capabilities;
  guardrails: Guardrails;
  limits: { dailyCreditLimit: number | null; maxConcurrentRequests: number | null };
  surfaces: Surfaces;
  cors: CorsSettings;
}
export interface EndpointState {
  path: string;
  methods: HttpMethod[];
  description: string;
  handler: Handler;
  modelOverride: string | null;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
}
export interface ToolState {
  name: string;
  description: string;
  handler: Handler;
  modelOverride: string | null;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
}
export interface WebhookState {
  integration: string;
  handler: Handler;
  modelOverride: string | null;
  signature: { scheme: SignatureScheme; secretName: string } | null;
  maxBodyBytes: number | null;
}
/** A channel as a manifest describes it: its address as stored (E.164, or a lower-case email address). */
export type ChannelState = Pick<
  Channel,
  'kind' | 'address' | 'handler' | 'modelOverride' | 'allowedSenders' | 'autoReply'
>;
export interface DocumentState {
  name: string;
  description: string;
  kind: DocumentKind;
  content: string;
  fields: FieldDef[];
  exposure: { read: boolean; write: boolean; mcp: boolean } | null;
  /** Absent: not part of the description (an export without records, a file without them). */
  records?: Record<string, unknown>[];
}
export interface AgentState {
  settings: AgentSettings;
  endpoints: EndpointState[];
  tools: ToolState[];
  webhooks: WebhookState[];
  channels: ChannelState[];
  documents: DocumentState[];
  schedules: ScheduleState[];
}

/** The natural keys entries are matched by: endpoints by path shape, channels by kind and address, the others by name. */
export const KEYS = {
  endpoints: (e: EndpointState) => pathShape(e.path),
  tools: (e: ToolState) => e.name,
  webhooks: (e: WebhookState) => e.integration,
  channels: (e: ChannelState) => `${e.kind}:${e.address}`,
  documents: (e: DocumentState) => e.name,
  schedules: (e: ScheduleState) => e.name,
};

/** Records of a document read per query while exporting. */
const RECORD_PAGE = 1000;

/** What the workspace holds of an agent, with its documents' records when `withRecords`. */
export async function loadState(
  r: Repositories,
  agent: Agent,
  teams: Map<string, string>,
  withRecords: boolean | ((doc: string) => boolean),
): Promise<AgentState> {
  // One query after another: `r` may be a transaction's, whose one connection runs one query at a time.
  const endpoints = await r.httpEndpoints.listByAgents([agent.id]);
  const tools = await r.mcpTools.listByAgents([agent.id]);
  const webhooks = await r.webhooks.listByAgents([agent.id]);
  const channels = await r.channels.listByAgents([agent.id]);
  const documents = await r.documents.listByAgents([agent.id]);
  const exposures = await r.exposures.listByAgents([agent.id]);
  const schedules = await r.schedules.listByAgents([agent.id]);
  const exposureOf = new Map(exposures.map((e) => [e.documentId, { read: e.read, write: e.write, mcp: e.mcp }]));
  const docs: DocumentState[] = [];
  for (const d of documents) {
    const doc: DocumentState = {
      name: d.name,
      description: d.description,
      kind: d.kind,
      content: d.content,
      fields: d.fields,
      exposure: exposureOf.get(d.id) ?? null,
    };
    const want = typeof withRecords === 'function' ? withRecords(d.name) : withRecords;
    if (want && d.kind === 'DATABASE') doc.records = await allRecords(r, d.id);
    docs.push(doc);
  }
  return {
    settings: {
      name: agent.name,
      slug: agent.slug,
      description: agent.description,
      instructions: agent.instructions,
      defaultModel: agent.defaultModel,
      visibility: agent.visibility,
      team: agent.teamId ? (teams.get(agent.teamId) ?? agent.teamId) : null,
      allowWorkspaceKeys: agent.allowWorkspaceKeys,
      capabilities: agent.capabilities,
      guardrails: agent.guardrails,
      limits: { dailyCreditLimit: agent.dailyCreditLimit, maxConcurrentRequests: agent.maxConcurrentRequests },
      surfaces: agent.surfaces,
      cors: agent.cors,
    },
    endpoints: endpoints.map((e) => ({
      path: e.path,
      methods: e.methods,
      description: e.description,
      handler: e.handler,
      modelOverride: e.modelOverride,
      inputSchema: e.inputSchema,
      outputSchema: e.outputSchema,
    })),
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      handler: t.handler,
      modelOverride: t.modelOverride,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
    })),
    webhooks: webhooks.map((w) => ({
      integration: w.integration,
      handler: w.handler,
      modelOverride: w.modelOverride,
      signature: w.signature,
      maxBodyBytes: w.maxBodyBytes,
    })),
    channels: channels.map((c) => ({
      kind: c.kind,
      address: c.address,
      handler: c.handler,
      modelOverride: c.modelOverride,
      allowedSenders: c.allowedSenders,
      autoReply: c.autoReply,
    })),
    documents: docs,
    schedules: schedulesState(schedules),
  };
}

async function allRecords(r: Repositories, documentId: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += RECORD_PAGE) {
    const { records } = await r.records.query(documentId, {}, { limit: RECORD_PAGE, offset });
    for (const { id: _id, ...data } of records) out.push(data);
    if (records.length < RECORD_PAGE) return out;
  }
}

/** The settings of an agent the file creates, before the file's own values: what createAgent gives. */
export function newAgentSettings(name: string, slug: string, limits: AgentSettings['limits']): AgentSettings {
  return {
    name,
    slug,
    description: '',
    instructions: '',
    defaultModel: null,
    visibility: 'WORKSPACE',
    team: null,
    allowWorkspaceKeys: false,
    capabilities: DEFAULT_CAPABILITIES,
    guardrails: DEFAULT_GUARDRAILS,
    limits,
    surfaces: defaultSurfaces(),
    cors: DEFAULT_CORS,
  };
}

const given = <T>(v: T | undefined, current: T): T => (v === undefined ? current : v);

/**
 * The state a manifest asks for: its settings over `current` (a field the file leaves out keeps its
 * value), and exactly its lists of entries. A document without `records` keeps the records it has.
 */
export function desiredState(m: AgentManifest, current: AgentSettings): AgentState {
  const s = m.spec;
  const g = s.guardrails ?? {};
  const settings: AgentSettings = {
    name: m.metadata.name,
    // The plan matched the agent by its slug (or made one for it): the file never changes it.
    slug: current.slug,
    description: given(m.metadata.description, current.description),
    instructions: given(s.instructions, current.instructions),
    defaultModel: given(s.defaultModel, current.defaultModel),
    visibility: given(s.visibility, current.visibility),
    team: given(s.team, current.team),
    allowWorkspaceKeys: given(s.allowWorkspaceKeys, current.allowWorkspaceKeys),
    capabilities: {
      endpointManagement: given(s.capabilities?.endpointManagement, current.capabilities.endpointManagement),
      documents: given(s.capabilities?.documents, current.capabilities.documents),
      messaging: given(s.capabilities?.messaging, current.capabilities.messaging),
    },
    guardrails: {
      blockedInputPatterns: given(g.blockedInputPatterns, current.guardrails.blockedInputPatterns),
      redactOutputPatterns: given(g.redactOutputPatterns, current.guardrails.redactOutputPatterns),
      redactPresets: given(g.redactPresets, current.guardrails.redactPresets),
      maxInputChars: given(g.maxInputChars, current.guardrails.maxInputChars),
      maxOutputTokens: given(g.maxOutputTokens, current.guardrails.maxOutputTokens),
      maxToolSteps: given(g.maxToolSteps, current.guardrails.maxToolSteps),
      maxCreditsPerRun: given(g.maxCreditsPerRun, current.guardrails.maxCreditsPerRun),
    },
    limits: {
      dailyCreditLimit: given(s.limits?.dailyCreditLimit, current.limits.dailyCreditLimit),
      maxConcurrentRequests: given(s.limits?.maxConcurrentRequests, current.limits.maxConcurrentRequests),
    },
    surfaces: Object.fromEntries(
      SURFACES.map((k) => [
        k,
        {
          enabled: given(s.surfaces?.[k]?.enabled, current.surfaces[k].enabled),
          activityLogging: given(s.surfaces?.[k]?.activityLogging, current.surfaces[k].activityLogging),
        },
      ]),
    ) as Surfaces,
    cors: s.cors
      ? { allowPlatformApps: s.cors.allowPlatformApps, customOrigins: [...new Set(s.cors.customOrigins)] }
      : current.cors,
  };
  return {
    settings,
    endpoints: (s.httpApi?.endpoints ?? []).map((e) => ({
      ...e,
      modelOverride: e.modelOverride ?? null,
      inputSchema: e.inputSchema ?? null,
      outputSchema: e.outputSchema ?? null,
    })),
    tools: (s.mcp?.tools ?? []).map((t) => ({
      ...t,
      modelOverride: t.modelOverride ?? null,
      inputSchema: t.inputSchema ?? null,
      outputSchema: t.outputSchema ?? null,
    })),
    webhooks: (s.webhooks?.integrations ?? []).map((w) => ({
      integration: w.integration,
      handler: w.handler,
      modelOverride: w.modelOverride ?? null,
      signature: w.signature ?? null,
      maxBodyBytes: w.maxBodyBytes ?? null,
    })),
    // Addresses and senders come normalised from the manifest schema (manifestChannel).
    channels: (s.channels ?? []).map((c) => ({
      kind: c.kind,
      address: c.address,
      handler: c.handler,
      modelOverride: c.modelOverride ?? null,
      allowedSenders: c.allowedSenders,
      autoReply: c.autoReply ?? true,
    })),
    documents: (s.documents ?? []).map((d) => ({
      name: d.name,
      description: d.description,
      kind: d.kind,
      content: d.content,
      fields: d.fields,
      exposure: d.exposure ?? null,
      ...(d.records ? { records: d.records } : {}),
    })),
    schedules: desiredSchedules(s.schedules),
  };
}
