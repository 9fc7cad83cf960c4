import type { Knex } from 'knex';
import type { Repositories, Store } from '../../domain/ports.js';
import type { AgentChildRepo, CrudRepo } from '../../domain/repo.ports.js';
import { conversationRepo } from './conversation.repo.js';
import { responseRepo } from './response.repo.js';
import { mcpGrantRepo } from './mcp-grant.repo.js';
import { approvalRepo } from './approval.repo.js';
import { a2aTaskRepo } from './a2a-task.repo.js';
import { deliveryRepo } from './delivery.repo.js';
import { eventDeliveryRepo, eventSubscriptionRepo } from './event.repo.js';
import { scheduleRepo } from './schedule.repo.js';
import { channelMessageRepo } from './channel-message.repo.js';
import { activityRepo } from './activity.repo.js';
import { recordRepo } from './record.repo.js';
import { slotRepo, usageRepo } from './usage.repo.js';
import { workspaceReadRepo } from './workspace-read.repo.js';
import { accountIdentityRepo, accountRepo, workspaceSummaries } from './account.repo.js';
import { invitationRepo } from './invitation.repo.js';
import { q, translated } from './pg-errors.js';
import * as rows from './rows/index.js';

type Conn = Knex | Knex.Transaction;

function crud<T extends { id: string }>(db: Conn, m: rows.Mapping<T>): CrudRepo<T> {
  return {
    get: (id) =>
      q(async () => {
        const r = await db(m.table).where({ id }).first();
        return r ? m.fromRow(r) : null;
      }),
    insert: (e) =>
      q(async () => {
        const [r] = await db(m.table).insert(m.toRow(e)).returning('*');
        return m.fromRow(r);
      }),
    update: (e) =>
      q(async () => {
        const { id, ...rest } = m.toRow(e);
        const [r] = await db(m.table).where({ id }).update(rest).returning('*');
        return m.fromRow(r ?? m.toRow(e));
      }),
    // returning() gives the same answer on pg and PGlite (whose affected-row count differs).
    delete: (id) => q(async () => (await db(m.table).where({ id }).delete().returning('id')).length > 0),
  };
}

function agentChild<T extends { id: string; agentId: string }>(db: Conn, m: rows.Mapping<T>): AgentChildRepo<T> {
  return {
    ...crud(db, m),
    listByAgents: (agentIds) =>
      q(async () => {
        if (agentIds.length === 0) return [];
        const rs = await db(m.table)
          .whereIn('agent_id', agentIds as string[])
          .orderBy([{ column: 'created_at' }, { column: 'id' }]);
        return rs.map(m.fromRow);
      }),
  };
}

function findOne<T>(db: Conn, m: rows.Mapping<T>, where: Record<string, unknown>) {
  return q(async () => {
    const r = await db(m.table).where(where).first();
    return r ? m.fromRow(r) : null;
  });
}

function list<T>(db: Conn, m: rows.Mapping<T>, where: Record<string, unknown>, order = 'created_at') {
  return q(async () =>
    (
      await db(m.table)
        .where(where)
        .orderBy([{ column: order }, { column: 'id' }])
    ).map(m.fromRow),
  );
}

