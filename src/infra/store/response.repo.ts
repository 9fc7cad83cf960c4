import type { Knex } from 'knex';
import type { ModelMessage } from '../../domain/runtime/language-model.ports.js';
import type { ResponseRepo, StoredResponse } from '../../domain/surfaces/openai/openai.ports.js';
import { storable } from '../activity/buffered-sink.js';
import { q } from './pg-errors.js';
import { date, json, parseJson } from './rows/mapping.js';

type Conn = Knex | Knex.Transaction;

const stored = (r: Record<string, any>): StoredResponse => ({
  id: r.id,
  agentId: r.agent_id,
  previousResponseId: r.previous_response_id ?? null,
  context: parseJson(r.context) as ModelMessage[],
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
          previous_response_id: r.previousResponseId,
          // A caller's text may hold U+0000 or a lone surrogate, which jsonb cannot store.
          context: json(storable(r.context)),
          body: json(storable(r.body)),
          created_at: r.createdAt,
        });
      }),
    // Counted by the ids returned: the embedded driver reports no row count for a DELETE.
    delete: (id, agentId) => q(async () => (await db('openai_responses').where({ id, agent_id: agentId }).delete().returning('id')).length > 0),
    pruneBefore: (before, limit) =>
      q(async () => (await db('openai_responses').whereIn('id', db('openai_responses').select('id').where('created_at', '<', before).limit(limit)).delete().returning('id')).length),
  };
}
