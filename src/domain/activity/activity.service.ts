import { NotFound } from '../errors.js';
import { canNameEntity, printableParam } from '../ids.js';
import type { ActivitySink } from './activity-log.js';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { utcDay } from '../clock.js';
import type { DailyUsage } from '../admission/admission.entities.js';
import { SURFACES } from '../core/surface.entities.js';
import type { ActivityEntry } from './activity.entities.js';
import type { SpanRecord } from '../tracing/span.types.js';

/** A run's spans, from the activity entry of the call that ran it. */
export interface RunTrace {
  runId: string;
  entryId: string;
  agentId: string;
  traceId: string | null;
  spans: SpanRecord[];
  spansDropped: number;
}
import { loadAgent, readableAgentIds, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { ChargeSink } from '../admission/admission.ports.js';
import type { Store } from '../ports.js';
import type { SurfaceUsage } from './activity.ports.js';
import { parse } from '../validation.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

/** The largest activity page (`first`); the GraphQL cost limit counts a page at this size when it cannot see it. */
export const MAX_ACTIVITY_PAGE = 200;
/** The longest usage window (`days`), one row per day. */
export const MAX_USAGE_DAYS = 366;

const pageMessage = `must be between 1 and ${MAX_ACTIVITY_PAGE}`;
const statusMessage = "must be a status code (such as 429), a class of them (2xx, 3xx, 4xx or 5xx) or 'error'";
/** A status filter: one code, a class of codes (`4xx`), or `error` (entries with an error, whatever their status). */
const statusFilter = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?:[1-5][0-9][0-9]|[1-5]xx|error)$/, statusMessage)
  .transform((v): StatusFilter => {
    if (v === 'error') return 'error';
    if (v.endsWith('xx')) return { min: Number(v[0]) * 100, max: Number(v[0]) * 100 + 99 };
    return { min: Number(v), max: Number(v) };
  });
const instant = z.date().refine((d) => !Number.isNaN(d.getTime()), 'must be a valid date-time');
const listInput = z
  .object({
    first: z.number().int().min(1, pageMessage).max(MAX_ACTIVITY_PAGE, pageMessage),
    after: z.string().max(200).optional(),
    surface: z.enum(SURFACES).optional(),
    status: statusFilter.optional(),
    entry: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
    since: instant.optional(),
    until: instant.optional(),
    includeProtocol: z.boolean().optional(),
    foldDeliveryRuns: z.boolean().optional(),
  })
  .refine((v) => !v.since || !v.until || v.since < v.until, { message: 'must be later than since', path: ['until'] });

type StatusFilter = { min: number; max: number } | 'error';

/** Filters of an activity page, as GraphQL passes them (validated by the service). */
export interface ActivityListInput {
  first: number;
  after?: string;
  surface?: string;
  status?: string;
  entry?: string;
  since?: Date;
  until?: Date;
  /** Whether the entries carry their headers, bodies and logs (default true); false reads none of them. */
  withBodies?: boolean;
  /** Whether protocol traffic is listed too (default false). */
  includeProtocol?: boolean;
  /** Whether a webhook delivery's runs are left out of the list when their receipt is on it (default false). */
  foldDeliveryRuns?: boolean;
  /** Whether each webhook receipt comes with its delivery's latest run (`deliveryRun`), and that run with its bodies. */
  deliveryRuns?: { withBodies: boolean };
}

/** An entry of a page: a webhook receipt with its delivery's latest run, when asked (null while none has ended). */
export type ListedEntry = ActivityEntry & { deliveryRun?: ActivityEntry | null };

const usageDays = z.number().int().min(1).max(MAX_USAGE_DAYS);
const entryId = z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export interface ActivityPage {
  nodes: ListedEntry[];
  endCursor: string | null;
  hasNextPage: boolean;
}

