import DataLoader from 'dataloader';
import type { ActivityEntry } from '../domain/activity/activity.entities.js';
import type { Agent } from '../domain/agents/agent.entities.js';
import type { Document, DocumentExposure } from '../domain/documents/document.entities.js';
import type { HttpEndpoint, McpTool, Webhook } from '../domain/entries/entry.entities.js';
import type { ApiKey } from '../domain/keys/key.entities.js';
import type { Principal } from '../domain/principal.js';
import type { AgentChildRepo } from '../domain/repo.ports.js';
import type { Services } from '../domain/services.js';
import { DELIVERY_BODY_SHOWN_BYTES } from '../domain/webhooks/webhook-deliveries.service.js';

/** Per-request GraphQL context: who is acting, the domain, and batched loaders. */
export interface Context {
  principal: Principal;
  services: Services;
  loaders: Loaders;
  /** The console session the request came with (cookie), absent for a bearer token. */
  consoleSessionId?: string;
}

export interface Loaders {
  httpEndpoints: DataLoader<string, HttpEndpoint[]>;
  mcpTools: DataLoader<string, McpTool[]>;
  webhooks: DataLoader<string, Webhook[]>;
  documents: DataLoader<string, Document[]>;
  documentExposures: DataLoader<string, DocumentExposure[]>;
  apiKeys: DataLoader<string, ApiKey[]>;
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
 * Loaders of an agent's child lists: one query per list kind for all agents in the request.
 * Callers pass only agents the principal may read (the parent resolver has checked), and only
 * deliveries a query or mutation has returned to the principal.
 */
export function createLoaders(services: Services): Loaders {
  const r = services.store.repos;
  const child = <T extends { id: string; agentId: string }>(repo: AgentChildRepo<T>) => byAgent((ids) => repo.listByAgents(ids));
  return {
    httpEndpoints: child(r.httpEndpoints),
    mcpTools: child(r.mcpTools),
    webhooks: child(r.webhooks),
    documents: child(r.documents),
    documentExposures: child(r.exposures),
    apiKeys: byAgent((ids) => r.apiKeys.listByAgents(ids)),
    runs: new DataLoader<string, ActivityEntry | null>(async (runIds) => {
      const found = new Map((await r.activity.findRuns(runIds)).map((e) => [e.runId, e]));
      return runIds.map((id) => found.get(id) ?? null);
    }),
    // Only when `body` is asked for, and only its beginning: a page of 200 reads at most 12.5 MiB.
    deliveryBodies: new DataLoader<string, string>(async (ids) => {
      const heads = await r.deliveries.bodyHeads(ids, DELIVERY_BODY_SHOWN_BYTES);
      return ids.map((id) => heads.get(id)?.toString('utf8') ?? '');
    }),
  };
}

export type { Agent };