/** Repositories bound to one connection or transaction. */
export function repositories(db: Conn): Repositories {
  return {
    workspaces: {
      ...crud(db, rows.workspaces),
      listAll: () => list(db, rows.workspaces, {}),
      findBySlug: (slug) => findOne(db, rows.workspaces, { slug }),
      summaries: (day) => workspaceSummaries(db, day),
      first: () =>
        q(async () => {
          const r = await db('workspaces').orderBy('created_at').first();
          return r ? rows.workspaces.fromRow(r) : null;
        }),
    },
    teams: {
      ...crud(db, rows.teams),
      listByWorkspace: (workspaceId) => list(db, rows.teams, { workspace_id: workspaceId }),
    },
    members: {
      ...crud(db, rows.members),
      listByWorkspace: (workspaceId) => list(db, rows.members, { workspace_id: workspaceId }),
      findByEmail: (workspaceId, email) => findOne(db, rows.members, { workspace_id: workspaceId, email }),
      listByAccount: (accountId) => list(db, rows.members, { account_id: accountId }),
      findByAccount: (workspaceId, accountId) =>
        findOne(db, rows.members, { workspace_id: workspaceId, account_id: accountId }),
    },
    accounts: accountRepo(db),
    accountIdentities: accountIdentityRepo(db),
    memberTokens: {
      ...crud(db, rows.memberTokens),
      findByHash: (hash) => findOne(db, rows.memberTokens, { token_hash: hash }),
      findByName: (memberId, name) => findOne(db, rows.memberTokens, { member_id: memberId, name }),
      listByMember: (memberId) => list(db, rows.memberTokens, { member_id: memberId }),
      revoke: (id, at) =>
        q(
          async () => void (await db('member_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: at })),
        ),
      touch: (id, at) => q(async () => void (await db('member_tokens').where({ id }).update({ last_used_at: at }))),
    },
    consoleSessions: {
      insert: (e) =>
        q(async () =>
          rows.consoleSessions.fromRow(
            (await db('console_sessions').insert(rows.consoleSessions.toRow(e)).returning('*'))[0],
          ),
        ),
      findByHash: (hash) => findOne(db, rows.consoleSessions, { session_hash: hash }),
      get: (id) => findOne(db, rows.consoleSessions, { id }),
      setMember: (id, memberId) =>
        q(async () => void (await db('console_sessions').where({ id }).update({ member_id: memberId }))),
      touch: (id, at) => q(async () => void (await db('console_sessions').where({ id }).update({ last_seen_at: at }))),
      revoke: (id, at) =>
        q(
          async () =>
            void (await db('console_sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: at })),
        ),
      revokeByToken: (tokenId, at) =>
        q(
          async () =>
            (
              await db('console_sessions')
                .where({ token_id: tokenId })
                .whereNull('revoked_at')
                .update({ revoked_at: at })
                .returning('id')
            ).length,
        ),
      deleteEndedBefore: (before) =>
        q(
          async () =>
            (
              await db('console_sessions')
                .where('last_seen_at', '<', before)
                .orWhere('revoked_at', '<', before)
                .delete()
                .returning('id')
            ).length,
        ),
    },
    agents: {
      ...crud(db, rows.agents),
      listByWorkspace: (workspaceId) => list(db, rows.agents, { workspace_id: workspaceId }),
      getMany: (ids) =>
        q(async () => (ids.length ? (await db('agents').whereIn('id', ids as string[])).map(rows.agents.fromRow) : [])),
    },
    apiKeys: {
      ...crud(db, rows.apiKeys),
      listByAgents: (agentIds) =>
        q(async () =>
          agentIds.length
            ? (
                await db('api_keys')
                  .whereIn('agent_id', agentIds as string[])
                  .orderBy([{ column: 'created_at' }, { column: 'id' }])
              ).map(rows.apiKeys.fromRow)
            : [],
        ),
      findByHash: (hash) => findOne(db, rows.apiKeys, { key_hash: hash }),
      listWorkspaceKeys: (workspaceId) => list(db, rows.apiKeys, { workspace_id: workspaceId, kind: 'WORKSPACE' }),
      revoke: (id, at) =>
        q(async () => void (await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: at }))),
      touch: (id, at) => q(async () => void (await db('api_keys').where({ id }).update({ last_used_at: at }))),
      revokeByConsoleSession: (sessionId, at, agentId) =>
        q(async () =>
          (
            await db('api_keys')
              .where({ console_session_id: sessionId, ...(agentId ? { agent_id: agentId } : {}) })
              .whereNull('revoked_at')
              .update({ revoked_at: at })
              .returning('id')
          ).map((r: { id: string }) => r.id),
        ),
      revokeByTokenSessions: (tokenId, at) =>
        q(async () =>
          (
            await db('api_keys')
              .whereIn('console_session_id', db('console_sessions').select('id').where({ token_id: tokenId }))
              .whereNull('revoked_at')
              .update({ revoked_at: at })
              .returning('id')
          ).map((r: { id: string }) => r.id),
        ),
      revokeByAccountSessions: (accountId, workspaceId, at) =>
        q(async () =>
          (
            await db('api_keys')
              .where({ workspace_id: workspaceId })
              .whereIn('console_session_id', db('console_sessions').select('id').where({ account_id: accountId }))
              .whereNull('revoked_at')
              .update({ revoked_at: at })
              .returning('id')
          ).map((r: { id: string }) => r.id),
        ),
    },
    invitations: invitationRepo(db),
    httpEndpoints: agentChild(db, rows.httpEndpoints),
    mcpTools: agentChild(db, rows.mcpTools),
    webhooks: agentChild(db, rows.webhooks),
    channels: {
      ...agentChild(db, rows.channels),
      findByAddress: (kind, address) => findOne(db, rows.channels, { kind, address }),
    },
    deliveries: deliveryRepo(db),
    eventSubscriptions: eventSubscriptionRepo(db),
    eventDeliveries: eventDeliveryRepo(db),
    schedules: scheduleRepo(db, agentChild(db, rows.schedules)),
    conversations: conversationRepo(db),
    responses: responseRepo(db),
    a2aTasks: a2aTaskRepo(db),
    approvals: approvalRepo(db),
    mcpGrants: mcpGrantRepo(db),
    documents: agentChild(db, rows.documents),
    exposures: {
      ...agentChild(db, rows.exposures),
      find: (agentId, documentId) => findOne(db, rows.exposures, { agent_id: agentId, document_id: documentId }),
    },
    records: recordRepo(db),
    secrets: {
      ...crud(db, rows.secrets),
      findByName: (workspaceId, name) => findOne(db, rows.secrets, { workspace_id: workspaceId, name }),
      listByWorkspace: (workspaceId) => list(db, rows.secrets, { workspace_id: workspaceId }, 'name'),
    },
    models: {
      ...crud(db, rows.models),
      findByName: (workspaceId, name) => findOne(db, rows.models, { workspace_id: workspaceId, name }),
      listByWorkspace: (workspaceId) => list(db, rows.models, { workspace_id: workspaceId }, 'name'),
      clearDefault: (workspaceId) =>
        q(
          async () =>
            void (await db('models')
              .where({ workspace_id: workspaceId, is_default: true })
              .update({ is_default: false })),
        ),
    },
    messages: { ...crud(db, rows.messages), ...channelMessageRepo(db) },
    activity: activityRepo(db),
    agentChanges: {
      lockWorkspace: (workspaceId) =>
        q(
          async () =>
            void (await db.raw('select pg_advisory_xact_lock(hashtext(?))', [`manifest-apply:${workspaceId}`])),
        ),
      insert: (c) => q(async () => void (await db('agent_changes').insert(rows.agentChanges.toRow(c)))),
      listByAgent: (agentId, first) =>
        q(async () =>
          (
            await db('agent_changes')
              .where({ agent_id: agentId })
              .orderBy([
                { column: 'created_at', order: 'desc' },
                { column: 'id', order: 'desc' },
              ])
              .limit(first)
          ).map(rows.agentChanges.fromRow),
        ),
    },
    usage: usageRepo(db),
    slots: slotRepo(db),
    workspaceRead: workspaceReadRepo(db),
  };
}

/** The knex-backed Store (PGlite or PostgreSQL). */
export function knexStore(db: Knex): Store {
  return {
    repos: translated(repositories(db)),
    // Failures of the transaction itself (no connection for BEGIN, a connection lost at COMMIT) are
    // translated like a statement's: an unreachable database is Unavailable inside or out.
    transaction: (fn) => q(() => db.transaction((trx) => fn(translated(repositories(trx))))),
    ping: async () => {
      try {
        await db.raw('select 1');
        return true;
      } catch {
        return false;
      }
    },
  };
}
