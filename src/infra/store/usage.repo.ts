import type { Knex } from 'knex';
import type { DailyUsage } from '../../domain/model.js';
import type { SlotRepo, UsageRepo } from '../../domain/ports.js';
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
          `insert into credit_usage (agent_id, workspace_id, team_id, day, credits, runs) values (?, ?, ?, ?, ?, 1)
           on conflict (agent_id, day) do update set credits = credit_usage.credits + excluded.credits, runs = credit_usage.runs + 1, team_id = excluded.team_id`,
          [c.agentId, c.workspaceId, c.teamId, c.day, c.credits],
        );
      }),
  };
}

export function slotRepo(db: Conn): SlotRepo {
  return {
    // A transaction-scoped advisory lock: admissions of one agent take turns, on every instance.
    lockAgent: (agentId) => q(async () => void (await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`admission:${agentId}`]))),
    countActive: (agentId, now) =>
      q(async () => {
        const [r] = await db('run_slots').where({ agent_id: agentId }).andWhere('expires_at', '>', now).count<{ n: number }[]>('* as n');
        return Number(r?.n ?? 0);
      }),
    insert: (s) => q(async () => void (await db('run_slots').insert({ id: s.id, agent_id: s.agentId, instance_id: s.instanceId, expires_at: s.expiresAt }))),
    renew: (id, expiresAt) => q(async () => void (await db('run_slots').where({ id }).update({ expires_at: expiresAt }))),
    release: (id) => q(async () => void (await db('run_slots').where({ id }).delete())),
    purgeExpired: (now) => q(async () => (await db('run_slots').where('expires_at', '<=', now).delete().returning('id')).length),
  };
}
