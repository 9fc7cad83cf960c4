import type { Repositories, Store } from '../../domain/ports.js';
import type { AgentChildRepo } from '../../domain/repo.ports.js';

/**
 * What changed, as far as the cache cares: a row of one of the cached tables. The database sends
 * the same description for every committed write (trigger + NOTIFY, migration 0xx), so another
 * instance's changes reach this one too.
 */
export interface Change {
  table:
    | 'agents'
    | 'api_keys'
    | 'http_endpoints'
    | 'mcp_tools'
    | 'webhooks'
    | 'teams'
    | 'workspaces'
    | 'document_exposures'
    | 'event_subscriptions';
  id: string;
  /** The agent the row belongs to (child rows), when known. */
  agentId?: string | null;
}

/** The entries a change makes stale, as key prefixes and keys. */
function staleKeys(c: Change): { keys: string[]; match?: (key: string, value: unknown) => boolean } {
  switch (c.table) {
    case 'agents':
      // An agent's row holds its surfaces, guardrails and limits; a deleted agent takes its keys,
      // entries and exposures with it.
      return {
        keys: [`agent:${c.id}`, `http_endpoints:${c.id}`, `mcp_tools:${c.id}`, `webhooks:${c.id}`],
        match: (k, v) => belongsTo(k, v, c.id),
      };
    case 'api_keys':
      return { keys: [], match: (k, v) => k.startsWith('key:') && (v as { id?: string } | null)?.id === c.id };
    case 'http_endpoints':
    case 'mcp_tools':
    case 'webhooks':
      return c.agentId
        ? { keys: [`${c.table}:${c.agentId}`] }
        : { keys: [], match: (k) => k.startsWith(`${c.table}:`) };
    case 'document_exposures':
      return c.agentId
        ? { keys: [], match: (k) => k.startsWith(`exposure:${c.agentId}:`) }
        : { keys: [], match: (k) => k.startsWith('exposure:') };
    case 'teams':
      return { keys: [`team:${c.id}`] };
    case 'workspaces':
      return { keys: [`workspace:${c.id}`] };
    case 'event_subscriptions':
      // The notification names the subscription, not its workspace: every workspace's list goes (changes are rare).
      return { keys: [], match: (k) => k.startsWith('event_subs:') };
  }
}

function belongsTo(key: string, value: unknown, agentId: string): boolean {
  if (key.startsWith('key:')) return (value as { agentId?: string | null } | null)?.agentId === agentId;
  return key.startsWith(`exposure:${agentId}:`);
}

/**
 * A bounded map of read results with invalidation that never lets a stale read back in: each read
 * notes the generation it started in, and its result is kept only when no invalidation of that key
 * (or of everything) happened meanwhile.
 */
export class ReadCache {
  private readonly entries = new Map<string, unknown>();
  /** Per key: the generation of its last invalidation. */
  private readonly invalidatedAt = new Map<string, number>();
  private generation = 0;
  private clearedAt = 0;
  /** Off until the change listener holds (see setEnabled). */
  private enabled = false;
  hits = 0;
  misses = 0;

  constructor(private readonly maxEntries = 10_000) {}

