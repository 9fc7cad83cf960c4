import { utcDay, type Clock } from '../clock.js';
import { Forbidden, NotFound } from '../errors.js';
import type { ActivityEntry } from '../activity/activity.entities.js';
import type { Agent } from '../core/agent.entities.js';
import type { Message } from '../messages/message.entities.js';
import type { ModelConfig } from '../models/model.entities.js';
import { SURFACES } from '../core/surface.entities.js';
import type { Workspace } from '../workspace/workspace.entities.js';
import { workspaceReadMissing } from '../keys/key-refusals.js';
import type { Principal } from '../principal.js';
import type { ChargeSink } from '../admission/admission.ports.js';
import type { Repositories, Store } from '../ports.js';
import { DEFAULT_SETTINGS, loginSettingsOf } from '../workspace/settings.js';
import {
  type ActivityItem,
  type ActivityPage,
  type AgentDetail,
  type AgentList,
  type AgentListItem,
  type AgentOverview,
  type MessageItem,
  type MessagesPage,
  type ScheduleList,
  type UsageReport,
  type WorkspaceOverview,
} from './workspace-api.schemas.js';
import { scheduleItem } from './workspace-api-schedules.js';
import { activityQuery, agentsQuery, messagesQuery, noQuery, parseQuery, usageQuery } from './workspace-api.query.js';

type WorkspaceKey = Extract<Principal, { kind: 'workspaceKey' }>;

const DAY_MS = 86_400_000;

/** Only a workspace key with the WORKSPACE_READ scope reads through the Workspace API. */
function requireWorkspaceRead(p: Principal): WorkspaceKey {
  if (p.kind !== 'workspaceKey') throw new Forbidden('The Workspace API takes a workspace key (wk_)');
  if (!p.scopes.includes('WORKSPACE_READ')) throw workspaceReadMissing();
  return p;
}

/**
 * The agent a per-agent endpoint reads: another workspace's agent does not exist for the caller
 * (404, so ids of other workspaces are not confirmed); a private agent is listed but its data is
 * refused (403, SPEC rule 1).
 */
async function readableAgent(repos: Repositories, p: WorkspaceKey, agentId: string): Promise<Agent> {
  const agent = await repos.agents.get(agentId);
  if (!agent || agent.workspaceId !== p.workspaceId) throw new NotFound('Agent', agentId);
  if (agent.visibility === 'PRIVATE')
    throw new Forbidden(`Agent '${agentId}' is private; the Workspace API lists it but does not show its data`);
  return agent;
}

const iso = (d: Date) => d.toISOString();
const dateOf = (s: string | undefined) => (s === undefined ? undefined : new Date(s));
const windowOf = (v: { page: number; pageSize: number }) => ({ limit: v.pageSize, offset: (v.page - 1) * v.pageSize });

function messageItem(m: Message): MessageItem {
  return {
    id: m.id,
    direction: m.direction,
    channel: m.channel,
    from: m.from,
    to: m.to,
    subject: m.subject,
    body: m.body,
    sentAt: iso(m.sentAt),
    threadId: m.threadId,
    status: m.status,
  };
}

function activityItem(e: ActivityEntry): ActivityItem {
  return {
    id: e.id,
    kind: e.kind,
    surface: e.surface,
    entry: e.entry,
    method: e.method,
    path: e.path,
    status: e.status,
    requestHeaders: e.requestHeaders,
    requestBody: e.requestBody ?? null,
    response: e.response ?? null,
    truncated: e.truncated,
    credits: e.credits,
    durationMs: e.durationMs,
    keyId: e.keyId,
    oauthClientId: e.oauthClientId,
    grantedBy: e.grantedBy,
    runId: e.runId,
    requestId: e.requestId,
    error: e.error,
    protocol: e.protocol,
    deliveryId: e.deliveryId,
    createdAt: iso(e.createdAt),
  };
}

function agentItem(a: Agent): Omit<AgentListItem, 'overview'> {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    visibility: a.visibility,
    teamId: a.teamId,
    createdAt: iso(a.createdAt),
  };
}

