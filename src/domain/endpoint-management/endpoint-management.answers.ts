import type { Agent } from '../core/agent.entities.js';
import type { Channel } from '../entries/channel.entities.js';
import type { Document, DocumentExposure } from '../documents/document.entities.js';
import type { Handler, HttpEndpoint, McpTool, Webhook } from '../entries/entry.entities.js';
import { DEFAULT_TOOL_SCHEMA } from '../entries/entry.schemas.js';
import type { Json } from '../json.js';
import { SURFACES } from '../core/surface.entities.js';

// What the agent's Endpoint Management tools answer: the fields a member reads over GraphQL, with
// its names (handler kinds upper-case, instants as ISO strings), so the model and the console see
// one shape.

type Entry = HttpEndpoint | McpTool | Webhook | Channel;

const json = (v: Record<string, unknown> | null): Json => v as Json;

function entryFields(e: Entry): { [k: string]: Json } {
  return { id: e.id, agentId: e.agentId, createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString() };
}

function handlerFields(e: Entry): { [k: string]: Json } {
  const h: Handler = e.handler;
  return {
    handler: {
      kind: h.kind.toUpperCase(),
      prompt: h.kind === 'prompt' ? h.body : null,
      script: h.kind === 'script' ? h.body : null,
    },
    modelOverride: e.modelOverride,
  };
}

/** An HTTP endpoint; `described` adds its description (as `list_surfaces` shows it). */
export function httpEndpointAnswer(e: HttpEndpoint, described = false): Json {
  return {
    ...entryFields(e),
    path: e.path,
    methods: e.methods,
    ...(described ? { description: e.description } : {}),
    inputSchema: json(e.inputSchema),
    outputSchema: json(e.outputSchema),
    ...handlerFields(e),
  };
}

/** An MCP tool, with the arguments schema MCP clients are shown (the default when none was set). */
export function mcpToolAnswer(t: McpTool): Json {
  return {
    ...entryFields(t),
    name: t.name,
    description: t.description,
    inputSchema: json(t.inputSchema ?? DEFAULT_TOOL_SCHEMA),
    outputSchema: json(t.outputSchema),
    ...handlerFields(t),
  };
}

export function webhookAnswer(w: Webhook): Json {
  const signature = w.signature ? { scheme: w.signature.scheme, secretName: w.signature.secretName } : null;
  return {
    ...entryFields(w),
    integration: w.integration,
    signature,
    maxBodyBytes: w.maxBodyBytes,
    ...handlerFields(w),
  };
}

/** An email address or SMS number of the agent (docs/decisions.md §30), as `Agent.channels` shows it. */
export function channelAnswer(c: Channel): Json {
  return {
    ...entryFields(c),
    kind: c.kind,
    address: c.address,
    allowedSenders: c.allowedSenders,
    autoReply: c.autoReply,
    ...handlerFields(c),
  };
}

export function exposureAnswer(x: DocumentExposure): Json {
  return { documentId: x.documentId, read: x.read, write: x.write, mcp: x.mcp };
}

/** The agent's surfaces and CORS settings. */
export function agentSettingsAnswer(agent: Agent): { [k: string]: Json } {
  return {
    id: agent.id,
    surfaces: SURFACES.map((s) => ({
      surface: s,
      enabled: agent.surfaces[s].enabled,
      activityLogging: agent.surfaces[s].activityLogging,
    })),
    cors: { allowPlatformApps: agent.cors.allowPlatformApps, customOrigins: agent.cors.customOrigins },
  };
}

/** What `list_surfaces` reads. */
export interface SurfacesOverview {
  agent: Agent;
  httpEndpoints: HttpEndpoint[];
  mcpTools: McpTool[];
  webhooks: Webhook[];
  channels: Channel[];
  documentExposures: DocumentExposure[];
  documents: Document[];
}

export function surfacesAnswer(o: SurfacesOverview): Json {
  return {
    ...agentSettingsAnswer(o.agent),
    httpEndpoints: o.httpEndpoints.map((e) => httpEndpointAnswer(e, true)),
    mcpTools: o.mcpTools.map(mcpToolAnswer),
    webhooks: o.webhooks.map(webhookAnswer),
    channels: o.channels.map(channelAnswer),
    documentExposures: o.documentExposures.map(exposureAnswer),
    documents: o.documents.map((d) => ({ id: d.id, name: d.name, kind: d.kind })),
  };
}
