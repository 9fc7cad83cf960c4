import type { Knex } from 'knex';
import type { WebhookDelivery } from '../../domain/webhooks/webhook.entities.js';
import type { DeliveryRepo } from '../../domain/webhooks/webhook.ports.js';
import { RETRY_DELAYS_SECONDS } from '../../domain/webhooks/retry-schedule.js';
import { q } from './pg-errors.js';
import { SUMMARY_COLUMNS, bytes, summaryFromRow, webhookDeliveries as m } from './rows/webhook-deliveries.js';

type Conn = Knex | Knex.Transaction;

/**
 * Webhook deliveries and the queue they form. Claims are one UPDATE over a `FOR UPDATE SKIP LOCKED`
 * subquery, so instances sharing one PostgreSQL never take the same delivery, and a delivery whose
 * lease ran out (its instance died) is due again. A claim that takes back an expired lease counts
 * the lost attempt as a failure, so a delivery that kills its instance every time still ends.
 *
 * A claim is fair between agents, in the query itself so that it holds across instances: due
 * deliveries are numbered per agent, oldest due first (their turn), and the claim takes the lowest
 * turns first — every agent's oldest before any agent's second — so one agent's backlog of
 * thousands delays another agent's delivery by one batch, not by the backlog (see CLAIM).
 *
 * Lists and claims read no body (a body is up to 1 MiB): `body` reads the one delivery being run,
 * `bodyHeads` the beginning of the few being shown.
 *
 * A lost attempt is retried on the schedule of a failed one, counted from the end of its lease: a
 * delivery cut off by a crash is not first in line when the instance starts again (while it warms
 * up, and perhaps crashes again), so crashes at random moments do not use up its attempts.
 */
const LOST_ATTEMPT_DELAY = `coalesce((array[${RETRY_DELAYS_SECONDS.join(', ')}])[failures + 1], 0) * interval '1 second'`;
/** A delivery due at the bound time (twice): pending and due, or running under a lease lost long enough ago. */
const DUE = `((status = 'PENDING' and next_attempt_at <= ?) or (status = 'RUNNING' and locked_until + ${LOST_ATTEMPT_DELAY} <= ?))`;
/**
 * How many of its oldest due deliveries each agent offers a claim, per delivery claimed: more than
 * one claim's worth, so that instances claiming at the same moment (each passing over the rows the
 * others hold) still find an agent's backlog.
 */
const OFFERED_PER_CLAIMED = 4;
/**
 * The fair claim, one statement. `agents` walks the agents with pending deliveries (a skip scan of
 * webhook_deliveries_agent_pending: one index step per agent, however long its backlog); `offered`
 * is each one's oldest due deliveries (an index range each) and every delivery whose lease was lost;
 * `turns` numbers them per agent and keeps the lowest turns (a few rows: the locking SELECT then
 * reads each by its key). The window function cannot be in the locking SELECT: that one joins the
 * turns and checks again that each row is due, so that a row another instance claimed meanwhile
 * (read again once its lock is released) is passed over, never claimed twice.
 */
const CLAIM = `with recursive agents (agent_id) as (
      select min(agent_id) from webhook_deliveries where status = 'PENDING'
    union all
      select (select min(n.agent_id) from webhook_deliveries as n where n.status = 'PENDING' and n.agent_id > agents.agent_id)
        from agents
       where agents.agent_id is not null
  ), offered as (
      select o.id, o.agent_id, o.next_attempt_at
        from agents
       cross join lateral (
             select p.id, p.agent_id, p.next_attempt_at
               from webhook_deliveries as p
              where p.status = 'PENDING' and p.agent_id = agents.agent_id and p.next_attempt_at <= ?
              order by p.next_attempt_at, p.id
              limit ?
           ) as o
    union all
      select id, agent_id, next_attempt_at
        from webhook_deliveries
       where status = 'RUNNING' and locked_until + ${LOST_ATTEMPT_DELAY} <= ?
  ), turns as (
      select id, turn
        from (select id, next_attempt_at, row_number() over (partition by agent_id order by next_attempt_at, id) as turn from offered) as numbered
       order by turn, next_attempt_at, id
       limit ?
  ), due as (
      select w.id, turns.turn
        from webhook_deliveries as w
        join turns on turns.id = w.id
       where ${DUE}
       order by turns.turn, w.next_attempt_at, w.id
       limit ?
         for update of w skip locked
  )
  update webhook_deliveries as d
     set status = 'RUNNING',
         attempts = d.attempts + 1,
         failures = d.failures + case when d.status = 'RUNNING' then 1 else 0 end,
         locked_until = ?,
         updated_at = ?
    from due
   where d.id = due.id
  returning ${SUMMARY_COLUMNS.map((c) => `d.${c}`).join(', ')}, octet_length(d.raw_body) as body_bytes, due.turn`;

/** Delivery bodies emptied per statement by the housekeeping that drops them. */
const BODY_DROP_BATCH = 500;

