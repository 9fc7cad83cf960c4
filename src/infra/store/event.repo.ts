import type { Knex } from 'knex';
import type { EventAttempt, EventDelivery, EventSubscription } from '../../domain/events/event.entities.js';
import type { EventDeliveryRepo, EventSubscriptionRepo } from '../../domain/events/event.ports.js';
import { q } from './pg-errors.js';
import { date, dateOrNull, json, numOrNull, parseJson, type Row } from './rows/mapping.js';

type Conn = Knex | Knex.Transaction;

const subToRow = (s: EventSubscription): Row => ({
  id: s.id,
  workspace_id: s.workspaceId,
  url: s.url,
  kinds: json(s.kinds),
  agent_id: s.agentId,
  description: s.description,
  secret_ciphertext: s.secretCiphertext,
  enabled: s.enabled,
  failure_streak: s.failureStreak,
  disabled_at: s.disabledAt,
  disabled_reason: s.disabledReason,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

const subFromRow = (r: Row): EventSubscription => ({
  id: r.id,
  workspaceId: r.workspace_id,
  url: r.url,
  kinds: parseJson(r.kinds),
  agentId: r.agent_id ?? null,
  description: r.description,
  secretCiphertext: r.secret_ciphertext,
  enabled: Boolean(r.enabled),
  failureStreak: Number(r.failure_streak),
  disabledAt: dateOrNull(r.disabled_at),
  disabledReason: r.disabled_reason ?? null,
  createdAt: date(r.created_at),
  updatedAt: date(r.updated_at),
});

const deliveryToRow = (d: EventDelivery): Row => ({
  id: d.id,
  subscription_id: d.subscriptionId,
  workspace_id: d.workspaceId,
  event_id: d.eventId,
  kind: d.kind,
  payload: json(d.payload),
  state: d.state,
  attempts: d.attempts,
  failures: d.failures,
  next_attempt_at: d.nextAttemptAt,
  locked_until: d.lockedUntil,
  last_status: d.lastStatus,
  last_response: d.lastResponse,
  replay_of: d.replayOf,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
  completed_at: d.completedAt,
});

const deliveryFromRow = (r: Row): EventDelivery => ({
  id: r.id,
  subscriptionId: r.subscription_id,
  workspaceId: r.workspace_id,
  eventId: r.event_id,
  kind: r.kind,
  payload: parseJson(r.payload),
  state: r.state,
  attempts: Number(r.attempts),
  failures: Number(r.failures),
  nextAttemptAt: dateOrNull(r.next_attempt_at),
  lockedUntil: dateOrNull(r.locked_until),
  lastStatus: numOrNull(r.last_status),
  lastResponse: r.last_response ?? null,
  replayOf: r.replay_of ?? null,
  createdAt: date(r.created_at),
  updatedAt: date(r.updated_at),
  completedAt: dateOrNull(r.completed_at),
});

const attemptFromRow = (r: Row): EventAttempt => ({
  deliveryId: r.delivery_id,
  attempt: Number(r.attempt),
  status: numOrNull(r.status),
  response: r.response ?? null,
  durationMs: Number(r.duration_ms),
  at: date(r.at),
});

export function eventSubscriptionRepo(db: Conn): EventSubscriptionRepo {
  const list = (where: Record<string, unknown>) =>
    q(async () =>
      (
        await db('event_subscriptions')
          .where(where)
          .orderBy([{ column: 'created_at' }, { column: 'id' }])
      ).map(subFromRow),
    );
  return {
    get: (id) =>
      q(async () => {
        const r = await db('event_subscriptions').where({ id }).first();
        return r ? subFromRow(r) : null;
      }),
    getForUpdate: (id) =>
      q(async () => {
        const r = await db('event_subscriptions').where({ id }).forUpdate().first();
        return r ? subFromRow(r) : null;
      }),
    insert: (s) => q(async () => subFromRow((await db('event_subscriptions').insert(subToRow(s)).returning('*'))[0])),
    update: (s) =>
      q(async () => {
        const { id, ...rest } = subToRow(s);
        const [r] = await db('event_subscriptions').where({ id }).update(rest).returning('*');
        return r ? subFromRow(r) : s;
      }),
    delete: (id) => q(async () => (await db('event_subscriptions').where({ id }).delete().returning('id')).length > 0),
    listByWorkspace: (workspaceId) => list({ workspace_id: workspaceId }),
    listEnabled: (workspaceId) => list({ workspace_id: workspaceId, enabled: true }),
  };
}

/** A due delivery: waiting and due, not held under a lease (or under one that ran out). */
const DUE = (a: string) => `${a}.next_attempt_at <= ? and (${a}.locked_until is null or ${a}.locked_until <= ?)`;
/** How many due rows a claim looks at, per delivery claimed: the oldest due, ranked between subscriptions. */
const OFFERED_PER_CLAIMED = 16;
/**
 * The fair claim, one statement: the oldest due deliveries (served by `event_deliveries_due`) are
 * numbered per subscription (turn 1, 2, …) and taken lowest turn first — every subscription's oldest
 * before any subscription's second — so one failing receiver's backlog does not hold back another's
 * events. The locking SELECT checks again that each row is due and passes over rows another
 * instance holds (`FOR UPDATE SKIP LOCKED`).
 */
const CLAIM = `with offered as (
      select p.id, p.subscription_id, p.next_attempt_at
        from event_deliveries as p
       where p.next_attempt_at is not null and ${DUE('p')}
       order by p.next_attempt_at, p.id
       limit ?
  ), turns as (
      select id, row_number() over (order by turn, next_attempt_at, id) as rank
        from (select id, next_attempt_at, row_number() over (partition by subscription_id order by next_attempt_at, id) as turn from offered) as numbered
       order by rank
       limit ?
  ), due as (
      select w.id, turns.rank
        from event_deliveries as w
        join turns on turns.id = w.id
       where ${DUE('w')}
       order by turns.rank
         for update of w skip locked
  )
  update event_deliveries as d
     set attempts = d.attempts + 1,
         failures = d.failures + case when d.locked_until is null then 0 else 1 end,
         locked_until = ?
    from due
   where d.id = due.id
  returning d.*, due.rank`;

export function eventDeliveryRepo(db: Conn): EventDeliveryRepo {
  const held = (id: string, attempt: number) =>
    db('event_deliveries').where({ id, attempts: attempt }).whereNotNull('locked_until');
  return {
    get: (id) =>
      q(async () => {
        const r = await db('event_deliveries').where({ id }).first();
        return r ? deliveryFromRow(r) : null;
      }),
    insertMany: (ds) =>
      q(async () => {
        if (ds.length > 0) await db('event_deliveries').insert(ds.map(deliveryToRow));
      }),
    claim: (now, leaseUntil, limit) =>
      q(async () => {
        const res = await db.raw(CLAIM, [now, now, limit * OFFERED_PER_CLAIMED, limit, now, now, leaseUntil]);
        return (res.rows as Row[]).sort((a, b) => Number(a.rank) - Number(b.rank)).map(deliveryFromRow);
      }),
    renew: (id, attempt, leaseUntil) =>
      q(async () => (await held(id, attempt).update({ locked_until: leaseUntil }).returning('id')).length > 0),
    handBack: (id, attempt, now) =>
      q(
        async () =>
          (await held(id, attempt).update({ locked_until: null, next_attempt_at: now }).returning('id')).length > 0,
      ),
    settle: (id, attempt, s, a) =>
      q(async () => {
        const done = await held(id, attempt)
          .update({
            state: s.state,
            failures: s.failures,
            next_attempt_at: s.nextAttemptAt,
            locked_until: null,
            last_status: s.lastStatus,
            last_response: s.lastResponse,
            completed_at: s.completedAt,
            updated_at: s.updatedAt,
          })
          .returning('id');
        if (done.length === 0) return false;
        await db('event_delivery_attempts')
          .insert({
            delivery_id: a.deliveryId,
            attempt: a.attempt,
            status: a.status,
            response: a.response,
            duration_ms: a.durationMs,
            at: a.at,
          })
          .onConflict(['delivery_id', 'attempt'])
          .ignore();
        return true;
      }),
    list: (subscriptionId, opts) =>
      q(async () => {
        const rows = db('event_deliveries').where({ subscription_id: subscriptionId });
        if (opts.after) {
          const { createdAt, id } = opts.after;
          rows.andWhere((w) =>
            w
              .where('created_at', '<', createdAt)
              .orWhere((x) => x.where('created_at', '=', createdAt).andWhere('id', '<', id)),
          );
        }
        const rs = await rows
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(opts.first);
        return rs.map(deliveryFromRow);
      }),
    attempts: (ids) =>
      q(async () => {
        if (ids.length === 0) return [];
        const rs = await db('event_delivery_attempts')
          .whereIn('delivery_id', ids as string[])
          .orderBy([{ column: 'delivery_id' }, { column: 'attempt' }]);
        return rs.map(attemptFromRow);
      }),
    prune: (before) =>
      q(
        async () =>
          (
            await db('event_deliveries')
              .whereNull('next_attempt_at')
              .andWhere('created_at', '<', before)
              .delete()
              .returning('id')
          ).length,
      ),
  };
}