/** Models by name and price only: base URLs may embed credentials and key secrets are never shown. */
function modelItem(m: ModelConfig): WorkspaceOverview['models'][number] {
  return {
    name: m.name,
    provider: m.provider,
    model: m.model,
    isDefault: m.isDefault,
    inputPricePerMillion: m.inputPricePerMillion,
    outputPricePerMillion: m.outputPricePerMillion,
  };
}

/** The read-only Workspace API (v1.0.0): workspace configuration, agents, messages, activity, usage. */
export class WorkspaceApiService {
  /** @param charges batched charges, stored before usage is read so a finished run is counted. */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly charges?: Pick<ChargeSink, 'flush'>,
  ) {}

  /** Workspace configuration groups and configured models. Workspace keys with WORKSPACE_READ; else Forbidden. Any query parameter is Invalid. */
  async overview(p: Principal, query: unknown): Promise<WorkspaceOverview> {
    const key = requireWorkspaceRead(p);
    parseQuery(noQuery, query);
    const { repos } = this.store;
    const [ws, models] = await Promise.all([
      repos.workspaces.get(key.workspaceId),
      repos.models.listByWorkspace(key.workspaceId),
    ]);
    if (!ws) throw new NotFound('Workspace', key.workspaceId);
    return workspaceOverview(ws, models);
  }

  /**
   * Every agent of the workspace, private ones included, oldest first; with includeOverview=true
   * each carries its overview, read in a fixed number of queries. Throws Forbidden, Invalid.
   */
  async listAgents(p: Principal, query: unknown): Promise<AgentList> {
    const key = requireWorkspaceRead(p);
    const v = parseQuery(agentsQuery, query);
    const agents = await this.store.repos.agents.listByWorkspace(key.workspaceId);
    if (v.includeOverview !== 'true') return { agents: agents.map(agentItem), totalCount: agents.length };
    const overviews = await this.overviews(agents);
    return {
      agents: agents.map((a) => ({ ...agentItem(a), overview: overviews.get(a.id)! })),
      totalCount: agents.length,
    };
  }

  /** One agent with its overview. Throws Forbidden (no scope, private agent), NotFound, Invalid (any query parameter). */
  async agent(p: Principal, agentId: string, query: unknown): Promise<AgentDetail> {
    const agent = await readableAgent(this.store.repos, requireWorkspaceRead(p), agentId);
    parseQuery(noQuery, query);
    const overviews = await this.overviews([agent]);
    return { ...agentItem(agent), overview: overviews.get(agent.id)! };
  }

  /** A page of the agent's email/SMS messages, newest first, with the filtered total. Throws Forbidden, NotFound, Invalid. */
  async messages(p: Principal, agentId: string, query: unknown): Promise<MessagesPage> {
    const agent = await readableAgent(this.store.repos, requireWorkspaceRead(p), agentId);
    const v = parseQuery(messagesQuery, query);
    const filter = { direction: v.direction, channel: v.channel, since: dateOf(v.since), until: dateOf(v.until) };
    const r = await this.store.repos.workspaceRead.listMessages(agent.id, filter, windowOf(v));
    return { messages: r.items.map(messageItem), totalCount: r.totalCount, page: v.page, pageSize: v.pageSize };
  }

  /** A page of the agent's activity log, newest first, with the filtered total. Throws Forbidden, NotFound, Invalid. */
  async activity(p: Principal, agentId: string, query: unknown): Promise<ActivityPage> {
    const agent = await readableAgent(this.store.repos, requireWorkspaceRead(p), agentId);
    const v = parseQuery(activityQuery, query);
    const filter = {
      surface: v.surface,
      kind: v.kind,
      since: dateOf(v.since),
      until: dateOf(v.until),
      includeProtocol: v.includeProtocol === 'true',
    };
    const r = await this.store.repos.workspaceRead.listActivity(agent.id, filter, windowOf(v));
    return { entries: r.items.map(activityItem), totalCount: r.totalCount, page: v.page, pageSize: v.pageSize };
  }

  /** Credits per UTC day over the last `days` days (today included), every day listed. Throws Forbidden, NotFound, Invalid. */
  async usage(p: Principal, agentId: string, query: unknown): Promise<UsageReport> {
    const agent = await readableAgent(this.store.repos, requireWorkspaceRead(p), agentId);
    const v = parseQuery(usageQuery, query);
    const today = Date.parse(utcDay(this.clock.now()));
    const from = utcDay(new Date(today - (v.days - 1) * DAY_MS));
    await this.charges?.flush();
    const used = new Map((await this.store.repos.usage.listByAgent(agent.id, from)).map((u) => [u.day, u]));
    const days = Array.from({ length: v.days }, (_, i) => {
      const day = utcDay(new Date(today - i * DAY_MS));
      const u = used.get(day);
      return { day, credits: u?.credits ?? 0, runs: u?.runs ?? 0 };
    });
    return {
      agentId: agent.id,
      from,
      to: days[0]!.day,
      days,
      totalCredits: days.reduce((s, d) => s + d.credits, 0),
      totalRuns: days.reduce((s, d) => s + d.runs, 0),
    };
  }

  /** The agent's schedules by name, each with its next five fires. Throws Forbidden, NotFound, Invalid (any query parameter). */
  async schedules(p: Principal, agentId: string, query: unknown): Promise<ScheduleList> {
    const agent = await readableAgent(this.store.repos, requireWorkspaceRead(p), agentId);
    parseQuery(noQuery, query);
    const now = this.clock.now();
    const list = await this.store.repos.schedules.listByAgents([agent.id]);
    const schedules = [...list].sort((a, b) => (a.name < b.name ? -1 : 1)).map((s) => scheduleItem(s, now));
    return { agentId: agent.id, schedules };
  }

  // Three grouped queries, run together, whatever the number of agents.
  private async overviews(agents: Agent[]): Promise<Map<string, AgentOverview>> {
    const ids = agents.map((a) => a.id);
    const { workspaceRead } = this.store.repos;
    await this.charges?.flush();
    const [counts, usage, last] = await Promise.all([
      workspaceRead.entryCounts(ids),
      workspaceRead.usageOnDay(ids, utcDay(this.clock.now())),
      workspaceRead.lastActivity(ids),
    ]);
    const countsBy = new Map(counts.map((c) => [c.agentId, c]));
    const usageBy = new Map(usage.map((u) => [u.agentId, u]));
    const lastBy = new Map(last.map((l) => [l.agentId, l.at]));
    return new Map(
      agents.map((a): [string, AgentOverview] => {
        const c = countsBy.get(a.id);
        const at = lastBy.get(a.id);
        return [
          a.id,
          {
            surfaces: SURFACES.map((surface) => ({
              surface,
              enabled: a.surfaces[surface].enabled,
              activityLogging: a.surfaces[surface].activityLogging,
            })),
            entries: {
              httpEndpoints: c?.httpEndpoints ?? 0,
              mcpTools: c?.mcpTools ?? 0,
              webhooks: c?.webhooks ?? 0,
              exposedDocuments: c?.exposedDocuments ?? 0,
            },
            creditsToday: usageBy.get(a.id)?.credits ?? 0,
            runsToday: usageBy.get(a.id)?.runs ?? 0,
            limits: { dailyCreditLimit: a.dailyCreditLimit, maxConcurrentRequests: a.maxConcurrentRequests },
            lastActivityAt: at ? iso(at) : null,
          },
        ];
      }),
    );
  }
}

function workspaceOverview(ws: Workspace, models: ModelConfig[]): WorkspaceOverview {
  // Settings written before a group existed lack it; the defaults fill the gap.
  const s = { ...DEFAULT_SETTINGS, ...ws.settings };
  return {
    workspace: {
      id: ws.id,
      name: ws.name,
      createdAt: iso(ws.createdAt),
      dailyCreditLimit: ws.dailyCreditLimit,
      activityRetentionDays: s.activityRetentionDays,
    },
    featureFlags: s.featureFlags,
    creditDefaults: { ...DEFAULT_SETTINGS.creditDefaults, ...s.creditDefaults },
    accountRules: s.accountRules,
    dataProcessing: { ...DEFAULT_SETTINGS.dataProcessing, ...s.dataProcessing },
    loginSettings: loginSettingsOf(s),
    valueCapture: s.valueCapture,
    tags: s.tags,
    models: models.map(modelItem),
  };
}
