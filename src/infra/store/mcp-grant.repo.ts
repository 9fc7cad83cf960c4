import type { Knex } from 'knex';
import type { McpGrant, McpGrantRepo } from '../../domain/mcp-oauth/mcp-grant.entities.js';
import { q } from './pg-errors.js';
import { date } from './rows/mapping.js';

type Conn = Knex | Knex.Transaction;

const grant = (r: Record<string, any>): McpGrant => ({
  id: r.id,
  workspaceId: r.workspace_id,
  agentId: r.agent_id,
  memberId: r.member_id,
  memberTokenId: r.member_token_id ?? null,
  clientId: r.client_id,
  clientName: r.client_name ?? null,
  redirectHost: r.redirect_host ?? null,
  createdAt: date(r.created_at),
  lastUsedAt: r.last_used_at ? date(r.last_used_at) : null,
});

const NEWEST_FIRST = [
  { column: 'created_at', order: 'desc' as const },
  { column: 'id', order: 'desc' as const },
];

/** Members' approvals of OAuth clients for agents' MCP servers. */
export function mcpGrantRepo(db: Conn): McpGrantRepo {
  // As delete, for every grant a member token (or a member) approved: the clients allowed through
  // them are signed out with them.
  const deleteWhere = async (where: Record<string, string>) => {
    const ids: string[] = (await db('mcp_grants').where(where).select('id')).map((r: { id: string }) => r.id);
    if (!ids.length) return 0;
    await db('oauth_records').whereIn('grant_id', ids).delete();
    await db('oauth_records').where({ model: 'Grant' }).whereIn('id', ids).delete();
    return (await db('mcp_grants').whereIn('id', ids).delete().returning('id')).length;
  };
  return {
    insert: (g) =>
      q(async () => {
        await db('mcp_grants').insert({
          id: g.id,
          workspace_id: g.workspaceId,
          agent_id: g.agentId,
          member_id: g.memberId,
          member_token_id: g.memberTokenId,
          client_id: g.clientId,
          client_name: g.clientName,
          redirect_host: g.redirectHost,
          created_at: g.createdAt,
          last_used_at: g.lastUsedAt,
        });
      }),
    get: (id) =>
      q(async () => {
        const r = await db('mcp_grants').where({ id }).first();
        return r ? grant(r) : null;
      }),
    listByAgent: (agentId) =>
      q(async () => (await db('mcp_grants').where({ agent_id: agentId }).orderBy(NEWEST_FIRST)).map(grant)),
    listByAgents: (agentIds) =>
      q(async () =>
        agentIds.length ? (await db('mcp_grants').whereIn('agent_id', agentIds).orderBy(NEWEST_FIRST)).map(grant) : [],
      ),
    // The grant's row, and with it everything the authorization server keeps under that grant (its
    // own grant record, codes, access and refresh tokens): one transaction, so a revoked grant
    // leaves no token behind.
    delete: (id) =>
      q(() =>
        db.transaction(async (trx) => {
          await trx('oauth_records').where({ grant_id: id }).orWhere({ model: 'Grant', id }).delete();
          // The removed ids, not a count: the embedded driver answers a delete with a result object.
          return (await trx('mcp_grants').where({ id }).delete().returning('id')).length > 0;
        }),
      ),
    deleteByMemberToken: (tokenId) => q(() => deleteWhere({ member_token_id: tokenId })),
    deleteByMember: (memberId) => q(() => deleteWhere({ member_id: memberId })),
    touch: (id, at) =>
      q(async () => {
        await db('mcp_grants').where({ id }).update({ last_used_at: at });
      }),
  };
}
