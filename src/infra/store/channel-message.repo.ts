import type { Knex } from 'knex';
import type { MessageRepo } from '../../domain/messages/message.ports.js';
import { agentsWalk, rankedTurns, recordServed } from './fair-claim.js';
import { q } from './pg-errors.js';
import { json } from './rows/mapping.js';
import { messages as m } from './rows/messages.js';

type Conn = Knex | Knex.Transaction;

/** A due message: waiting (`next_attempt_at`) and due, not held under a lease (or under one that ran out). */
const DUE = (a: string) => `${a}.next_attempt_at <= ? and (${a}.locked_until is null or ${a}.locked_until <= ?)`;
/** How many of its oldest due messages each agent offers a claim, per message claimed (see delivery.repo.ts). */
const OFFERED_PER_CLAIMED = 4;
/**
 * The fair claim, one statement (fair-claim.ts): `agents` skip-scans messages_agent_due, `offered` is
 * each agent's oldest due messages (an index range each; the few held under a lease are passed
 * over), and the locking SELECT checks again that each row is due, so that a message another
 * instance claimed meanwhile is passed over, never claimed twice.
 */
const CLAIM = `with recursive ${agentsWalk('messages', (n) => `${n}.next_attempt_at is not null`)}, offered as (
      select o.id, o.agent_id, o.next_attempt_at
        from agents
       cross join lateral (
             select p.id, p.agent_id, p.next_attempt_at
               from messages as p
              where p.next_attempt_at is not null and p.agent_id = agents.agent_id and ${DUE('p')}
              order by p.next_attempt_at, p.id
              limit ?
           ) as o
  ), ${rankedTurns('channel')}, due as (
      select w.id, turns.rank
        from messages as w
        join turns on turns.id = w.id
       where ${DUE('w')}
       order by turns.rank
       limit ?
         for update of w skip locked
  ), claimed as (
      update messages as d
         set attempts = d.attempts + 1,
             failures = d.failures + case when d.locked_until is null then 0 else 1 end,
             locked_until = ?
        from due
       where d.id = due.id
   returning d.*, due.rank
  ), ${recordServed('channel')}
  select * from claimed order by rank`;

/** The dedupe key of a channel's message: its provider id, per agent, channel and direction. */
const DEDUPE = ['agent_id', 'channel_id', 'direction', 'message_id'];

/**
 * The queue side of `messages` (docs/decisions.md §30): due rows have `next_attempt_at`; a claim is
 * one UPDATE over a `FOR UPDATE SKIP LOCKED` subquery (served by the partial index `messages_due`),
 * so instances sharing one PostgreSQL never take the same message. A claim that takes back a lease
 * that ran out (its instance died) counts that attempt as a failure, so a message that kills its
 * instance every time still ends. Claims are fair between agents as webhook deliveries' are
 * (fair-claim.ts): one agent's backlog of answers does not hold back another agent's email or SMS.
 */
export function channelMessageRepo(db: Conn): Omit<MessageRepo, 'get' | 'insert' | 'update' | 'delete'> {
  const held = (id: string, attempt: number) =>
    db('messages').where({ id, attempts: attempt }).whereNotNull('locked_until');
  return {
    accept: (msg, attachments = []) =>
      q(async () => {
        const [row] = await db('messages').insert(m.toRow(msg)).onConflict(DEDUPE).ignore().returning('*');
        if (row) {
          // The caller's transaction holds the message and its attachments together.
          if (attachments.length > 0)
            await db('message_attachments').insert(
              attachments.map((a, position) => ({
                message_id: msg.id,
                position,
                filename: a.filename,
                content_type: a.contentType,
                size: a.size,
                content: a.content === null ? null : Buffer.from(a.content),
              })),
            );
          return { message: m.fromRow(row), duplicate: false };
        }
        const existing = await db('messages')
          .where({
            agent_id: msg.agentId,
            channel_id: msg.channelId,
            direction: msg.direction,
            message_id: msg.messageId,
          })
          .first();
        return { message: m.fromRow(existing), duplicate: true };
      }),
    countAnswerable: (channelId, to, since) =>
      q(async () => {
        // Served by messages_channel_answer_to: only messages taken to be answered have answer_to.
        const rows = db('messages')
          .where({ channel_id: channelId, direction: 'inbound' })
          .whereNotNull('answer_to')
          .andWhere('created_at', '>', since)
          .andWhereNot('status', 'ignored');
        const r = await (to === null ? rows : rows.andWhere('answer_to', to)).count({ n: '*' }).first();
        return Number(r?.n ?? 0);
      }),
    countIntake: (channelId, day, bytes, quota) =>
      q(async () => {
        // The WHERE of DO UPDATE makes the check and the count one atomic step under the row's lock.
        const r = await db.raw(
          `insert into channel_intake_days (channel_id, day, messages, bytes) values (?, ?, 1, ?)
           on conflict (channel_id, day) do update set messages = channel_intake_days.messages + 1, bytes = channel_intake_days.bytes + excluded.bytes
           where channel_intake_days.messages + 1 <= ? and channel_intake_days.bytes + excluded.bytes <= ?
           returning messages`,
          [channelId, day, bytes, quota.messagesPerDay, quota.bytesPerDay],
        );
        return (r as { rows: unknown[] }).rows.length > 0;
      }),
    prune: (workspaceId, before, batch = 500) =>
      q(async () => {
        let total = 0;
        for (;;) {
          const due = db('messages')
            .select('id')
            .where({ workspace_id: workspaceId })
            .andWhere('created_at', '<', before)
            .whereNull('next_attempt_at')
            .limit(batch);
          const deleted = (await db('messages').whereIn('id', due).delete('id')).length;
          total += deleted;
          if (deleted < batch) break;
        }
        await db('channel_intake_days').where('day', '<', before.toISOString().slice(0, 10)).delete();
        return total;
      }),
    sentIntoThread: (runId, threadId) =>
      q(async () =>
        Boolean(await db('messages').where({ run_id: runId, thread_id: threadId, direction: 'outbound' }).first('id')),
      ),
    claim: (now, leaseUntil, limit) =>
      q(async () => {
        const offered = limit * OFFERED_PER_CLAIMED;
        const res = await db.raw(CLAIM, [now, now, offered, offered, now, now, limit, leaseUntil]);
        return (res.rows as Record<string, unknown>[]).map(m.fromRow);
      }),
    renew: (id, attempt, leaseUntil) =>
      q(async () => (await held(id, attempt).update({ locked_until: leaseUntil }).returning('id')).length > 0),
    settle: (id, attempt, s) =>
      q(async () => {
        const set: Record<string, unknown> = {
          status: s.status,
          failures: s.failures,
          next_attempt_at: s.nextAttemptAt,
          locked_until: null,
          last_error: s.lastError,
          run_id: s.runId,
        };
        if (s.provider !== undefined) set.provider = json(s.provider);
        if (s.messageId !== undefined) set.message_id = s.messageId;
        return (await held(id, attempt).update(set).returning('id')).length > 0;
      }),
    handBack: (id, attempt, now) =>
      q(
        async () =>
          (await held(id, attempt).update({ locked_until: null, next_attempt_at: now }).returning('id')).length > 0,
      ),
    findByMessageId: (agentId, direction, messageId) =>
      q(async () => {
        const r = await db('messages').where({ agent_id: agentId, direction, message_id: messageId }).first();
        return r ? m.fromRow(r) : null;
      }),
    setStatus: (id, status, provider) =>
      q(
        async () =>
          void (await db('messages')
            .where({ id })
            .update({ status, provider: json(provider) })),
      ),
  };
}
