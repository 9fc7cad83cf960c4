import type { Knex } from 'knex';
import type { DailyUsage } from '../../domain/entities.js';
import type { CreditScope, SlotRepo, UsageRepo } from '../../domain/ports.js';
import { q } from './pg-errors.js';

type Conn = Knex | Knex.Transaction;

async function sum(db: Conn, where: Record<string, string>, day: string): Promise<number> {
  const [r] = await db('credit_usage').where(where).andWhere('day', day).sum<{ s: number | null }[]>('credits as s');
  return Number(r?.s ?? 0);
}

export function usageRepo(db: Conn): UsageRepo {
  return {
    listByAgent: (agentId, fromDay) =>
      q(async () => {
        const rs = await db('credit_usage')
          .select(db.raw(`agent_id, to_char(day, 'YYYY-MM-DD') as day, credits, runs`))
          .where({ agent_id: agentId })
          .andWhere('day', '>=', fromDay)
          .orderBy('day', 'desc');
        return rs.map((r: any): DailyUsage => ({ agentId: r.agent_id, day: r.day, credits: Number(r.credits), runs: Number(r.runs) }));
      }),
    listByWorkspace: (workspaceId, fromDay) =>
      q(async () => {
        const rs = await db('credit_usage')
          .select(db.raw(`to_char(day, 'YYYY-MM-DD') as day, sum(credits) as credits, sum(runs) as runs`))
          .where({ workspace_id: workspaceId })
          .andWhere('day', '>=', fromDay)
          .groupBy('day')
          .orderBy('day', 'desc');
        return rs.map((r: any) => ({ day: r.day, credits: Number(r.credits), runs: Number(r.runs) }));
      }),
    agentDay: (agentId, day) => q(() => sum(db, { agent_id: agentId }, day)),
    teamDay: (teamId, day) => q(() => sum(db, { team_id: teamId }, day)),
    workspaceDay: (workspaceId, day) => q(() => sum(db, { workspace_id: workspaceId }, day)),
    charge: (c) =>
      q(async () => {
        await db.raw(
          `insert into credit_usage (agent_id, workspace_id, team_id, day, credits, runs, max_run_credits) values (?, ?, ?, ?, ?, 1, ?)
           on conflict (agent_id, day) do update set credits = credit_usage.credits + excluded.credits, runs = credit_usage.runs + 1, team_id = excluded.team_id,
             max_run_credits = greatest(credit_usage.max_run_credits, excluded.max_run_credits)`,
          [c.agentId, c.workspaceId, c.teamId, c.day, c.credits, c.credits],
        );
      }),
    largestRun: (agentId, fromDay) =>
      q(async () => {
        const [r] = await db('credit_usage').where({ agent_id: agentId }).andWhere('day', '>=', fromDay).max<{ m: number | null }[]>('max_run_credits as m');
        return Number(r?.m ?? 0);
      }),
  };
}

/** The column a credit scope filters leases on. */
function scopeWhere(scope: CreditScope): Record<string, string> {
  if ('agentId' in scope) return { agent_id: scope.agentId };
  if ('teamId' in scope) return { team_id: scope.teamId };
  return { workspace_id: scope.workspaceId };
}

// Advisory lock classes of the two-key form (a key space apart from lockAgent's one-key locks), so a
// team and a workspace with colliding hashes never share a lock.
const LOCK_CLASS = { team: 1, workspace: 2 } as const;

export function slotRepo(db: Conn): SlotRepo {
  return {
    // A transaction-scoped advisory lock: admissions of one agent take turns, on every instance.
    lockAgent: (agentId) => q(async () => void (await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`admission:${agentId}`]))),
    lockLimit: (scope) =>
      q(async () => {
        const [cls, id] = 'teamId' in scope ? [LOCK_CLASS.team, scope.teamId] : [LOCK_CLASS.workspace, scope.workspaceId];
        await db.raw('select pg_advisory_xact_lock(?::int, hashtext(?))', [cls, id]);
      }),
    countActive: (agentId, now) =>
      q(async () => {
        const [r] = await db('run_slots').where({ agent_id: agentId }).andWhere('expires_at', '>', now).count<{ n: number }[]>('* as n');
        return Number(r?.n ?? 0);
      }),
    reserved: (scope, now) =>
      q(async () => {
        const [r] = await db('run_slots').where(scopeWhere(scope)).andWhere('expires_at', '>', now).sum<{ s: number | null }[]>('reserved_credits as s');
        return Number(r?.s ?? 0);
      }),
    insert: (s) =>
      q(
        async () =>
          void (await db('run_slots').insert({
            id: s.id,
            agent_id: s.agentId,
            workspace_id: s.workspaceId,
            team_id: s.teamId,
            instance_id: s.instanceId,
            reserved_credits: s.reservedCredits,
            expires_at: s.expiresAt,
          })),
      ),
    renew: (id, expiresAt) => q(async () => void (await db('run_slots').where({ id }).update({ expires_at: expiresAt }))),
    release: (id) => q(async () => void (await db('run_slots').where({ id }).delete())),
    purgeExpired: (now) => q(async () => (await db('run_slots').where('expires_at', '<=', now).delete().returning('id')).length),
  };
}
