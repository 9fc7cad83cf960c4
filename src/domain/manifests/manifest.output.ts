import { SURFACES } from '../core/surface.entities.js';
import { HTTP_METHODS, type Handler, type HttpMethod } from '../entries/entry.entities.js';
import { API_VERSION, KIND } from './manifest.schemas.js';
import { scheduleOut } from './manifest.schedules.js';
import {
  KEYS,
  type AgentSettings,
  type AgentState,
  type ChannelState,
  type DocumentState,
  type EndpointState,
  type ToolState,
  type WebhookState,
} from './manifest.state.js';

// The canonical written form of an agent's state: what the export writes and a plan compares.

const handlerOut = (h: Handler) => (h.kind === 'prompt' ? { prompt: h.body } : { script: h.body });
/** Only the fields that say something: nulls and empty descriptions are left out of entries. */
const present = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined && v !== ''));
const methodOrder = (m: HttpMethod[]) => HTTP_METHODS.filter((x) => m.includes(x));

export function endpointOut(e: EndpointState): Record<string, unknown> {
  return present({
    path: e.path,
    methods: methodOrder(e.methods),
    description: e.description,
    handler: handlerOut(e.handler),
    modelOverride: e.modelOverride,
    inputSchema: e.inputSchema,
    outputSchema: e.outputSchema,
  });
}
export function toolOut(t: ToolState): Record<string, unknown> {
  return present({
    name: t.name,
    description: t.description,
    handler: handlerOut(t.handler),
    modelOverride: t.modelOverride,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
  });
}
export function webhookOut(w: WebhookState): Record<string, unknown> {
  return present({
    integration: w.integration,
    handler: handlerOut(w.handler),
    modelOverride: w.modelOverride,
    signature: w.signature,
    maxBodyBytes: w.maxBodyBytes,
  });
}
/** A channel; no allowed senders (anyone) is left out, `autoReply` is always written. */
export function channelOut(c: ChannelState): Record<string, unknown> {
  return present({
    kind: c.kind,
    address: c.address,
    handler: handlerOut(c.handler),
    modelOverride: c.modelOverride,
    allowedSenders: c.allowedSenders.length ? c.allowedSenders : null,
    autoReply: c.autoReply,
  });
}
/** A document without its records (they are compared on their own). */
export function documentOut(d: DocumentState): Record<string, unknown> {
  return present({
    name: d.name,
    kind: d.kind,
    description: d.description,
    content: d.content,
    fields: d.kind === 'DATABASE' ? d.fields.map((f) => ({ name: f.name, type: f.type, required: f.required })) : null,
    // `mcp` is written only when on, so that manifests written before it existed read the same.
    exposure: d.exposure && {
      read: d.exposure.read,
      write: d.exposure.write,
      ...(d.exposure.mcp ? { mcp: true } : {}),
    },
  });
}

const byKey = <T>(list: T[], key: (e: T) => string) =>
  [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** The agent's settings in their written form (the parts of `spec` that are not lists). */
export function settingsOut(s: AgentSettings) {
  return {
    metadata: { name: s.name, slug: s.slug, description: s.description },
    spec: {
      instructions: s.instructions,
      defaultModel: s.defaultModel,
      visibility: s.visibility,
      team: s.team,
      allowWorkspaceKeys: s.allowWorkspaceKeys,
      capabilities: {
        endpointManagement: s.capabilities.endpointManagement,
        documents: s.capabilities.documents,
        messaging: s.capabilities.messaging,
      },
      guardrails: {
        blockedInputPatterns: s.guardrails.blockedInputPatterns,
        redactOutputPatterns: s.guardrails.redactOutputPatterns,
        redactPresets: s.guardrails.redactPresets,
        maxInputChars: s.guardrails.maxInputChars,
        maxOutputTokens: s.guardrails.maxOutputTokens,
        maxToolSteps: s.guardrails.maxToolSteps,
        maxCreditsPerRun: s.guardrails.maxCreditsPerRun,
      },
      limits: { dailyCreditLimit: s.limits.dailyCreditLimit, maxConcurrentRequests: s.limits.maxConcurrentRequests },
      surfaces: Object.fromEntries(
        SURFACES.map((k) => [k, { enabled: s.surfaces[k].enabled, activityLogging: s.surfaces[k].activityLogging }]),
      ),
      cors: { allowPlatformApps: s.cors.allowPlatformApps, customOrigins: s.cors.customOrigins },
    },
  };
}

/** The whole manifest document of an agent, entries sorted by their keys. */
export function manifestOut(state: AgentState): Record<string, unknown> {
  const { metadata, spec } = settingsOut(state.settings);
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata,
    spec: {
      ...spec,
      httpApi: { endpoints: byKey(state.endpoints, (e) => e.path).map(endpointOut) },
      mcp: { tools: byKey(state.tools, KEYS.tools).map(toolOut) },
      webhooks: { integrations: byKey(state.webhooks, KEYS.webhooks).map(webhookOut) },
      channels: byKey(state.channels, KEYS.channels).map(channelOut),
      schedules: byKey(state.schedules, KEYS.schedules).map(scheduleOut),
      documents: byKey(state.documents, KEYS.documents).map((d) => ({
        ...documentOut(d),
        ...(d.records ? { records: d.records } : {}),
      })),
    },
  };
}
