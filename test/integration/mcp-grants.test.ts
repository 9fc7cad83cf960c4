import { expect } from 'chai';
import { Forbidden, NotFound } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { McpGrant } from '../../src/domain/mcp-oauth/mcp-grant.entities.js';
import type { Principal } from '../../src/domain/principal.js';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// The grants members gave OAuth clients for an agent's MCP server: listed on the agent (GraphQL,
// batched over agents), revoked by a member who can see the agent — and by nobody else.

const LIST = `query($a: ID!) { agent(id: $a) { mcpGrants { id clientId clientName redirectHost grantedBy { id name email } createdAt lastUsedAt } } }`;
const REVOKE = `mutation($a: ID!, $g: ID!) { revokeMcpGrant(agentId: $a, grantId: $g) }`;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a refusal');
}

describe('MCP grants: list and revoke', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let agentId: string;

  /** Stores a grant as the authorization server's consent step does, with a token record under it. */
  async function grant(agent: string, over: Partial<McpGrant> = {}): Promise<McpGrant> {
    const g: McpGrant = {
      id: newId('grt'),
      workspaceId: ws.workspaceId,
      agentId: agent,
      memberId: ws.adminId,
      memberTokenId: null,
      clientId: 'https://claude.ai/oauth/mcp-client.json',
      clientName: 'Claude',
      redirectHost: 'claude.ai',
      createdAt: new Date(),
      lastUsedAt: null,
      ...over,
    };
    await h().service.store.repos.mcpGrants.insert(g);
    await h()
      .db('oauth_records')
      .insert({ model: 'AccessToken', id: newId('tok'), payload: JSON.stringify({ grantId: g.id }), grant_id: g.id });
    return g;
  }
  const tokensOf = async (grantId: string) =>
    Number((await h().db('oauth_records').where({ grant_id: grantId }).count({ n: '*' }))[0]!.n);

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
  });

  it('lists an agent’s grants newest first, with the member who approved each', async () => {
    const member = await ws.addMember();
    const older = await grant(agentId, {
      createdAt: new Date(Date.now() - 60_000),
      clientName: null,
      redirectHost: null,
      memberId: member.memberId,
    });
    const newer = await grant(agentId, { lastUsedAt: new Date() });
    const d = await gqlOk(member.token, LIST, { a: agentId });
    expect(d.agent.mcpGrants.map((g: any) => g.id)).to.deep.equal([newer.id, older.id]);
    expect(d.agent.mcpGrants[0]).to.deep.include({
      clientId: newer.clientId,
      clientName: 'Claude',
      redirectHost: 'claude.ai',
    });
    expect(d.agent.mcpGrants[0].grantedBy).to.include({ id: ws.adminId });
    expect(d.agent.mcpGrants[0].lastUsedAt).to.be.a('string');
    expect(d.agent.mcpGrants[1]).to.deep.include({ clientName: null, redirectHost: null, lastUsedAt: null });
    expect(d.agent.mcpGrants[1].grantedBy.id).to.equal(member.memberId);
    expect(d.agent.mcpGrants[1].grantedBy.email).to.equal(`${member.memberId}@example.test`);
  });

  it('lists each agent its own grants when several agents are read at once', async () => {
    const a = await createAgent(ws.adminToken);
    const b = await createAgent(ws.adminToken);
    const ga = await grant(a);
    const gb = await grant(b);
    const d = await gqlOk(ws.adminToken, `{ agents { id mcpGrants { id } } }`);
    const by = new Map(d.agents.map((x: any) => [x.id, x.mcpGrants.map((g: any) => g.id)]));
    expect(by.get(a)).to.deep.equal([ga.id]);
    expect(by.get(b)).to.deep.equal([gb.id]);
  });

  it('revokes a grant: its row and its tokens are gone, and it is no longer listed', async () => {
    const g = await grant(agentId);
    const member = await ws.addMember();
    expect(await tokensOf(g.id)).to.equal(1);
    expect((await gqlOk(member.token, REVOKE, { a: agentId, g: g.id })).revokeMcpGrant).to.equal(true);
    expect(await h().service.store.repos.mcpGrants.get(g.id)).to.equal(null);
    expect(await tokensOf(g.id)).to.equal(0);
    expect((await gqlOk(ws.adminToken, LIST, { a: agentId })).agent.mcpGrants.map((x: any) => x.id)).to.not.include(
      g.id,
    );
    // Revoked once: a second revoke finds nothing.
    expect(errorCode(await gql(ws.adminToken, REVOKE, { a: agentId, g: g.id }))).to.equal('NOT_FOUND');
  });

  it('refuses a grant of another agent (NOT_FOUND) and leaves it in place', async () => {
    const other = await createAgent(ws.adminToken);
    const g = await grant(other);
    const r = await gql(ws.adminToken, REVOKE, { a: agentId, g: g.id });
    expect(errorCode(r)).to.equal('NOT_FOUND');
    expect(r.errors![0]!.message).to.match(/MCP grant .* not found for this agent/);
    expect(await h().service.store.repos.mcpGrants.get(g.id)).to.not.equal(null);
  });

  it('a member of another workspace gets NOT_FOUND for the agent, listing or revoking', async () => {
    const g = await grant(agentId);
    const stranger = await newWorkspace();
    expect(errorCode(await gql(stranger.adminToken, LIST, { a: agentId }))).to.equal('NOT_FOUND');
    expect(errorCode(await gql(stranger.adminToken, REVOKE, { a: agentId, g: g.id }))).to.equal('NOT_FOUND');
    const p: Principal = {
      kind: 'member',
      memberId: stranger.adminId,
      workspaceId: stranger.workspaceId,
      role: 'ADMIN',
    };
    expect(await rejection(h().service.services.mcpGrants.list(p, agentId))).to.be.instanceOf(NotFound);
    expect(await h().service.store.repos.mcpGrants.get(g.id)).to.not.equal(null);
  });

  it('a private agent’s grants stay hidden from members who cannot see it', async () => {
    const hidden = await createAgent(ws.adminToken, { visibility: 'PRIVATE' });
    const g = await grant(hidden);
    const member = await ws.addMember();
    expect(errorCode(await gql(member.token, LIST, { a: hidden }))).to.equal('NOT_FOUND');
    expect(errorCode(await gql(member.token, REVOKE, { a: hidden, g: g.id }))).to.equal('NOT_FOUND');
    expect(await h().service.store.repos.mcpGrants.get(g.id)).to.not.equal(null);
  });

  it('keys, the agent itself and OAuth clients are Forbidden: grants are the members’ business', async () => {
    const g = await grant(agentId);
    const { mcpGrants } = h().service.services;
    const callers: Principal[] = [
      { kind: 'agentKey', keyId: 'key_1', workspaceId: ws.workspaceId, agentId },
      { kind: 'workspaceKey', keyId: 'key_2', workspaceId: ws.workspaceId, scopes: ['WORKSPACE_READ'] },
      { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId },
      {
        kind: 'oauthGrant',
        grantId: g.id,
        clientId: g.clientId,
        memberId: ws.adminId,
        workspaceId: ws.workspaceId,
        agentId,
      },
    ];
    for (const p of callers) {
      expect(await rejection(mcpGrants.list(p, agentId)), p.kind).to.be.instanceOf(Forbidden);
      expect(await rejection(mcpGrants.listForAgents(p, [agentId])), p.kind).to.be.instanceOf(Forbidden);
      expect(await rejection(mcpGrants.revoke(p, agentId, g.id)), p.kind).to.be.instanceOf(Forbidden);
    }
    expect(await h().service.store.repos.mcpGrants.get(g.id)).to.not.equal(null);
  });

  it('lists nothing, without a read, for agents the member cannot see', async () => {
    await grant(agentId);
    const stranger = await newWorkspace();
    const outsider: Principal = {
      kind: 'member',
      memberId: stranger.adminId,
      workspaceId: stranger.workspaceId,
      role: 'ADMIN',
    };
    expect(await h().service.services.mcpGrants.listForAgents(outsider, [agentId])).to.deep.equal([]);
  });
});
