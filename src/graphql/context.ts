import DataLoader from 'dataloader';
import type { ActivityEntry } from '../domain/activity/activity.entities.js';
import type { Agent } from '../domain/core/agent.entities.js';
import type { Document, DocumentExposure } from '../domain/documents/document.entities.js';
import type { HttpEndpoint, McpTool, Webhook } from '../domain/entries/entry.entities.js';
import type { ApiKey } from '../domain/keys/key.entities.js';
import type { Channel } from '../domain/entries/channel.entities.js';
import type { McpGrantView } from '../domain/mcp-oauth/mcp-grant.service.js';
import type { Principal } from '../domain/principal.js';
import type { Schedule } from '../domain/schedules/schedule.entities.js';
import type { Services } from '../domain/services.js';

/** Per-request GraphQL context: who is acting, the domain, and batched loaders. */
export interface Context {
  principal: Principal;
  services: Services;
  loaders: Loaders;
  /** The console session the request came with (cookie), absent for a bearer token. */
  consoleSessionId?: string;
  /** The workspace of the tenant host the request came to (TENANT_BASE_URL); absent on the shared base URL. */
  tenant?: { workspaceId: string; slug: string };
}

export interface Loaders {
  httpEndpoints: DataLoader<string, HttpEndpoint[]>;
  mcpTools: DataLoader<string, McpTool[]>;
  webhooks: DataLoader<string, Webhook[]>;
  channels: DataLoader<string, Channel[]>;
  schedules: DataLoader<string, Schedule[]>;
  documents: DataLoader<string, Document[]>;
  documentExposures: DataLoader<string, DocumentExposure[]>;
  apiKeys: DataLoader<string, ApiKey[]>;
  mcpGrants: DataLoader<string, McpGrantView[]>;
  /** A run's activity entry by run id (null: none stored yet, or logging is off). */
  runs: DataLoader<string, ActivityEntry | null>;
  /** The shown beginning of a delivery's body (DELIVERY_BODY_SHOWN_BYTES), as UTF-8 text, by delivery id. */
  deliveryBodies: DataLoader<string, string>;
}

function byAgent<T extends { agentId: string | null }>(load: (ids: readonly string[]) => Promise<T[]>) {
  return new DataLoader<string, T[]>(async (agentIds) => {
    const rows = await load(agentIds);
    const grouped = new Map<string, T[]>(agentIds.map((id) => [id, []]));
    for (const row of rows) if (row.agentId) grouped.get(row.agentId)?.push(row);
    return agentIds.map((id) => grouped.get(id) ?? []);
  });
}

/**
 * Loaders of an agent's child lists: one read per list kind for all agents in the request. Each
 * asks the domain as the request's principal, which leaves out what the principal may not read.
 */
export function createLoaders(services: Services, principal: Principal): Loaders {
  return {
    httpEndpoints: byAgent((ids) => services.entries.listForAgents(principal, 'httpEndpoints', ids)),
    mcpTools: byAgent((ids) => services.entries.listForAgents(principal, 'mcpTools', ids)),
    webhooks: byAgent((ids) => services.entries.listForAgents(principal, 'webhooks', ids)),
    channels: byAgent((ids) => services.entries.listForAgents(principal, 'channels', ids)),
    schedules: byAgent((ids) => services.schedules.listForAgents(principal, ids)),
    documents: byAgent((ids) => services.documents.listForAgents(principal, ids)),
    documentExposures: byAgent((ids) => services.documents.exposuresForAgents(principal, ids)),
    apiKeys: byAgent((ids) => services.keys.listForAgents(principal, ids)),
    mcpGrants: byAgent((ids) => services.mcpGrants.listForAgents(principal, ids)),
    runs: new DataLoader<string, ActivityEntry | null>(async (runIds) => {
      const found = new Map((await services.activity.runEntries(principal, runIds)).map((e) => [e.runId, e]));
      return runIds.map((id) => found.get(id) ?? null);
    }),
    // Only when `body` is asked for, and only its beginning: a page of 200 reads at most 12.5 MiB.
    deliveryBodies: new DataLoader<string, string>(async (ids) => {
      const heads = await services.deliveryBodies.heads(principal, ids);
      return ids.map((id) => heads.get(id) ?? '');
    }),
  };
}

export type { Agent };
