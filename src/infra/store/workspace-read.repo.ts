import type { Knex } from 'knex';
import type { DailyUsage } from '../../domain/admission/admission.entities.js';
import type {
  ActivityFilter,
  AgentEntryCounts,
  MessageFilter,
  WorkspaceReadRepo,
} from '../../domain/workspace-api/workspace-api.ports.js';
import { q } from './pg-errors.js';
import * as rows from './rows/index.js';

type Conn = Knex | Knex.Transaction;

// Every list below is served by one btree index whose columns are
//   (agent_id, <equality filters…>, <timestamp>, id)
// (see migrations/20261122000000_initial.ts): the page is a backward range scan of that index
// (newest first, no sort) and the exact count is an index-only scan of the same range.

const NEWEST_FIRST = (column: string) => [
  { column, order: 'desc' as const },
  { column: 'id', order: 'desc' as const },
];

function messagesWhere(db: Conn, agentId: string, f: MessageFilter): Knex.QueryBuilder {
  const qb = db('messages').where('agent_id', agentId);
  if (f.direction) qb.andWhere('direction', f.direction);
  if (f.channel) qb.andWhere('channel', f.channel);
  if (f.since) qb.andWhere('sent_at', '>', f.since);
  if (f.until) qb.andWhere('sent_at', '<', f.until);
  return qb;
}

function activityWhere(db: Conn, agentId: string, f: ActivityFilter): Knex.QueryBuilder {
  const qb = db('activity_log').where('agent_id', agentId);
  // The protocol flag is in no index: a page skips protocol entries as it scans, and the count reads
  // the flag from each row (docs/workspace-api.md §6, docs/decisions.md "One activity row per call").
  if (!f.includeProtocol) qb.andWhere('protocol', false);
  if (f.surface) qb.andWhere('surface', f.surface);
  if (f.kind) qb.andWhere('kind', f.kind);
  if (f.since) qb.andWhere('created_at', '>', f.since);
  if (f.until) qb.andWhere('created_at', '<', f.until);
  return qb;
}

const DAY_MS = 86_400_000;

/** Midnight UTC of the day `t` falls on. */
function dayStart(t: Date): Date {
  return new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
}

/**
 * The exact number of messages matching `f`, without reading every one of them: the days that lie
 * wholly inside the window come from `message_day_counts` (kept by a trigger in each write's
 * transaction), and only the rows of the window's edge days — the day of `since` after it, the day
 * of `until` before it — are counted one by one, through the list's own index.
 */
async function countMessages(db: Conn, agentId: string, f: MessageFilter): Promise<number> {
  const lo = f.since ? dayStart(f.since) : null;
  const hi = f.until ? dayStart(f.until) : null;
  // A window within one day: counting its rows is already cheap.
  if (lo && hi && lo.getTime() >= hi.getTime()) return count(messagesWhere(db, agentId, f));
  const days = db('message_day_counts').where('agent_id', agentId);
  if (f.direction) days.andWhere('direction', f.direction);
  if (f.channel) days.andWhere('channel', f.channel);
  // Whole days only: after the day of `since`, before the day of `until`.
  if (lo) days.andWhere('day', '>', lo.toISOString().slice(0, 10));
  if (hi) days.andWhere('day', '<', hi.toISOString().slice(0, 10));
  const parts: Promise<number>[] = [
    days.sum<{ n: number | string | null }[]>('n as n').then(([r]) => Number(r?.n ?? 0)),
  ];
  if (f.since && lo) parts.push(count(messagesWhere(db, agentId, { ...f, until: new Date(lo.getTime() + DAY_MS) })));
  if (f.until && hi)
    parts.push(count(messagesWhere(db, agentId, { ...f, since: undefined }).andWhere('sent_at', '>=', hi)));
  return (await Promise.all(parts)).reduce((a, b) => a + b, 0);
}

async function count(qb: Knex.QueryBuilder): Promise<number> {
  const [r] = await qb.count<{ n: number }[]>('* as n');
  return Number(r?.n ?? 0);
}

/** The Workspace API's read queries (lists with exact counts, per-agent figures batched over many agents). */
export function workspaceReadRepo(db: Conn): WorkspaceReadRepo {
  return {
    listMessages: (agentId, filter, page) =>
      q(async () => {
        // Page and count are independent reads; on PostgreSQL they run on two connections at once.
        const [rs, totalCount] = await Promise.all([
          messagesWhere(db, agentId, filter)
            .select('*')
            .orderBy(NEWEST_FIRST('sent_at'))
            .limit(page.limit)
            .offset(page.offset),
          countMessages(db, agentId, filter),
        ]);
        return { items: rs.map(rows.messages.fromRow), totalCount };
      }),

    listActivity: (agentId, filter, page) =>
      q(async () => {
        const [rs, totalCount] = await Promise.all([
          activityWhere(db, agentId, filter)
            .select('*')
            .orderBy(NEWEST_FIRST('created_at'))
            .limit(page.limit)
            .offset(page.offset),
          count(activityWhere(db, agentId, filter)),
        ]);
        return { items: rs.map(rows.activity.fromRow), totalCount };
      }),

    entryCounts: (agentIds) =>
      q(async () => {
        if (agentIds.length === 0) return [];
        const ids = agentIds as string[];
        // One statement for four tables, each part a grouped scan of the table's (agent_id, …)
        // unique index. The ids travel as one array parameter, so any number of agents fits.
        const part = (table: string, kind: string) =>
          `select agent_id, '${kind}'::text as kind, count(*) as n from ${table} where agent_id = any(?::text[]) group by agent_id`;
        const sql = [
          part('http_endpoints', 'httpEndpoints'),
          part('mcp_tools', 'mcpTools'),
          part('webhooks', 'webhooks'),
          part('document_exposures', 'exposedDocuments'),
        ].join(' union all ');
        const rs = (await db.raw(sql, [ids, ids, ids, ids])).rows as { agent_id: string; kind: string; n: number }[];
        const byAgent = new Map<string, AgentEntryCounts>(
          ids.map((agentId) => [agentId, { agentId, httpEndpoints: 0, mcpTools: 0, webhooks: 0, exposedDocuments: 0 }]),
        );
        for (const r of rs) {
          const c = byAgent.get(r.agent_id);
          if (c) c[r.kind as Exclude<keyof AgentEntryCounts, 'agentId'>] = Number(r.n);
        }
        return [...byAgent.values()];
      }),

    usageOnDay: (agentIds, day) =>
      q(async () => {
        if (agentIds.length === 0) return [];
        const rs = await db('credit_usage')
          .select(db.raw(`agent_id, to_char(day, 'YYYY-MM-DD') as day, credits, runs`))
          .whereRaw('agent_id = any(?::text[])', [agentIds as string[]])
          .andWhere('day', day);
        return rs.map((r: any): DailyUsage => ({
          agentId: r.agent_id,
          day: r.day,
          credits: Number(r.credits),
          runs: Number(r.runs),
        }));
      }),

    lastActivity: (agentIds) =>
      q(async () => {
        if (agentIds.length === 0) return [];
        // max() per agent as a correlated subquery: each is one backward step of the
        // (agent_id, created_at, id) index, where a grouped max would read every entry of every agent.
        const r = await db.raw(
          `select ids.id as agent_id, (select max(l.created_at) from activity_log l where l.agent_id = ids.id) as at
             from unnest(?::text[]) as ids(id)`,
          [agentIds as string[]],
        );
        return (r.rows as { agent_id: string; at: Date | string | null }[]).map((x) => ({
          agentId: x.agent_id,
          at: x.at == null ? null : new Date(x.at),
        }));
      }),
  };
}
