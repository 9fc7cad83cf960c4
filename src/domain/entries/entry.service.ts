import type { Clock } from '../clock.js';
import { NotFound } from '../errors.js';
import { newId } from '../ids.js';
import type { HttpEndpoint, McpTool, Webhook } from './entry.entities.js';
import type { Channel } from './channel.entities.js';
import { allowedSendersOf, channelAddress, channelInput, channelPatch } from './channel.schemas.js';
import { loadAgent, readableAgentIds } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import type { AgentChildRepo } from '../repo.ports.js';
import { parse, stripUndefined } from '../validation.js';
import type { ModelReferences } from '../models/model-references.js';
import type { ScriptCheck } from './script-check.js';
import { checkPathFree, checkSigningSecret } from './entry.checks.js';
import {
  checkModelOverride,
  httpEndpointInput,
  httpEndpointPatch,
  mcpToolInput,
  mcpToolPatch,
  webhookInput,
  webhookPatch,
} from './entry.schemas.js';

/** The entries of each kind, by the name of their repository. */
export interface EntriesByKind {
  httpEndpoints: HttpEndpoint;
  mcpTools: McpTool;
  webhooks: Webhook;
  channels: Channel;
}
export type EntryKind = keyof EntriesByKind;
type Entry = EntriesByKind[EntryKind];
const LABEL: Record<EntryKind, string> = {
  httpEndpoints: 'HTTP endpoint',
  mcpTools: 'MCP tool',
  webhooks: 'Webhook',
  channels: 'Channel',
};

/**
 * Entries of the HTTP API, MCP, webhook, email and SMS surfaces. Members, or the agent itself when its
 * Endpoint Management capability is on (policy action `manageSurfaces`). A script handler is
 * compiled before anything is saved: a syntax error is Invalid with its line and column.
 */
