import type { Knex } from 'knex';
import type { Approval, ApprovalPolicy } from '../../domain/approvals/approval.entities.js';
import type { ApprovalRepo } from '../../domain/approvals/approval.ports.js';
import { q } from './pg-errors.js';
import { date, dateOrNull, json, parseJson } from './rows/mapping.js';

type Conn = Knex | Knex.Transaction;
type Row = Record<string, any>;

const approval = (r: Row): Approval => ({
  id: r.id,
  workspaceId: r.workspace_id,
  agentId: r.agent_id,
  runId: r.run_id,
  surface: r.surface,
  call: { id: r.tool_call_id, name: r.tool_name, arguments: r.arguments },
  resume: parseJson(r.resume),
  approverRole: r.approver_role,
  state: r.state,
  expiresAt: date(r.expires_at),
  decidedBy: r.decided_by ?? null,
  decidedAt: dateOrNull(r.decided_at),
  reason: r.reason ?? null,
  outcome: r.result == null ? null : parseJson(r.result),
  createdAt: date(r.created_at),
});

const policy = (r: Row): ApprovalPolicy => ({
  agentId: r.agent_id,
  tools: parseJson(r.tools),
  approverRole: r.approver_role,
  expirySeconds: Number(r.expiry_seconds),
  updatedAt: date(r.updated_at),
});

/** Approvals and agents' approval policies (issue 54). */
export function approvalRepo(db: Conn): ApprovalRepo {
  return {
    getPolicy: (agentId) =>
      q(async () => {
        const r = await db('approval_policies').where({ agent_id: agentId }).first();
        return r ? policy(r) : null;
      }),
    savePolicy: (p) =>
      q(async () => {
        if (!p.tools.length) return void (await db('approval_policies').where({ agent_id: p.agentId }).delete());
        await db('approval_policies')
          .insert({
            agent_id: p.agentId,
            tools: json(p.tools),
            approver_role: p.approverRole,
            expiry_seconds: p.expirySeconds,
            updated_at: p.updatedAt,
          })
          .onConflict('agent_id')
          .merge();
      }),
    insert: (a) =>
      q(async () => {
        await db('approvals').insert({
          id: a.id,
          workspace_id: a.workspaceId,
          agent_id: a.agentId,
          run_id: a.runId,
          surface: a.surface,
          tool_name: a.call.name,
          tool_call_id: a.call.id,
          arguments: a.call.arguments,
          resume: json(a.resume),
          approver_role: a.approverRole,
          state: a.state,
          expires_at: a.expiresAt,
          created_at: a.createdAt,
        });
      }),
    get: (id) =>
      q(async () => {
        const r = await db('approvals').where({ id }).first();
        return r ? approval(r) : null;
      }),
    findByRun: (runId) =>
      q(async () => {
        const r = await db('approvals').where({ run_id: runId }).first();
        return r ? approval(r) : null;
      }),
    list: (workspaceId, f) =>
      q(async () => {
        const b = db('approvals').where({ workspace_id: workspaceId });
        if (f.agentId) b.andWhere({ agent_id: f.agentId });
        if (f.state) b.andWhere({ state: f.state });
        const rows = await b
          .orderByRaw("case when state = 'PENDING' then 0 else 1 end")
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(f.first);
        return rows.map(approval);
      }),
    decide: (id, d) =>
      q(async () => {
        const n = await db('approvals')
          .where({ id, state: 'PENDING' })
          .update({ state: d.state, decided_by: d.decidedBy, decided_at: d.at, reason: d.reason });
        return Number(n) === 1;
      }),
    listExpired: (now, limit) =>
      q(async () =>
        (
          await db('approvals')
            .where({ state: 'PENDING' })
            .andWhere('expires_at', '<=', now)
            .orderBy('expires_at')
            .limit(limit)
        ).map(approval),
      ),
    saveOutcome: (id, outcome) =>
      q(
        async () =>
          void (await db('approvals')
            .where({ id })
            .update({ result: json(outcome) })),
      ),
  };
}
