import type { ActivitySink } from './activity-log.js';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { utcDay } from '../clock.js';
import { SURFACES, type ActivityEntry, type DailyUsage } from '../entities.js';
import { loadAgent, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import type { ChargeSink, Store } from '../ports.js';
import { parse } from '../validation.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

/** The largest activity page (`first`); the GraphQL cost limit counts a page at this size when it cannot see it. */
export const MAX_ACTIVITY_PAGE = 200;
/** The longest usage window (`days`), one row per day. */
export const MAX_USAGE_DAYS = 366;

const pageMessage = `must be between 1 and ${MAX_ACTIVITY_PAGE}`;
const listInput = z.object({
  first: z.number().int().min(1, pageMessage).max(MAX_ACTIVITY_PAGE, pageMessage),
  after: z.string().max(200).optional(),
  surface: z.enum(SURFACES).optional(),
});

const usageDays = z.number().int().min(1).max(MAX_USAGE_DAYS);

export interface ActivityPage {
  nodes: ActivityEntry[];
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
    private readonly charges?: ChargeSink,
    private readonly entries?: Pick<ActivitySink, 'flush'>,
  ) {}

  /** A page of the agent's activity, newest first. Whoever may read the agent. */
  async list(p: Principal, agentId: string, input: { first: number; after?: string; surface?: string }): Promise<ActivityPage> {
    const v = parse(listInput, input);
    await loadAgent(this.store.repos, p, agentId, 'read');
    await this.entries?.flush();
    const rows = await this.store.repos.activity.list(agentId, {
      first: v.first + 1,
      after: v.after ? decodeCursor(v.after) : undefined,
      surface: v.surface,
    });
    const nodes = rows.slice(0, v.first);
    return { nodes, hasNextPage: rows.length > v.first, endCursor: nodes.length ? encodeCursor(nodes[nodes.length - 1]!) : null };
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
