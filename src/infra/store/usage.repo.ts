import type { Knex } from 'knex';
import type { DailyUsage } from '../../domain/admission/admission.entities.js';
import type { CreditScope, SlotRepo, SummedCharge, UsageRepo } from '../../domain/admission/admission.ports.js';
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
        return rs.map((r: any): DailyUsage => ({
          agentId: r.agent_id,
          day: r.day,
          credits: Number(r.credits),
          runs: Number(r.runs),
        }));
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
    chargeMany: (cs) =>
      q(async () => {
        if (cs.length === 0) return;
        const { sql, bindings } = summedCharges(cs);
        await db.raw(sql, bindings);
      }),
    largestRun: (agentId, fromDay) =>
      q(async () => {
        const [r] = await db('credit_usage')
          .where({ agent_id: agentId })
          .andWhere('day', '>=', fromDay)
          .max<{ m: number | null }[]>('max_run_credits as m');
        return Number(r?.m ?? 0);
      }),
  };
}

/** The upsert adding summed charges to their agents' days (one row per agent and day: ON CONFLICT cannot touch a row twice). */
function summedCharges(cs: SummedCharge[]): { sql: string; bindings: (string | number | null)[] } {
  const rows = cs.map(() => '(?, ?, ?, ?::date, ?::numeric, ?::int, ?::numeric)').join(', ');
  return {
    sql: `insert into credit_usage (agent_id, workspace_id, team_id, day, credits, runs, max_run_credits) values ${rows}
           on conflict (agent_id, day) do update set credits = credit_usage.credits + excluded.credits, runs = credit_usage.runs + excluded.runs,
             team_id = excluded.team_id, max_run_credits = greatest(credit_usage.max_run_credits, excluded.max_run_credits)`,
    bindings: cs.flatMap((c) => [c.agentId, c.workspaceId, c.teamId, c.day, c.credits, c.runs, c.maxRunCredits]),
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
    lockAgent: (agentId) =>
      q(async () => void (await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`admission:${agentId}`]))),
    lockLimit: (scope) =>
      q(async () => {
        const [cls, id] =
          'teamId' in scope ? [LOCK_CLASS.team, scope.teamId] : [LOCK_CLASS.workspace, scope.workspaceId];
        await db.raw('select pg_advisory_xact_lock(?::int, hashtext(?))', [cls, id]);
      }),
    countActive: (agentId, now) =>
      q(async () => {
        const [r] = await db('run_slots')
          .where({ agent_id: agentId, budget: false })
          .andWhere('expires_at', '>', now)
          .count<{ n: number }[]>('* as n');
        return Number(r?.n ?? 0);
      }),
    reserved: (scope, now) =>
      q(async () => {
        const [r] = await db('run_slots')
          .where(scopeWhere(scope))
          .andWhere('expires_at', '>', now)
          .sum<{ s: number | null }[]>('reserved_credits as s');
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
            budget: s.budget ?? false,
          })),
      ),
    acquire: (s, max, now) =>
      q(async () => {
        // A free number, picked at random so that concurrent admissions rarely race for the same
        // one. A lost race (the number was taken between the look and the insert) inserts nothing
        // and is tried again while a free number is seen: every lost race means another admission
        // took a number, so while none is released this ends within `max` tries.
        for (let attempt = 0; attempt < max + 8; attempt++) {
          const r = await db.raw(
            `with free as (
               select n from generate_series(0, ?::int - 1) as n
               where (select count(*) from run_slots where agent_id = ? and not budget and expires_at > ?) < ?::int
                 and not exists (select 1 from run_slots where agent_id = ? and slot_no = n and expires_at > ?)
               order by random() limit 1
             ), taken as (
               insert into run_slots (id, agent_id, workspace_id, team_id, instance_id, reserved_credits, expires_at, slot_no)
               select ?, ?, ?, ?, ?, ?::numeric, ?, n from free
               on conflict (agent_id, slot_no) do update set id = excluded.id, workspace_id = excluded.workspace_id, team_id = excluded.team_id,
                 instance_id = excluded.instance_id, reserved_credits = excluded.reserved_credits, expires_at = excluded.expires_at, created_at = now()
                 where run_slots.expires_at <= ?
               returning slot_no
             )
             select (select count(*) from free)::int as free, (select slot_no from taken limit 1) as taken`,
            [
              max,
              s.agentId,
              now,
              max,
              s.agentId,
              now,
              s.id,
              s.agentId,
              s.workspaceId,
              s.teamId,
              s.instanceId,
              s.reservedCredits,
              s.expiresAt,
              now,
            ],
          );
          const row = (r.rows ?? r)[0] as { free: number; taken: number | null };
          if (row.taken != null) return Number(row.taken);
          if (Number(row.free) === 0) return null;
        }
        return null;
      }),
    renew: (id, expiresAt) =>
      q(async () => void (await db('run_slots').where({ id }).update({ expires_at: expiresAt }))),
    renewMany: (ids, expiresAt) =>
      q(async () => void (ids.length && (await db('run_slots').whereIn('id', ids).update({ expires_at: expiresAt })))),
    release: (id) => q(async () => void (await db('run_slots').where({ id }).delete())),
    releaseMany: (ids) => q(async () => void (ids.length && (await db('run_slots').whereIn('id', ids).delete()))),
    resize: (id, reservedCredits, expiresAt) =>
      q(
        async () =>
          (await db('run_slots').where({ id }).update({ reserved_credits: reservedCredits, expires_at: expiresAt })) >
          0,
      ),
    spend: (id, charge) =>
      q(async () => {
        // One statement: the slice's decrease and the charge commit together.
        const { sql, bindings } = summedCharges([charge]);
        await db.raw(
          `with slice as (update run_slots set reserved_credits = greatest(0, reserved_credits - ?::numeric) where id = ?) ${sql}`,
          [charge.credits, id, ...bindings],
        );
      }),
    purgeExpired: (now) =>
      q(async () => (await db('run_slots').where('expires_at', '<=', now).delete().returning('id')).length),
  };
}
