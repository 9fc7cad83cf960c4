import type { Knex } from 'knex';
import type { ModelMessage } from '../../domain/models/language-model.ports.js';
import type { ResponseRepo, StoredResponse } from '../../domain/surfaces/openai.ports.js';
import { storable } from '../activity/buffered-sink.js';
import { q } from './pg-errors.js';
import { date, json, parseJson } from './rows/mapping.js';

type Conn = Knex | Knex.Transaction;

const stored = (r: Record<string, any>): StoredResponse => ({
  id: r.id,
  agentId: r.agent_id,
  callerRef: r.caller_ref ?? null,
  previousResponseId: r.previous_response_id ?? null,
  context: parseJson(r.context) as ModelMessage[],
  chained: r.chained === true,
  body: parseJson(r.body),
  createdAt: date(r.created_at),
});

/** Stored responses of the OpenAI-compatible API. */
export function responseRepo(db: Conn): ResponseRepo {
  return {
    get: (id) =>
      q(async () => {
        const r = await db('openai_responses').where({ id }).first();
        return r ? stored(r) : null;
      }),
    insert: (r) =>
      q(async () => {
        await db('openai_responses').insert({
          id: r.id,
          agent_id: r.agentId,
          caller_ref: r.callerRef,
          previous_response_id: r.previousResponseId,
          chained: r.chained,
          // A caller's text may hold U+0000 or a lone surrogate, which jsonb cannot store.
          context: json(storable(r.context)),
          body: json(storable(r.body)),
          created_at: r.createdAt,
        });
      }),
    // Counted by the ids returned: the embedded driver reports no row count for a DELETE.
    delete: (id, agentId, callerRef) =>
      q(
        async () =>
          (
            await db('openai_responses')
              .where({ id, agent_id: agentId, caller_ref: callerRef })
              .delete()
              .returning('id')
          ).length > 0,
      ),
    // One statement: a recursive walk back along previous_response_id, bounded by `max`.
    chain: (id, agentId, callerRef, max) =>
      q(async () => {
        const { rows } = await db.raw(
          `with recursive chain as (
             select id, previous_response_id, context, chained, 1 as depth from openai_responses
             where id = :id and agent_id = :agentId and caller_ref = :callerRef
             union all
             select r.id, r.previous_response_id, r.context, r.chained, c.depth + 1 from openai_responses r
             join chain c on r.id = c.previous_response_id
             where c.chained and c.depth < :max and r.agent_id = :agentId and r.caller_ref = :callerRef
           )
           select id, previous_response_id, context, chained from chain order by depth`,
          { id, agentId, callerRef, max },
        );
        return (rows as Record<string, any>[]).map((r) => ({
          id: r.id,
          previousResponseId: r.previous_response_id ?? null,
          context: parseJson(r.context) as ModelMessage[],
          chained: r.chained === true,
        }));
      }),
    pruneBefore: (before, limit) =>
      q(
        async () =>
          (
            await db('openai_responses')
              .whereIn('id', db('openai_responses').select('id').where('created_at', '<', before).limit(limit))
              .delete()
              .returning('id')
          ).length,
      ),
  };
}
