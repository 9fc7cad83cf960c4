import { expect } from 'chai';
import { Unauthenticated } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { AccessTokenFacts } from '../../src/domain/mcp-oauth/mcp-oauth.ports.js';
import { McpOAuthService } from '../../src/domain/mcp-oauth/mcp-oauth.service.js';
import type { Principal } from '../../src/domain/principal.js';
import type { Store } from '../../src/domain/ports.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// A grant is worth its approving member's standing now (issue 49, item 8): the member still there,
// the member token it was approved with not revoked, the agent still one the member can see. A
// token of a grant that lost it is refused (the resource server), and so is its refresh (the
// authorization server asks inStanding). Revoking the member token ends the grants it approved.

const ORIGIN = 'https://aes.example.test';

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal');
}

/** The store with one repository's `get` answering null: a row gone between two reads. */
function without(store: Store, repo: 'members' | 'agents'): Store {
  const repos = new Proxy(store.repos, {
    get: (target, key) =>
      key === repo ? { ...target[repo], get: async () => null } : target[key as keyof typeof target],
  });
  return { ...store, repos } as Store;
}

describe("MCP OAuth: the approving member's standing", function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let agentId: string;
  let facts: Map<string, AccessTokenFacts>;
  const reader = { findAccessToken: async (v: string) => facts.get(v) ?? null };
  const clock = { now: () => new Date() };
  const service = () => new McpOAuthService(h().service.store, reader, clock);
  const agentOf = async (id: string) => (await h().service.store.repos.agents.get(id))!;
  const tokenIdOf = async (memberId: string) =>
    (await h().service.store.repos.memberTokens.listByMember(memberId))[0]!.id;

  /** A member's grant on `agent`, approved with `memberTokenId`, and a token of it. */
  async function granted(
    p: Principal & { kind: 'member' },
    agent: string,
    memberTokenId: string | null,
    s = service(),
  ) {
    const grant = await s.approve(p, agent, {
      grantId: newId('grt'),
      clientId: 'c',
      clientName: null,
      redirectUri: 'https://x.test/cb',
      memberTokenId,
    });
    const value = `tok-${newId('t')}`;
    facts.set(value, {
      grantId: grant.id,
      clientId: 'c',
      accountId: p.memberId,
      audience: [`${ORIGIN}/agents/${agent}/mcp`],
      expiresAt: null,
    });
    return { grant, value };
  }
  const memberOf = (memberId: string, role: 'ADMIN' | 'MEMBER' = 'MEMBER') => ({
    kind: 'member' as const,
    memberId,
    workspaceId: ws.workspaceId,
    role,
  });

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
  });

  beforeEach(() => {
    facts = new Map();
  });

  it('keeps the member token a grant was approved with; a grant of a standing member stands', async () => {
    const m = await ws.addMember();
    const tokenId = await tokenIdOf(m.memberId);
    const { grant, value } = await granted(memberOf(m.memberId), agentId, tokenId);
    expect(grant.memberTokenId).to.equal(tokenId);
    expect((await h().service.store.repos.mcpGrants.get(grant.id))!.memberTokenId).to.equal(tokenId);
    expect((await service().authenticate(await agentOf(agentId), value)).grantId).to.equal(grant.id);
    expect(await service().inStanding(grant.id)).to.equal(true);
    // Without a token id (approved before it was kept): no token to check.
    const old = await granted(memberOf(m.memberId), agentId, null);
    expect(old.grant.memberTokenId).to.equal(null);
    expect(await service().inStanding(old.grant.id)).to.equal(true);
  });

  it('ends when the member token it was approved with is revoked or deleted', async () => {
    const m = await ws.addMember();
    const tokenId = await tokenIdOf(m.memberId);
    const { grant, value } = await granted(memberOf(m.memberId), agentId, tokenId);
    await h().service.store.repos.memberTokens.revoke(tokenId, new Date());
    const err = await rejection(service().authenticate(await agentOf(agentId), value));
    expect(err).to.be.instanceOf(Unauthenticated);
    expect(err.message).to.contain('grant ended: the member token it was approved with was revoked');
    expect(await service().inStanding(grant.id)).to.equal(false);
    const gone = await granted(memberOf(m.memberId), agentId, 'mtk_deleted');
    expect((await rejection(service().authenticate(await agentOf(agentId), gone.value))).message).to.contain(
      'was revoked',
    );
    expect(await service().inStanding(gone.grant.id)).to.equal(false);
  });

  it("ends when the agent becomes one the member cannot see; the creator's and an admin's grants stand", async () => {
    const agent = await createAgent(ws.adminToken);
    const m = await ws.addMember();
    const plain = await granted(memberOf(m.memberId), agent, await tokenIdOf(m.memberId));
    const admin = await granted(memberOf(ws.adminId, 'ADMIN'), agent, await tokenIdOf(ws.adminId));
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { updateAgent(id: $a, input: { visibility: PRIVATE }) { id } }', {
      a: agent,
    });
    const err = await rejection(service().authenticate(await agentOf(agent), plain.value));
    expect(err).to.be.instanceOf(Unauthenticated);
    expect(err.message).to.contain('grant ended: the member who approved it can no longer see the agent');
    expect(await service().inStanding(plain.grant.id)).to.equal(false);
    expect((await service().authenticate(await agentOf(agent), admin.value)).grantId).to.equal(admin.grant.id);
    expect(await service().inStanding(admin.grant.id)).to.equal(true);
  });

  it('ends when the approving member or the agent is gone, and for an unknown grant', async () => {
    const m = await ws.addMember();
    const { grant, value } = await granted(memberOf(m.memberId), agentId, await tokenIdOf(m.memberId));
    const noMember = new McpOAuthService(without(h().service.store, 'members'), reader, clock);
    const err = await rejection(noMember.authenticate(await agentOf(agentId), value));
    expect(err).to.be.instanceOf(Unauthenticated);
    expect(err.message).to.contain('no longer in the workspace');
    expect(await noMember.inStanding(grant.id)).to.equal(false);
    expect(
      await new McpOAuthService(without(h().service.store, 'agents'), reader, clock).inStanding(grant.id),
    ).to.equal(false);
    expect(await service().inStanding('grt_unknown')).to.equal(false);
  });

  it('revoking a member token deletes the grants it approved and their tokens, and no other', async () => {
    const m = await ws.addMember();
    const tokenId = await tokenIdOf(m.memberId);
    const other = (
      await gqlOk(ws.adminToken, 'mutation($m: ID!) { createMemberToken(memberId: $m, name: "second") { id } }', {
        m: m.memberId,
      })
    ).createMemberToken.id as string;
    const ended = await granted(memberOf(m.memberId), agentId, tokenId);
    const kept = await granted(memberOf(m.memberId), agentId, other);
    const db = h().service.db;
    for (const g of [ended.grant, kept.grant]) {
      await db('oauth_records').insert({
        model: 'RefreshToken',
        id: newId('rt'),
        payload: JSON.stringify({ grantId: g.id }),
        grant_id: g.id,
      });
      await db('oauth_records').insert({
        model: 'Grant',
        id: g.id,
        payload: JSON.stringify({ accountId: m.memberId }),
      });
    }
    expect(
      await gqlOk(ws.adminToken, 'mutation($id: ID!) { revokeMemberToken(id: $id) }', { id: tokenId }),
    ).to.deep.equal({ revokeMemberToken: true });
    expect(await h().service.store.repos.mcpGrants.get(ended.grant.id)).to.equal(null);
    expect(await db('oauth_records').where({ grant_id: ended.grant.id }).first()).to.equal(undefined);
    expect(await db('oauth_records').where({ model: 'Grant', id: ended.grant.id }).first()).to.equal(undefined);
    expect(await h().service.store.repos.mcpGrants.get(kept.grant.id)).to.not.equal(null);
    expect(await db('oauth_records').where({ grant_id: kept.grant.id }).first()).to.not.equal(undefined);
    expect(await h().service.store.repos.mcpGrants.deleteByMemberToken('mtk_none')).to.equal(0);
  });
});
