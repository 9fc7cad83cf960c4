import type { Knex } from 'knex';
import type { WebhookDelivery } from '../../domain/webhooks/webhook.entities.js';
import type { DeliveryRepo } from '../../domain/webhooks/webhook.ports.js';
import { RETRY_DELAYS_SECONDS } from '../../domain/core/retry-schedule.js';
import { agentsWalk, rankedTurns, recordServed } from './fair-claim.js';
import { q } from './pg-errors.js';
import { SUMMARY_COLUMNS, bytes, summaryFromRow, webhookDeliveries as m } from './rows/webhook-deliveries.js';

type Conn = Knex | Knex.Transaction;

/**
 * Webhook deliveries and the queue they form. Claims are one UPDATE over a `FOR UPDATE SKIP LOCKED`
 * subquery, so instances sharing one PostgreSQL never take the same delivery, and a delivery whose
 * lease ran out (its instance died) is due again. A claim that takes back an expired lease counts
 * the lost attempt as a failure, so a delivery that kills its instance every time still ends.
 *
 * A claim is fair between agents, in the query itself so that it holds across instances (see
 * fair-claim.ts): every agent's oldest due delivery before any agent's second, and between equal
 * turns the agent served least recently — so one agent's backlog of thousands delays another
 * agent's delivery by one claim, not by the backlog, even when workers free one slot at a time.
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
 * The fair claim, one statement (fair-claim.ts). `agents` skip-scans webhook_deliveries_agent_pending;
 * `offered` is each agent's oldest due deliveries (an index range each) and every delivery whose
 * lease was lost. The locking SELECT joins the ranked turns and checks again that each row is due, so
 * that a row another instance claimed meanwhile (read again once its lock is released) is passed
 * over, never claimed twice.
 */
const CLAIM = `with recursive ${agentsWalk('webhook_deliveries', (n) => `${n}.status = 'PENDING'`)}, offered as (
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
  ), ${rankedTurns('webhook')}, due as (
      select w.id, turns.rank
        from webhook_deliveries as w
        join turns on turns.id = w.id
       where ${DUE}
       order by turns.rank
       limit ?
         for update of w skip locked
  ), claimed as (
      update webhook_deliveries as d
         set status = 'RUNNING',
             attempts = d.attempts + 1,
             failures = d.failures + case when d.status = 'RUNNING' then 1 else 0 end,
             locked_until = ?,
             updated_at = ?
        from due
       where d.id = due.id
   returning ${SUMMARY_COLUMNS.map((c) => `d.${c}`).join(', ')}, octet_length(d.raw_body) as body_bytes, due.rank
  ), ${recordServed('webhook')}
  select * from claimed order by rank`;

/** Delivery bodies emptied per statement by the housekeeping that drops them. */
const BODY_DROP_BATCH = 500;

export function deliveryRepo(db: Conn): DeliveryRepo {
  const one = async (where: Record<string, unknown>) => {
    const r = await db(m.table).where(where).first();
    return r ? m.fromRow(r) : null;
  };
  const summaries = () => db(m.table).select([...SUMMARY_COLUMNS, db.raw('octet_length(raw_body) as body_bytes')]);
  /** The summary of a row just written from `d`: its body's size is the one sent. */
  const written = (r: Record<string, unknown>, d: WebhookDelivery) =>
    summaryFromRow({ ...r, body_bytes: d.rawBody.length });
  return {
    get: (id) => q(() => one({ id })),
    insert: (d) =>
      q(async () => {
        const [r] = await db(m.table)
          .insert(m.toRow(d))
          .returning([...SUMMARY_COLUMNS]);
        return written(r, d);
      }),
    accept: (d, dedupeSince) =>
      q(async () => {
        if (d.dedupeKey !== null) {
          await db(m.table)
            .where({ webhook_id: d.webhookId, dedupe_key: d.dedupeKey })
            .andWhere('created_at', '<', dedupeSince)
            .update({ dedupe_key: null });
        }
        const [r] = await db(m.table)
          .insert(m.toRow(d))
          .onConflict(['webhook_id', 'dedupe_key'])
          .ignore()
          .returning([...SUMMARY_COLUMNS]);
        if (r) return { delivery: written(r, d), duplicate: false };
        const first = await summaries().where({ webhook_id: d.webhookId, dedupe_key: d.dedupeKey }).first();
        if (!first) throw new Error('a conflicting delivery vanished while it was being read');
        return { delivery: summaryFromRow(first), duplicate: true };
      }),
    claim: (now, leaseUntil, limit) =>
      q(async () => {
        const offered = limit * OFFERED_PER_CLAIMED;
        const res = await db.raw(CLAIM, [now, offered, now, offered, now, now, limit, leaseUntil, now]);
        return (res.rows as Record<string, unknown>[]).map(summaryFromRow);
      }),
    body: (id) =>
      q(async () => {
        const r = await db(m.table).select('raw_body').where({ id }).first();
        return r ? bytes(r.raw_body) : null;
      }),
    bodyHeads: (ids, length) =>
      q(async () => {
        const rs = ids.length
          ? await db(m.table)
              .select('id', 'agent_id', db.raw('substring(raw_body from 1 for ?) as head', [length]))
              .whereIn('id', [...ids])
          : [];
        return new Map(rs.map((r) => [r.id as string, { agentId: r.agent_id as string, head: bytes(r.head) }]));
      }),
    renew: (id, attempt, leaseUntil) =>
      q(
        async () =>
          (
            await db(m.table)
              .where({ id, attempts: attempt, status: 'RUNNING' })
              .update({ locked_until: leaseUntil })
              .returning('id')
          ).length > 0,
      ),
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
          query.andWhere((w) =>
            w
              .where('created_at', '<', createdAt)
              .orWhere((w2) => w2.where('created_at', '=', createdAt).andWhere('id', '<', id)),
          );
        }
        const rs = await query
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(opts.first);
        return rs.map(summaryFromRow);
      }),
    prune: (before) =>
      q(
        async () =>
          (
            await db(m.table)
              .whereIn('status', ['DONE', 'FAILED'])
              .andWhere('created_at', '<', before)
              .delete()
              .returning('id')
          ).length,
      ),
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
          const dropped = (
            await db(m.table)
              .whereIn('id', due)
              .update({ raw_body: Buffer.alloc(0), body_dropped_at: at })
              .returning('id')
          ).length;
          total += dropped;
          if (dropped < batch) return total;
        }
      }),
  };
}
