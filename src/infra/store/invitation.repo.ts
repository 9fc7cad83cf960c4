import type { Knex } from 'knex';
import type { InvitationRepo } from '../../domain/accounts/account.ports.js';
import { q } from './pg-errors.js';
import { invitations as m } from './rows/invitations.js';

/** Invitations: an open one is neither accepted nor revoked; a pending one is also not expired. */
export function invitationRepo(db: Knex | Knex.Transaction): InvitationRepo {
  const open = () => db('invitations').whereNull('accepted_at').whereNull('revoked_at');
  return {
    insert: (e) => q(async () => m.fromRow((await db('invitations').insert(m.toRow(e)).returning('*'))[0])),
    get: (id) =>
      q(async () => {
        const r = await db('invitations').where({ id }).first();
        return r ? m.fromRow(r) : null;
      }),
    findByHash: (hash) =>
      q(async () => {
        const r = await db('invitations').where({ token_hash: hash }).first();
        return r ? m.fromRow(r) : null;
      }),
    listPending: (workspaceId, now) =>
      q(async () =>
        (
          await open()
            .where({ workspace_id: workspaceId })
            .where('expires_at', '>', now)
            .orderBy([
              { column: 'created_at', order: 'desc' },
              { column: 'id', order: 'desc' },
            ])
        ).map(m.fromRow),
      ),
    revokeOpen: (workspaceId, email, at) =>
      q(
        async () =>
          (
            await open()
              .where({ workspace_id: workspaceId })
              .whereRaw('lower(email) = lower(?)', [email])
              .update({ revoked_at: at })
              .returning('id')
          ).length,
      ),
    markAccepted: (id, at) =>
      q(async () => (await open().where({ id }).update({ accepted_at: at }).returning('id')).length > 0),
    revoke: (id, at) =>
      q(async () => (await open().where({ id }).update({ revoked_at: at }).returning('id')).length > 0),
  };
}
