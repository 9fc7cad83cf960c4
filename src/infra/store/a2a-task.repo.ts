import type { Knex } from 'knex';
import { FINAL_TASK_STATES, type A2aTaskRepo, type StoredTask } from '../../domain/surfaces/a2a/a2a.ports.js';
import { storable } from '../activity/buffered-sink.js';
import { q } from './pg-errors.js';
import { date, json, parseJson } from './rows/mapping.js';

type Conn = Knex | Knex.Transaction;

const stored = (r: Record<string, any>): StoredTask => ({
  id: r.id,
  agentId: r.agent_id,
  callerRef: r.caller_ref ?? null,
  contextId: r.context_id,
  state: r.state,
  task: parseJson(r.task),
  createdAt: date(r.created_at),
  updatedAt: date(r.updated_at),
});

/** Tasks of the A2A server. */
export function a2aTaskRepo(db: Conn): A2aTaskRepo {
  return {
    get: (id) =>
      q(async () => {
        const r = await db('a2a_tasks').where({ id }).first();
        return r ? stored(r) : null;
      }),
    save: (t) =>
      q(async () => {
        const row = {
          id: t.id,
          agent_id: t.agentId,
          caller_ref: t.callerRef,
          context_id: t.contextId,
          state: t.state,
          task: json(storable(t.task)),
          updated_at: t.updatedAt,
        };
        // One statement: the guard against another agent's or caller's task and against a final state is part of the write.
        await db.raw(
          `insert into a2a_tasks (id, agent_id, caller_ref, context_id, state, task, created_at, updated_at)
           values (:id, :agent_id, :caller_ref, :context_id, :state, cast(:task as jsonb), :updated_at, :updated_at)
           on conflict (id) do update set context_id = excluded.context_id, state = excluded.state, task = excluded.task, updated_at = excluded.updated_at
           where a2a_tasks.agent_id = excluded.agent_id and a2a_tasks.caller_ref = excluded.caller_ref and a2a_tasks.state not in (${FINAL_TASK_STATES.map((s) => `'${s}'`).join(', ')})`,
          row,
        );
      }),
    list: (scope, l) =>
      q(async () => {
        const where = (b: Knex.QueryBuilder) => {
          b.where({ agent_id: scope.agentId, caller_ref: scope.callerRef });
          if (l.contextId !== undefined) b.andWhere({ context_id: l.contextId });
          if (l.state !== undefined) b.andWhere({ state: l.state });
        };
        const rows = await db('a2a_tasks')
          .where(where)
          .orderBy([
            { column: 'updated_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(l.limit)
          .offset(l.offset);
        const [{ n }] = await db('a2a_tasks').where(where).count({ n: '*' });
        return { tasks: rows.map(stored), total: Number(n) };
      }),
    pruneFinalBefore: (before, limit) =>
      q(async () => {
        const due = db('a2a_tasks')
          .select('id')
          .whereIn('state', FINAL_TASK_STATES)
          .andWhere('updated_at', '<', before)
          .limit(limit);
        const rows = await db('a2a_tasks')
          .whereIn('id', due)
          .delete()
          .returning(['agent_id', 'caller_ref', 'context_id']);
        return rows.map((r: Record<string, any>) => ({
          agentId: r.agent_id,
          callerRef: r.caller_ref ?? null,
          contextId: r.context_id,
        }));
      }),
    contextHasTasks: (c) =>
      q(async () => {
        const r = await db('a2a_tasks')
          .select('id')
          .where({ agent_id: c.agentId, context_id: c.contextId })
          .andWhere((b) => (c.callerRef === null ? b.whereNull('caller_ref') : b.where({ caller_ref: c.callerRef })))
          .first();
        return r !== undefined;
      }),
  };
}
