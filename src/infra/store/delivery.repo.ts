import type { Knex } from 'knex';
import type { DeliveryRepo } from '../../domain/ports.js';
import { RETRY_DELAYS_SECONDS } from '../../domain/webhooks/retry-schedule.js';
import { q } from './pg-errors.js';
import { webhookDeliveries as m } from './rows/webhook-deliveries.js';

type Conn = Knex | Knex.Transaction;

/**
 * Webhook deliveries and the queue they form. Claims are one UPDATE over a `FOR UPDATE SKIP LOCKED`
 * subquery, so instances sharing one PostgreSQL never take the same delivery, and a delivery whose
 * lease ran out (its instance died) is due again. A claim that takes back an expired lease counts
 * the lost attempt as a failure, so a delivery that kills its instance every time still ends.
 *
 * A lost attempt is retried on the schedule of a failed one, counted from the end of its lease: a
 * delivery cut off by a crash is not first in line when the instance starts again (while it warms
 * up, and perhaps crashes again), so crashes at random moments do not use up its attempts.
 */
const LOST_ATTEMPT_DELAY = `coalesce((array[${RETRY_DELAYS_SECONDS.join(', ')}])[failures + 1], 0) * interval '1 second'`;

/** Delivery bodies emptied per statement by the housekeeping that drops them. */
const BODY_DROP_BATCH = 500;

export function deliveryRepo(db: Conn): DeliveryRepo {
  const one = async (where: Record<string, unknown>) => {
    const r = await db(m.table).where(where).first();
    return r ? m.fromRow(r) : null;
  };
  return {
    get: (id) => q(() => one({ id })),
    insert: (d) =>
      q(async () => {
        const [r] = await db(m.table).insert(m.toRow(d)).returning('*');
        return m.fromRow(r);
      }),
    accept: (d, dedupeSince) =>
      q(async () => {
        if (d.dedupeKey !== null) {
          await db(m.table).where({ webhook_id: d.webhookId, dedupe_key: d.dedupeKey }).andWhere('created_at', '<', dedupeSince).update({ dedupe_key: null });
        }
        const [r] = await db(m.table).insert(m.toRow(d)).onConflict(['webhook_id', 'dedupe_key']).ignore().returning('*');
        if (r) return { delivery: m.fromRow(r), duplicate: false };
        const first = await one({ webhook_id: d.webhookId, dedupe_key: d.dedupeKey });
        if (!first) throw new Error('a conflicting delivery vanished while it was being read');
        return { delivery: first, duplicate: true };
      }),
    claim: (now, leaseUntil, limit) =>
      q(async () => {
        const res = await db.raw(
          `update webhook_deliveries as d
              set status = 'RUNNING',
                  attempts = d.attempts + 1,
                  failures = d.failures + case when d.status = 'RUNNING' then 1 else 0 end,
                  locked_until = ?,
                  updated_at = ?
             from (select id from webhook_deliveries
                    where (status = 'PENDING' and next_attempt_at <= ?) or (status = 'RUNNING' and locked_until + ${LOST_ATTEMPT_DELAY} <= ?)
                    order by next_attempt_at, id
                    limit ?
                    for update skip locked) as due
            where d.id = due.id
        returning d.*`,
          [leaseUntil, now, now, now, limit],
        );
        return (res.rows as Record<string, unknown>[]).map(m.fromRow).sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
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
        const query = db(m.table).where({ agent_id: agentId });
        if (opts.webhookId) query.andWhere({ webhook_id: opts.webhookId });
        if (opts.status) query.andWhere({ status: opts.status });
        if (opts.after) {
          const { createdAt, id } = opts.after;
          query.andWhere((w) => w.where('created_at', '<', createdAt).orWhere((w2) => w2.where('created_at', '=', createdAt).andWhere('id', '<', id)));
        }
        const rs = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(opts.first);
        return rs.map(m.fromRow);
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
