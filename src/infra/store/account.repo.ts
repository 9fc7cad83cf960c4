import type { Knex } from 'knex';
import type { AccountIdentityRepo } from '../../domain/accounts/sso.ports.js';
import type { AccountRepo } from '../../domain/workspace/workspace.ports.js';
import type { WorkspaceSummary } from '../../domain/workspace/workspace.entities.js';
import { q } from './pg-errors.js';
import { accountIdentities, accounts as m } from './rows/accounts.js';
import { workspaces } from './rows/workspaces.js';

type Conn = Knex | Knex.Transaction;

/** People: one account per email (compared case-insensitively), with the sign-in lockout counters. */
export function accountRepo(db: Conn): AccountRepo {
  const one = async (where: Knex.QueryBuilder) => {
    const r = await where.first();
    return r ? m.fromRow(r) : null;
  };
  return {
    get: (id) => q(() => one(db('accounts').where({ id }))),
    insert: (e) => q(async () => m.fromRow((await db('accounts').insert(m.toRow(e)).returning('*'))[0])),
    update: (e) =>
      q(async () => {
        const { id, ...rest } = m.toRow(e);
        const [r] = await db('accounts').where({ id }).update(rest).returning('*');
        return m.fromRow(r ?? m.toRow(e));
      }),
    delete: (id) => q(async () => (await db('accounts').where({ id }).delete().returning('id')).length > 0),
    findByEmail: (email) => q(() => one(db('accounts').whereRaw('lower(email) = lower(?)', [email]))),
    count: () => q(async () => Number((await db('accounts').count({ n: '*' }).first())?.n ?? 0)),
    recordFailedSignIn: (id, lockedUntil) =>
      q(async () => {
        const [r] = await db('accounts')
          .where({ id })
          .update({ failed_sign_ins: db.raw('failed_sign_ins + 1'), locked_until: lockedUntil })
          .returning('failed_sign_ins');
        return Number(r?.failed_sign_ins ?? 0);
      }),
    resetFailedSignIns: (id) =>
      q(async () => void (await db('accounts').where({ id }).update({ failed_sign_ins: 0, locked_until: null }))),
    setLastWorkspace: (id, workspaceId) =>
      q(async () => void (await db('accounts').where({ id }).update({ last_workspace_id: workspaceId }))),
  };
}

/** OpenID Connect identities (issuer + subject) linked to accounts. */
export function accountIdentityRepo(db: Conn): AccountIdentityRepo {
  return {
    insert: (e) =>
      q(async () =>
        accountIdentities.fromRow(
          (await db('account_identities').insert(accountIdentities.toRow(e)).returning('*'))[0],
        ),
      ),
    findBySubject: (issuer, subject) =>
      q(async () => {
        const r = await db('account_identities').where({ issuer, subject }).first();
        return r ? accountIdentities.fromRow(r) : null;
      }),
    listByAccount: (accountId) =>
      q(async () =>
        (
          await db('account_identities')
            .where({ account_id: accountId })
            .orderBy([{ column: 'created_at' }, { column: 'id' }])
        ).map(accountIdentities.fromRow),
      ),
  };
}

/** Every workspace with its member and agent counts and the credits of `day`, oldest first (the operator's list). */
export function workspaceSummaries(db: Conn, day: string): Promise<WorkspaceSummary[]> {
  return q(async () => {
    const rs = await db('workspaces as w')
      .select(
        'w.*',
        db.raw('(select count(*) from members m where m.workspace_id = w.id) as member_count'),
        db.raw('(select count(*) from agents a where a.workspace_id = w.id) as agent_count'),
        db.raw(
          '(select coalesce(sum(u.credits), 0) from credit_usage u where u.workspace_id = w.id and u.day = ?) as credits_today',
          [day],
        ),
      )
      .orderBy([{ column: 'w.created_at' }, { column: 'w.id' }]);
    return rs.map((r) => ({
      workspace: workspaces.fromRow(r),
      members: Number(r.member_count),
      agents: Number(r.agent_count),
      creditsToday: Number(r.credits_today),
    }));
  });
}