/** Reading an agent's activity log and credit usage. */
export class ActivityService {
  /**
   * @param charges batched charges, stored before usage is read so a finished run is counted.
   * @param entries the batched activity log, stored before a page is read so that a request this
   * instance just answered is listed (a person calls an endpoint, then looks).
   */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly charges?: Pick<ChargeSink, 'flush'>,
    private readonly entries?: Pick<ActivitySink, 'flush'>,
  ) {}

  /** A page of the agent's activity, newest first. Whoever may read the agent. */
  async list(p: Principal, agentId: string, input: ActivityListInput): Promise<ActivityPage> {
    const v = parse(listInput, input);
    await loadAgent(this.store.repos, p, agentId, 'read');
    await this.entries?.flush();
    const rows = await this.store.repos.activity.list(agentId, {
      first: v.first + 1,
      after: v.after ? decodeCursor(v.after) : undefined,
      surface: v.surface,
      status: v.status,
      entry: v.entry,
      since: v.since,
      until: v.until,
      withBodies: input.withBodies ?? true,
      includeProtocol: v.includeProtocol ?? false,
      foldDeliveryRuns: v.foldDeliveryRuns ?? false,
    });
    const nodes: ListedEntry[] = rows.slice(0, v.first);
    if (input.deliveryRuns) await this.withDeliveryRuns(agentId, nodes, input.deliveryRuns.withBodies);
    return {
      nodes,
      hasNextPage: rows.length > v.first,
      endCursor: nodes.length ? encodeCursor(nodes[nodes.length - 1]!) : null,
    };
  }

  /**
   * One entry of the agent's log with its bodies; null when the agent has none with that id. A
   * webhook receipt comes with its delivery's latest run (`deliveryRun`) when `deliveryRun` is asked.
   */
  async entry(p: Principal, agentId: string, id: string, deliveryRun = false): Promise<ListedEntry | null> {
    const v = parse(entryId, id, 'id');
    await loadAgent(this.store.repos, p, agentId, 'read');
    await this.entries?.flush();
    const found: ListedEntry | null = await this.store.repos.activity.find(agentId, v);
    if (found && deliveryRun) await this.withDeliveryRuns(agentId, [found], true);
    return found;
  }

  /**
   * Sets `deliveryRun` on each webhook receipt among `nodes`: its delivery's latest run entry, or
   * null while none has ended (the delivery is queued or running). One read for the page.
   */
  private async withDeliveryRuns(agentId: string, nodes: ListedEntry[], withBodies: boolean): Promise<void> {
    const receipts = nodes.filter((n) => n.kind === 'request' && n.deliveryId !== null);
    if (!receipts.length) return;
    const ids = [...new Set(receipts.map((n) => n.deliveryId!))];
    const runs = await this.store.repos.activity.latestDeliveryRuns(agentId, ids, withBodies);
    const byDelivery = new Map(runs.map((r) => [r.deliveryId, r]));
    for (const n of receipts) n.deliveryRun = byDelivery.get(n.deliveryId) ?? null;
  }

  /** The run entries (kind `run`) with these run ids, of agents the principal may read (others are left out), in one read. */
  async runEntries(p: Principal, runIds: readonly string[]): Promise<ActivityEntry[]> {
    if (!runIds.length) return [];
    const entries = await this.store.repos.activity.findRuns(runIds);
    const readable = await readableAgentIds(
      this.store.repos,
      p,
      entries.map((e) => e.agentId),
    );
    return entries.filter((e) => readable.has(e.agentId));
  }

  /**
   * A run's trace as its activity entry keeps it (the call that ran it: a request's entry, or the
   * run's own for a delivery or a message): null when no entry of an agent the principal may read
   * names the run, or the entry kept no spans (older entries): refused as not found either way, as
   * another workspace's run must be.
   */
  async trace(p: Principal, runId: string): Promise<RunTrace> {
    if (typeof runId !== 'string' || runId.length > 100 || !canNameEntity(runId))
      throw new NotFound('Run', printableParam(String(runId).slice(0, 100)));
    const entries = (await this.store.repos.activity.findByRunId(runId)).filter((e) => e.spans?.length);
    const readable = await readableAgentIds(
      this.store.repos,
      p,
      entries.map((e) => e.agentId),
    );
    const entry = entries.find((e) => readable.has(e.agentId));
    if (!entry) throw new NotFound('Run', runId);
    return {
      runId,
      entryId: entry.id,
      agentId: entry.agentId,
      traceId: entry.traceId ?? null,
      spans: entry.spans ?? [],
      spansDropped: entry.spansDropped ?? 0,
    };
  }

  /**
   * Runs and their credits per UTC day and surface over the last `days` days, newest day first,
   * from the activity log: a surface whose activity logging is off, or days past the workspace's
   * retention, have no entries to count.
   */
  async usageBySurface(p: Principal, agentId: string, days: number): Promise<SurfaceUsage[]> {
    const n = parse(usageDays, days, 'days');
    await loadAgent(this.store.repos, p, agentId, 'read');
    await this.entries?.flush();
    const now = this.clock.now();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (n - 1)));
    return this.store.repos.activity.runsBySurface(agentId, from);
  }

  /** Credits per UTC day over the last `days` days, newest first. */
  async usage(p: Principal, agentId: string, days: number): Promise<DailyUsage[]> {
    const n = parse(usageDays, days, 'days');
    await loadAgent(this.store.repos, p, agentId, 'read');
    const from = new Date(this.clock.now().getTime() - (n - 1) * 86_400_000);
    await this.charges?.flush();
    return this.store.repos.usage.listByAgent(agentId, utcDay(from));
  }

  /** Credits per UTC day over the workspace's agents, newest first. Members only. */
  async workspaceUsage(p: Principal, days: number): Promise<{ day: string; credits: number; runs: number }[]> {
    requireMember(p);
    const n = parse(usageDays, days, 'days');
    const from = new Date(this.clock.now().getTime() - (n - 1) * 86_400_000);
    await this.charges?.flush();
    return this.store.repos.usage.listByWorkspace(p.workspaceId, utcDay(from));
  }
}