export class EntryService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly scripts: ScriptCheck,
    private readonly models: ModelReferences,
  ) {}

  /** Adds an HTTP API endpoint; paths are unique per agent (also by shape: `a/{x}` and `a/{y}` clash). */
  async addHttpEndpoint(p: Principal, agentId: string, input: unknown): Promise<HttpEndpoint> {
    const v = parse(httpEndpointInput, input, 'input');
    checkModelOverride(v.handler, v.modelOverride ?? null);
    await this.scripts.check(v.handler, p.workspaceId);
    return this.add(p, agentId, 'httpEndpoints', async (r, now) => {
      await checkPathFree(r, agentId, v.path, null);
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      return r.httpEndpoints.insert({
        id: newId('ep'),
        agentId,
        ...v,
        modelOverride: v.modelOverride ?? null,
        inputSchema: v.inputSchema ?? null,
        outputSchema: v.outputSchema ?? null,
        createdAt: now,
        updatedAt: now,
      });
    });
  }

  async updateHttpEndpoint(p: Principal, id: string, input: unknown): Promise<HttpEndpoint> {
    const v = stripUndefined(parse(httpEndpointPatch, input, 'input'));
    await this.scripts.check(v.handler, p.workspaceId);
    return this.update(p, id, 'httpEndpoints', async (r, current) => {
      const next = { ...current, ...v } as HttpEndpoint;
      checkModelOverride(next.handler, next.modelOverride);
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      if (v.path !== undefined) await checkPathFree(r, current.agentId, next.path, current.id);
      return next;
    });
  }

  removeHttpEndpoint(p: Principal, id: string): Promise<boolean> {
    return this.remove(p, id, 'httpEndpoints');
  }

  /** Adds an MCP tool; names are unique per agent. */
  async addMcpTool(p: Principal, agentId: string, input: unknown): Promise<McpTool> {
    const v = parse(mcpToolInput, input, 'input');
    checkModelOverride(v.handler, v.modelOverride ?? null);
    await this.scripts.check(v.handler, p.workspaceId);
    return this.add(p, agentId, 'mcpTools', async (r, now) => {
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      return r.mcpTools.insert({
        id: newId('tool'),
        agentId,
        ...v,
        modelOverride: v.modelOverride ?? null,
        inputSchema: v.inputSchema ?? null,
        outputSchema: v.outputSchema ?? null,
        createdAt: now,
        updatedAt: now,
      });
    });
  }

  async updateMcpTool(p: Principal, id: string, input: unknown): Promise<McpTool> {
    const v = stripUndefined(parse(mcpToolPatch, input, 'input'));
    await this.scripts.check(v.handler, p.workspaceId);
    return this.update(p, id, 'mcpTools', async (r, current) => {
      const next = { ...current, ...v } as McpTool;
      checkModelOverride(next.handler, next.modelOverride);
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      return next;
    });
  }

  removeMcpTool(p: Principal, id: string): Promise<boolean> {
    return this.remove(p, id, 'mcpTools');
  }

  /** Adds a webhook integration; a signature check must name a WEBHOOK_SIGNING_SECRET of the workspace. */
  async addWebhook(p: Principal, agentId: string, input: unknown): Promise<Webhook> {
    const v = parse(webhookInput, input, 'input');
    checkModelOverride(v.handler, v.modelOverride ?? null);
    await this.scripts.check(v.handler, p.workspaceId);
    return this.add(p, agentId, 'webhooks', async (r, now) => {
      await checkSigningSecret(r, p.workspaceId, v.signature ?? null);
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      return r.webhooks.insert({
        id: newId('wh'),
        agentId,
        integration: v.integration,
        handler: v.handler,
        modelOverride: v.modelOverride ?? null,
        signature: v.signature ?? null,
        maxBodyBytes: v.maxBodyBytes ?? null,
        createdAt: now,
        updatedAt: now,
      });
    });
  }

  async updateWebhook(p: Principal, id: string, input: unknown): Promise<Webhook> {
    const v = stripUndefined(parse(webhookPatch, input, 'input'));
    await this.scripts.check(v.handler, p.workspaceId);
    return this.update(p, id, 'webhooks', async (r, current) => {
      const next = { ...current, ...v } as Webhook;
      checkModelOverride(next.handler, next.modelOverride);
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      if (v.signature !== undefined) await checkSigningSecret(r, p.workspaceId, next.signature);
      return next;
    });
  }

  removeWebhook(p: Principal, id: string): Promise<boolean> {
    return this.remove(p, id, 'webhooks');
  }

  /**
   * Adds an email address or SMS number to the agent (docs/decisions.md §30). An address routes to
   * one agent: it is unique per kind across the service (Conflict).
   */
  async addChannel(p: Principal, agentId: string, input: unknown): Promise<Channel> {
    const v = parse(channelInput, input, 'input');
    const address = channelAddress(v.kind, v.address);
    const allowedSenders = allowedSendersOf(v.kind, v.allowedSenders ?? []);
    checkModelOverride(v.handler, v.modelOverride ?? null);
    await this.scripts.check(v.handler, p.workspaceId);
    return this.add(p, agentId, 'channels', async (r, now) => {
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      const channel = {
        id: newId('ch'),
        agentId,
        kind: v.kind,
        address,
        handler: v.handler,
        modelOverride: v.modelOverride ?? null,
      };
      return r.channels.insert({
        ...channel,
        allowedSenders,
        autoReply: v.autoReply ?? true,
        createdAt: now,
        updatedAt: now,
      });
    });
  }

  /** Changes a channel; its kind stays what it is (remove it and add another). */
  async updateChannel(p: Principal, id: string, input: unknown): Promise<Channel> {
    const v = stripUndefined(parse(channelPatch, input, 'input'));
    await this.scripts.check(v.handler, p.workspaceId);
    return this.update(p, id, 'channels', async (r, current) => {
      const next: Channel = { ...current, ...v, allowedSenders: current.allowedSenders };
      if (v.address !== undefined) next.address = channelAddress(current.kind, v.address);
      if (v.allowedSenders !== undefined) next.allowedSenders = allowedSendersOf(current.kind, v.allowedSenders ?? []);
      checkModelOverride(next.handler, next.modelOverride);
      await this.models.check(r, p.workspaceId, v.modelOverride, 'input.modelOverride');
      return next;
    });
  }

  /** Removes a channel; its stored messages stay (their channel reads as null). */
  removeChannel(p: Principal, id: string): Promise<boolean> {
    return this.remove(p, id, 'channels');
  }

  /** The entries of one kind of those agents the principal may read (others are left out), in one read. */
  async listForAgents<K extends EntryKind>(
    p: Principal,
    kind: K,
    agentIds: readonly string[],
  ): Promise<EntriesByKind[K][]> {
    const readable = await readableAgentIds(this.store.repos, p, agentIds);
    if (!readable.size) return [];
    const repo = this.store.repos[kind] as unknown as AgentChildRepo<EntriesByKind[K]>;
    return repo.listByAgents([...readable]);
  }

  private add<T extends Entry>(
    p: Principal,
    agentId: string,
    _kind: EntryKind,
    insert: (r: Repositories, now: Date) => Promise<T>,
  ): Promise<T> {
    return this.store.transaction(async (r) => {
      await loadAgent(r, p, agentId, 'manageSurfaces');
      return insert(r, this.clock.now());
    });
  }

  private update<T extends Entry>(
    p: Principal,
    id: string,
    kind: EntryKind,
    change: (r: Repositories, current: T) => Promise<T>,
  ): Promise<T> {
    return this.store.transaction(async (r) => {
      const repo = r[kind] as unknown as AgentChildRepo<T>;
      const current = await this.load(r, repo, p, id, kind);
      const next = await change(r, current);
      return repo.update({
        ...next,
        id: current.id,
        agentId: current.agentId,
        createdAt: current.createdAt,
        updatedAt: this.clock.now(),
      });
    });
  }

  private remove(p: Principal, id: string, kind: EntryKind): Promise<boolean> {
    return this.store.transaction(async (r) => {
      const repo = r[kind] as unknown as AgentChildRepo<Entry>;
      await this.load(r, repo, p, id, kind);
      return repo.delete(id);
    });
  }

  private async load<T extends Entry>(
    r: Repositories,
    repo: AgentChildRepo<T>,
    p: Principal,
    id: string,
    kind: EntryKind,
  ): Promise<T> {
    const entry = await repo.get(id);
    if (!entry) throw new NotFound(LABEL[kind], id);
    try {
      await loadAgent(r, p, entry.agentId, 'manageSurfaces');
    } catch (err) {
      // An entry of an agent the principal cannot see does not exist for it.
      if (err instanceof NotFound) throw new NotFound(LABEL[kind], id);
      throw err;
    }
    return entry;
  }
}
