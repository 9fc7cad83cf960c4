import type { Knex } from 'knex';
import type { ChatTurn, Conversation } from '../../domain/chat/chat.entities.js';
import type { ConversationRepo } from '../../domain/chat/chat.ports.js';
import { q } from './pg-errors.js';
import { date } from './rows/mapping.js';

type Conn = Knex | Knex.Transaction;

const conversation = (r: Record<string, any>): Conversation => ({
  id: r.id,
  agentId: r.agent_id,
  visitorId: r.visitor_id ?? null,
  createdAt: date(r.created_at),
  updatedAt: date(r.updated_at),
});

const turn = (r: Record<string, any>): ChatTurn => ({
  id: r.id,
  conversationId: r.conversation_id,
  role: r.role,
  content: r.content,
  runId: r.run_id ?? null,
  createdAt: date(r.created_at),
});

/** Conversations of the chat surface and their turns. */
export function conversationRepo(db: Conn): ConversationRepo {
  return {
    get: (id) =>
      q(async () => {
        const r = await db('conversations').where({ id }).first();
        return r ? conversation(r) : null;
      }),
    insert: (c) =>
      q(async () => {
        const [r] = await db('conversations')
          .insert({
            id: c.id,
            agent_id: c.agentId,
            visitor_id: c.visitorId,
            created_at: c.createdAt,
            updated_at: c.updatedAt,
          })
          .returning('*');
        return conversation(r);
      }),
    recentTurns: (conversationId, limit) =>
      q(async () => {
        const rs = await db('chat_turns')
          .where({ conversation_id: conversationId })
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(limit);
        return rs.map(turn).reverse();
      }),
    addTurns: (conversationId, turns, at) =>
      q(async () => {
        if (turns.length) {
          await db('chat_turns').insert(
            turns.map((t) => ({
              id: t.id,
              conversation_id: conversationId,
              role: t.role,
              content: t.content,
              run_id: t.runId,
              created_at: t.createdAt,
            })),
          );
        }
        await db('conversations').where({ id: conversationId }).update({ updated_at: at });
      }),
    // The turns go with it (on delete cascade); counted by the ids returned, as the embedded driver reports no row count.
    delete: (id) => q(async () => (await db('conversations').where({ id }).delete().returning('id')).length > 0),
  };
}