export function deliveryRepo(db: Conn): DeliveryRepo {
  const one = async (where: Record<string, unknown>) => {
    const r = await db(m.table).where(where).first();
    return r ? m.fromRow(r) : null;
  };
  const summaries = () => db(m.table).select([...SUMMARY_COLUMNS, db.raw('octet_length(raw_body) as body_bytes')]);
  /** The summary of a row just written from `d`: its body's size is the one sent. */
  const written = (r: Record<string, unknown>, d: WebhookDelivery) => summaryFromRow({ ...r, body_bytes: d.rawBody.length });
  return {
    get: (id) => q(() => one({ id })),
    insert: (d) =>
      q(async () => {
        const [r] = await db(m.table).insert(m.toRow(d)).returning([...SUMMARY_COLUMNS]);
        return written(r, d);
      }),
    accept: (d, dedupeSince) =>
      q(async () => {
        if (d.dedupeKey !== null) {
          await db(m.table).where({ webhook_id: d.webhookId, dedupe_key: d.dedupeKey }).andWhere('created_at', '<', dedupeSince).update({ dedupe_key: null });
        }
        const [r] = await db(m.table).insert(m.toRow(d)).onConflict(['webhook_id', 'dedupe_key']).ignore().returning([...SUMMARY_COLUMNS]);
        if (r) return { delivery: written(r, d), duplicate: false };
        const first = await summaries().where({ webhook_id: d.webhookId, dedupe_key: d.dedupeKey }).first();
        if (!first) throw new Error('a conflicting delivery vanished while it was being read');
        return { delivery: summaryFromRow(first), duplicate: true };
      }),
    claim: (now, leaseUntil, limit) =>
      q(async () => {
        const offered = limit * OFFERED_PER_CLAIMED;
        const res = await db.raw(CLAIM, [now, offered, now, offered, now, now, limit, leaseUntil, now]);
        const rows = (res.rows as Record<string, unknown>[]).map((r) => ({ turn: Number(r.turn), d: summaryFromRow(r) }));
        // RETURNING keeps no order: the claim's own (turn, then oldest due).
        rows.sort((a, b) => a.turn - b.turn || a.d.nextAttemptAt.getTime() - b.d.nextAttemptAt.getTime() || (a.d.id < b.d.id ? -1 : 1));
        return rows.map((r) => r.d);
      }),
    body: (id) =>
      q(async () => {
        const r = await db(m.table).select('raw_body').where({ id }).first();
        return r ? bytes(r.raw_body) : null;
      }),
    bodyHeads: (ids, length) =>
      q(async () => {
        const rs = ids.length ? await db(m.table).select('id', 'agent_id', db.raw('substring(raw_body from 1 for ?) as head', [length])).whereIn('id', [...ids]) : [];
        return new Map(rs.map((r) => [r.id as string, { agentId: r.agent_id as string, head: bytes(r.head) }]));
      }),
    renew: (id, attempt, leaseUntil) =>
      q(async () => (await db(m.table).where({ id, attempts: attempt, status: 'RUNNING' }).update({ locked_until: leaseUntil }).returning('id')).length > 0),
    settle: (id, attempt, s) =>
      q(
        async () =>
          (
            await db(m.table)
              .where({ id, attempts: attempt, status: 'RUNNING' })
              .update({
                status: s.status,
                failures: s.failures,
                next_attempt_at: s.nextAttemptAt,
                last_error: s.lastError,
                run_id: s.runId,
                completed_at: s.completedAt,
                updated_at: s.updatedAt,
                locked_until: null,
              })
              .returning('id')
          ).length > 0,
      ),
    handBack: (id, attempt, now) =>
      q(
        async () =>
          (
            await db(m.table)
              .where({ id, attempts: attempt, status: 'RUNNING' })
              .update({ status: 'PENDING', next_attempt_at: now, locked_until: null, updated_at: now })
              .returning('id')
          ).length > 0,
      ),
    list: (agentId, opts) =>
      q(async () => {
        const query = summaries().where({ agent_id: agentId });
        if (opts.webhookId) query.andWhere({ webhook_id: opts.webhookId });
        if (opts.status) query.andWhere({ status: opts.status });
        if (opts.after) {
          const { createdAt, id } = opts.after;
          query.andWhere((w) => w.where('created_at', '<', createdAt).orWhere((w2) => w2.where('created_at', '=', createdAt).andWhere('id', '<', id)));
        }
        const rs = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(opts.first);
        return rs.map(summaryFromRow);
      }),
    prune: (before) =>
      q(async () => (await db(m.table).whereIn('status', ['DONE', 'FAILED']).andWhere('created_at', '<', before).delete().returning('id')).length),
    // Batches of their own statements (the partial index webhook_deliveries_body_kept finds them):
    // a backlog of a month of 1 MiB bodies is neither one long statement nor one huge transaction.
    dropBodies: (before, at, batch = BODY_DROP_BATCH) =>
      q(async () => {
        let total = 0;
        for (;;) {
          const due = db(m.table)
            .select('id')
            // Literals, as in the index's predicate, so the planner can use it whatever the plan.
            .whereRaw("body_dropped_at is null and status in ('DONE', 'FAILED')")
            .andWhere('completed_at', '<', before)
            .limit(batch);
          const dropped = (await db(m.table).whereIn('id', due).update({ raw_body: Buffer.alloc(0), body_dropped_at: at }).returning('id')).length;
          total += dropped;
          if (dropped < batch) return total;
        }
      }),
  };
}