  /** The cached value of `key`, or `load()`'s result, kept unless the key was invalidated meanwhile. */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.enabled && this.entries.has(key)) {
      this.hits++;
      const value = this.entries.get(key) as T;
      // Most recently used last: the first key is the one to evict.
      this.entries.delete(key);
      this.entries.set(key, value);
      return value;
    }
    this.misses++;
    const started = this.generation;
    const value = await load();
    if (this.enabled && this.clearedAt <= started && (this.invalidatedAt.get(key) ?? -1) <= started) {
      this.entries.set(key, value);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /** Drops what a change makes stale; reads that started before it are not kept either. */
  invalidate(change: Change): void {
    const gen = ++this.generation;
    const { keys, match } = staleKeys(change);
    for (const k of keys) {
      this.entries.delete(k);
      this.invalidatedAt.set(k, gen);
    }
    if (match) {
      for (const [k, v] of this.entries) {
        if (match(k, v)) {
          this.entries.delete(k);
          this.invalidatedAt.set(k, gen);
        }
      }
      // Keys not cached now may be loading: a pattern invalidation drops those reads too.
      this.clearedAt = gen;
    }
    if (this.invalidatedAt.size > this.maxEntries * 2) {
      this.invalidatedAt.clear();
      this.clearedAt = gen;
    }
  }

  /** Drops everything (and any read in flight). */
  clear(): void {
    this.entries.clear();
    this.invalidatedAt.clear();
    this.clearedAt = ++this.generation;
  }

  /**
   * Off while changes may be missed (the listener of another instance's changes is down): every
   * read goes to the database. Turned on again with an empty cache.
   */
  setEnabled(on: boolean): void {
    if (on && !this.enabled) this.clear();
    this.enabled = on;
    if (!on) this.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * The store with the reads every surface request makes — agent, key, entries, team, workspace,
 * document exposure — answered from memory. Every write through the store drops what it makes
 * stale at once and again when its transaction commits; writes by other instances arrive through
 * `cache.invalidate` from the change listener. Reads inside a transaction always go to the
 * database.
 */
export function cachedStore(store: Store, cache: ReadCache): Store {
  const changed = (c: Change) => cache.invalidate(c);
  const repos = withCache(withInvalidation(store.repos, changed), cache);
  return {
    repos,
    ping: () => store.ping(),
    transaction: async (fn) => {
      const changes: Change[] = [];
      const result = await store.transaction((r) =>
        fn(
          withInvalidation(r, (c) => {
            changes.push(c);
            changed(c);
          }),
        ),
      );
      for (const c of changes) changed(c);
      return result;
    },
  };
}

/** Repositories whose writes to cached tables report what they changed. */
function withInvalidation(r: Repositories, changed: (c: Change) => void): Repositories {
  const child = <T extends { id: string; agentId: string }>(
    table: Change['table'],
    repo: AgentChildRepo<T>,
  ): AgentChildRepo<T> => ({
    ...repo,
    insert: async (e) => after(await repo.insert(e), () => changed({ table, id: e.id, agentId: e.agentId })),
    update: async (e) => after(await repo.update(e), () => changed({ table, id: e.id, agentId: e.agentId })),
    delete: async (id) => after(await repo.delete(id), () => changed({ table, id })),
  });
  const { agents, apiKeys, teams, workspaces, exposures, eventSubscriptions: subs } = r;
  const sub = (id: string) => changed({ table: 'event_subscriptions', id });
  return {
    ...r,
    eventSubscriptions: {
      ...subs,
      insert: async (e) => after(await subs.insert(e), () => sub(e.id)),
      update: async (e) => after(await subs.update(e), () => sub(e.id)),
      delete: async (id) => after(await subs.delete(id), () => sub(id)),
    },
    agents: {
      ...agents,
      insert: async (e) => after(await agents.insert(e), () => changed({ table: 'agents', id: e.id })),
      update: async (e) => after(await agents.update(e), () => changed({ table: 'agents', id: e.id })),
      delete: async (id) => after(await agents.delete(id), () => changed({ table: 'agents', id })),
    },
    apiKeys: {
      ...apiKeys,
      insert: async (e) => after(await apiKeys.insert(e), () => changed({ table: 'api_keys', id: e.id })),
      update: async (e) => after(await apiKeys.update(e), () => changed({ table: 'api_keys', id: e.id })),
      delete: async (id) => after(await apiKeys.delete(id), () => changed({ table: 'api_keys', id })),
      revoke: async (id, at) => after(await apiKeys.revoke(id, at), () => changed({ table: 'api_keys', id })),
      revokeByConsoleSession: async (sessionId, at, agentId) =>
        after(await apiKeys.revokeByConsoleSession(sessionId, at, agentId), (ids) =>
          ids.forEach((id) => changed({ table: 'api_keys', id })),
        ),
      revokeByTokenSessions: async (tokenId, at) =>
        after(await apiKeys.revokeByTokenSessions(tokenId, at), (ids) =>
          ids.forEach((id) => changed({ table: 'api_keys', id })),
        ),
      revokeByAccountSessions: async (accountId, workspaceId, at) =>
        after(await apiKeys.revokeByAccountSessions(accountId, workspaceId, at), (ids) =>
          ids.forEach((id) => changed({ table: 'api_keys', id })),
        ),
    },
    httpEndpoints: child('http_endpoints', r.httpEndpoints),
    mcpTools: child('mcp_tools', r.mcpTools),
    webhooks: child('webhooks', r.webhooks),
    exposures: { ...exposures, ...child('document_exposures', exposures) },
    teams: {
      ...teams,
      insert: async (e) => after(await teams.insert(e), () => changed({ table: 'teams', id: e.id })),
      update: async (e) => after(await teams.update(e), () => changed({ table: 'teams', id: e.id })),
      delete: async (id) => after(await teams.delete(id), () => changed({ table: 'teams', id })),
    },
    workspaces: {
      ...workspaces,
      insert: async (e) => after(await workspaces.insert(e), () => changed({ table: 'workspaces', id: e.id })),
      update: async (e) => after(await workspaces.update(e), () => changed({ table: 'workspaces', id: e.id })),
      delete: async (id) => after(await workspaces.delete(id), () => changed({ table: 'workspaces', id })),
    },
  };
}

function after<T>(value: T, then: (value: T) => void): T {
  then(value);
  return value;
}

/** Repositories whose hot reads come from the cache. */
function withCache(r: Repositories, cache: ReadCache): Repositories {
  const child = <T extends { id: string; agentId: string }>(
    table: string,
    repo: AgentChildRepo<T>,
  ): AgentChildRepo<T> => ({
    ...repo,
    // One agent's entries are what a surface request reads; lists of several agents are GraphQL's.
    listByAgents: (ids) =>
      ids.length === 1 ? cache.get(`${table}:${ids[0]}`, () => repo.listByAgents(ids)) : repo.listByAgents(ids),
  });
  const { agents, apiKeys, teams, workspaces, exposures, eventSubscriptions } = r;
  return {
    ...r,
    eventSubscriptions: {
      ...eventSubscriptions,
      listEnabled: (id) => cache.get(`event_subs:${id}`, () => eventSubscriptions.listEnabled(id)),
    },
    agents: { ...agents, get: (id) => cache.get(`agent:${id}`, () => agents.get(id)) },
    apiKeys: {
      ...apiKeys,
      findByHash: (hash) => cache.get(`key:${hash}`, () => apiKeys.findByHash(hash)),
      // A key's last use is written at most once per TOUCH_INTERVAL; the next read loads it again.
      touch: async (id, at) => after(await apiKeys.touch(id, at), () => cache.invalidate({ table: 'api_keys', id })),
    },
    httpEndpoints: child('http_endpoints', r.httpEndpoints),
    mcpTools: child('mcp_tools', r.mcpTools),
    webhooks: child('webhooks', r.webhooks),
    exposures: {
      ...exposures,
      find: (agentId, documentId) =>
        cache.get(`exposure:${agentId}:${documentId}`, () => exposures.find(agentId, documentId)),
    },
    teams: { ...teams, get: (id) => cache.get(`team:${id}`, () => teams.get(id)) },
    workspaces: { ...workspaces, get: (id) => cache.get(`workspace:${id}`, () => workspaces.get(id)) },
  };
}
