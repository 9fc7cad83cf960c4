import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { Forbidden, Invalid, NotFound, Unauthenticated } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { AccessTokenFacts } from '../../src/domain/mcp-oauth/mcp-oauth.ports.js';
import { McpOAuthService } from '../../src/domain/mcp-oauth/mcp-oauth.service.js';
import type { Principal } from '../../src/domain/principal.js';
import { OAuthRecords, oauthTokenReader, pruneOAuthRecords } from '../../src/infra/oauth/oauth-records.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// The rules of OAuth for agents' MCP servers that the protocol library leaves to the service
// (McpOAuthService), and the library's storage (OAuthRecords): what a resource indicator may name,
// who approves a client, what a presented token is worth, and how records are kept.

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal');
}

const ORIGIN = 'https://aes.example.test';

describe('MCP OAuth rules', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let agentId: string;
  let member: Principal;
  let now: number;
  let facts: Map<string, AccessTokenFacts>;
  let service: McpOAuthService;
  let lookups: string[];

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
    member = { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' };
  });

  beforeEach(() => {
    now = Date.UTC(2026, 10, 27, 12);
    facts = new Map();
    lookups = [];
    service = new McpOAuthService(
      h().service.store,
      {
        findAccessToken: async (v) => {
          lookups.push(v);
          return facts.get(v) ?? null;
        },
      },
      { now: () => new Date(now) },
    );
  });

  describe('the resource a token is bound to', () => {
    it('is an agent id only for exactly /agents/{id}/mcp, without query, fragment or credentials', () => {
      expect(McpOAuthService.agentIdOf(`${ORIGIN}/agents/agt_1/mcp`)).to.equal('agt_1');
      for (const bad of [
        `${ORIGIN}/agents/agt_1/mcp/`,
        `${ORIGIN}/agents/agt_1/mcp?x=1`,
        `${ORIGIN}/agents/agt_1/mcp#f`,
        `https://u:p@aes.example.test/agents/agt_1/mcp`,
        `https://u@aes.example.test/agents/agt_1/mcp`,
        `${ORIGIN}/agents/agt_1/api/mcp`,
        `${ORIGIN}/x/agents/agt_1/mcp`,
        `${ORIGIN}/agents//mcp`,
        'not a url',
        '',
      ]) {
        expect(McpOAuthService.agentIdOf(bad), bad).to.equal(null);
      }
    });

    it('must be on this service, name an agent that exists, with its MCP server on', async () => {
      const agent = await service.agentOfResource(`${ORIGIN}/agents/${agentId}/mcp`, ORIGIN);
      expect(agent.id).to.equal(agentId);
      const other = await rejection(service.agentOfResource(`https://elsewhere.test/agents/${agentId}/mcp`, ORIGIN));
      expect(other).to.be.instanceOf(Invalid);
      expect(other.message).to.contain(`${ORIGIN}/agents/{agentId}/mcp`);
      expect((other as Invalid).field).to.equal('resource');
      const bad = await rejection(service.agentOfResource('nonsense', ORIGIN));
      expect(bad).to.be.instanceOf(Invalid);
      const missing = await rejection(service.agentOfResource(`${ORIGIN}/agents/agt_missing/mcp`, ORIGIN));
      expect(missing).to.be.instanceOf(Invalid);
      expect(missing.message).to.contain('agt_missing').and.contain('does not exist');
      expect((missing as Invalid).field).to.equal('resource');
      const off = await createAgent(ws.adminToken);
      await gqlOk(ws.adminToken, 'mutation($a: ID!) { setSurface(agentId: $a, surface: MCP, enabled: false) { id } }', {
        a: off,
      });
      const offErr = await rejection(service.agentOfResource(`${ORIGIN}/agents/${off}/mcp`, ORIGIN));
      expect(offErr).to.be.instanceOf(Invalid);
      expect(offErr.message).to.contain('The MCP server is turned off').and.contain('surface: MCP');
      expect((offErr as Invalid).field).to.equal('resource');
    });
  });

  describe('who approves a client', () => {
    it('a member who can see the agent, its MCP server on; nobody else', async () => {
      expect((await service.consentAgent(member, agentId)).id).to.equal(agentId);
      const key: Principal = { kind: 'agentKey', keyId: 'k', workspaceId: ws.workspaceId, agentId };
      expect(await rejection(service.consentAgent(key, agentId))).to.be.instanceOf(Forbidden);
      const stranger = await newWorkspace();
      const outsider: Principal = {
        kind: 'member',
        memberId: stranger.adminId,
        workspaceId: stranger.workspaceId,
        role: 'ADMIN',
      };
      expect(await rejection(service.consentAgent(outsider, agentId))).to.be.instanceOf(NotFound);
      // A private agent is seen by its creator and admins only.
      const plain = await ws.addMember();
      const hidden = await createAgent(ws.adminToken, { visibility: 'PRIVATE' });
      const other: Principal = {
        kind: 'member',
        memberId: plain.memberId,
        workspaceId: ws.workspaceId,
        role: 'MEMBER',
      };
      expect(await rejection(service.consentAgent(other, hidden))).to.be.instanceOf(NotFound);
      const off = await createAgent(ws.adminToken);
      await gqlOk(ws.adminToken, 'mutation($a: ID!) { setSurface(agentId: $a, surface: MCP, enabled: false) { id } }', {
        a: off,
      });
      const offErr = await rejection(service.consentAgent(member, off));
      expect(offErr).to.be.instanceOf(Forbidden);
      expect(offErr.message).to.contain('The MCP server is turned off').and.contain('surface: MCP');
    });

    it('records the approval with the redirect host (none for a custom scheme)', async () => {
      const g = await service.approve(member, agentId, {
        grantId: newId('grt'),
        clientId: 'c1',
        clientName: 'Client',
        redirectUri: 'https://app.example.com:8443/cb',
      });
      expect(g).to.include({
        agentId,
        workspaceId: ws.workspaceId,
        memberId: ws.adminId,
        clientId: 'c1',
        clientName: 'Client',
        redirectHost: 'app.example.com:8443',
        lastUsedAt: null,
      });
      expect(g.createdAt.getTime()).to.equal(now);
      expect(await h().service.store.repos.mcpGrants.get(g.id)).to.deep.include({
        redirectHost: 'app.example.com:8443',
      });
      const custom = await service.approve(member, agentId, {
        grantId: newId('grt'),
        clientId: 'c2',
        clientName: null,
        redirectUri: 'com.example.app:/cb',
      });
      expect(custom.redirectHost).to.equal(null);
      const junk = await service.approve(member, agentId, {
        grantId: newId('grt'),
        clientId: 'c3',
        clientName: null,
        redirectUri: 'not a url',
      });
      expect(junk.redirectHost).to.equal(null);
      expect(
        await rejection(
          service.approve({ kind: 'agentKey', keyId: 'k', workspaceId: ws.workspaceId, agentId }, agentId, {
            grantId: 'x',
            clientId: 'c',
            clientName: null,
            redirectUri: 'https://a.b/c',
          }),
        ),
      ).to.be.instanceOf(Forbidden);
    });
  });

  describe('what a presented access token is worth', () => {
    const agentOf = async (id: string) => (await h().service.store.repos.agents.get(id))!;
    const tokenFor = async (over: Partial<AccessTokenFacts> = {}) => {
      const g = await service.approve(member, agentId, {
        grantId: newId('grt'),
        clientId: 'client-x',
        clientName: 'X',
        redirectUri: 'https://x.test/cb',
      });
      const value = `tok-${newId('t')}`;
      facts.set(value, {
        grantId: g.id,
        clientId: 'client-x',
        accountId: ws.adminId,
        audience: [`${ORIGIN}/agents/${agentId}/mcp`],
        expiresAt: new Date(now + 60_000),
        ...over,
      });
      return { value, grant: g };
    };

    it('stands for the grant: client, member, workspace, agent', async () => {
      const { value, grant } = await tokenFor();
      const p = await service.authenticate(await agentOf(agentId), value);
      expect(p).to.deep.equal({
        kind: 'oauthGrant',
        grantId: grant.id,
        clientId: 'client-x',
        memberId: ws.adminId,
        workspaceId: ws.workspaceId,
        agentId,
      });
    });

    it('is refused by a service without an authorization server (no token reader)', async () => {
      const without = new McpOAuthService(h().service.store, null, { now: () => new Date(now) });
      expect(await rejection(without.authenticate(await agentOf(agentId), 'anything'))).to.be.instanceOf(
        Unauthenticated,
      );
    });

    it('is refused when unknown, and never looked up when longer than 512 characters', async () => {
      const unknown = await rejection(service.authenticate(await agentOf(agentId), 'nope'));
      expect(unknown).to.be.instanceOf(Unauthenticated);
      expect(unknown.message).to.contain('not recognised');
      const long = await rejection(service.authenticate(await agentOf(agentId), 'x'.repeat(513)));
      expect(long).to.be.instanceOf(Unauthenticated);
      expect(lookups).to.deep.equal(['nope']);
      const { value } = await tokenFor();
      facts.set('y'.repeat(512), facts.get(value)!);
      expect((await service.authenticate(await agentOf(agentId), 'y'.repeat(512))).kind).to.equal('oauthGrant');
    });

    it('is refused from the moment it expires, saying when', async () => {
      const { value } = await tokenFor({ expiresAt: new Date(now + 1) });
      expect((await service.authenticate(await agentOf(agentId), value)).kind).to.equal('oauthGrant');
      now += 1;
      const err = await rejection(service.authenticate(await agentOf(agentId), value));
      expect(err).to.be.instanceOf(Unauthenticated);
      expect(err.message).to.contain('expired at').and.contain(new Date(now).toISOString());
      const { value: forever } = await tokenFor({ expiresAt: null });
      expect((await service.authenticate(await agentOf(agentId), forever)).kind).to.equal('oauthGrant');
    });

    it('is refused by another agent, and when bound to no resource', async () => {
      const other = await createAgent(ws.adminToken);
      const { value } = await tokenFor();
      const err = await rejection(service.authenticate(await agentOf(other), value));
      expect(err).to.be.instanceOf(Unauthenticated);
      expect(err.message).to.contain('another resource').and.contain(`/agents/${agentId}/mcp`);
      const { value: none } = await tokenFor({ audience: [] });
      expect((await rejection(service.authenticate(await agentOf(agentId), none))).message).to.contain('(none)');
      const { value: two } = await tokenFor({ audience: ['https://a.test/x', 'https://b.test/y'] });
      expect((await rejection(service.authenticate(await agentOf(agentId), two))).message).to.contain(
        '(https://a.test/x, https://b.test/y)',
      );
      // Any one of several audiences may name the agent.
      const { value: several } = await tokenFor({
        audience: ['https://other.test/x', `${ORIGIN}/agents/${agentId}/mcp`],
      });
      expect((await service.authenticate(await agentOf(agentId), several)).kind).to.equal('oauthGrant');
    });

    it("is refused once its grant is gone, or when its grant is another agent's", async () => {
      const { value, grant } = await tokenFor();
      await h().service.store.repos.mcpGrants.delete(grant.id);
      const err = await rejection(service.authenticate(await agentOf(agentId), value));
      expect(err).to.be.instanceOf(Unauthenticated);
      expect(err.message).to.contain('revoked');
      const other = await createAgent(ws.adminToken);
      const foreign = await service.approve(member, other, {
        grantId: newId('grt'),
        clientId: 'c',
        clientName: null,
        redirectUri: 'https://x.test/cb',
      });
      facts.set('cross', {
        grantId: foreign.id,
        clientId: 'c',
        accountId: ws.adminId,
        audience: [`${ORIGIN}/agents/${agentId}/mcp`],
        expiresAt: null,
      });
      expect((await rejection(service.authenticate(await agentOf(agentId), 'cross'))).message).to.contain('revoked');
    });

    it("writes the grant's last use at most once a minute", async () => {
      const { value, grant } = await tokenFor({ expiresAt: null });
      const agent = await agentOf(agentId);
      const lastUse = async () =>
        (await h().service.store.repos.mcpGrants.get(grant.id))!.lastUsedAt?.getTime() ?? null;
      await service.authenticate(agent, value);
      expect(await lastUse()).to.equal(now);
      const first = now;
      now += 60_000;
      await service.authenticate(agent, value);
      expect(await lastUse()).to.equal(first);
      now += 1;
      await service.authenticate(agent, value);
      expect(await lastUse()).to.equal(now);
    });
  });

  describe("the authorization server's records", () => {
    const records = (model: string, onGrant?: (id: string) => Promise<void>) =>
      new OAuthRecords(h().db, model, onGrant);
    const stored = (model: string, id: string) => h().db('oauth_records').where({ model, id }).first();
    const sha = (v: string) => createHash('sha256').update(v).digest('hex');

    it('keeps a token under the hash of its value, never the value, and gives its id back', async () => {
      const value = `at-${newId('v')}`;
      const tokens = records('AccessToken');
      await tokens.upsert(value, { jti: value, grantId: 'g1', aud: 'https://a/agents/x/mcp', exp: 1 }, 60);
      expect(await stored('AccessToken', value)).to.equal(undefined);
      const row = await stored('AccessToken', sha(value));
      expect(JSON.stringify(row.payload)).not.to.contain(value);
      expect(row.grant_id).to.equal('g1');
      expect(await tokens.find(value)).to.deep.include({ jti: value, grantId: 'g1' });
      expect(await tokens.find('other')).to.equal(undefined);
      const facts = await oauthTokenReader(h().db).findAccessToken(value);
      expect(facts).to.deep.include({ grantId: 'g1', audience: ['https://a/agents/x/mcp'] });
      expect(facts!.expiresAt!.getTime()).to.be.closeTo(Date.now() + 60_000, 5_000);
      expect(await oauthTokenReader(h().db).findAccessToken('missing')).to.equal(null);
    });

    it('keeps clients, grants and sessions under their own id; sessions are found by uid', async () => {
      const sessions = records('Session');
      const id = newId('s');
      await sessions.upsert(id, { jti: id, uid: 'uid-1', accountId: 'm' }, 60);
      expect(await stored('Session', id)).to.not.equal(undefined);
      expect(await sessions.findByUid('uid-1')).to.deep.include({ jti: id, accountId: 'm' });
      expect(await sessions.findByUid('uid-2')).to.equal(undefined);
      expect(await sessions.findByUserCode()).to.equal(undefined);
    });

    it('answers nothing for an expired record; marks a consumed one', async () => {
      const codes = records('AuthorizationCode');
      await codes.upsert('code-1', { jti: 'code-1', grantId: 'g2' }, 60);
      await codes.consume('code-1');
      const found = await codes.find('code-1');
      expect(found!.consumed).to.be.a('number');
      await h()
        .db('oauth_records')
        .where({ model: 'AuthorizationCode', id: sha('code-1') })
        .update({ expires_at: new Date(Date.now() - 1) });
      expect(await codes.find('code-1')).to.equal(undefined);
      await codes.upsert('code-2', { jti: 'code-2' });
      expect((await stored('AuthorizationCode', sha('code-2'))).expires_at).to.equal(null);
      expect(await codes.find('code-2')).to.deep.include({ jti: 'code-2' });
    });

    it("revokes by grant only its own kind of record; destroying a grant ends the member's approval", async () => {
      const ended: string[] = [];
      await records('AccessToken').upsert('a-1', { jti: 'a-1', grantId: 'g3' }, 60);
      await records('RefreshToken').upsert('r-1', { jti: 'r-1', grantId: 'g3' }, 60);
      await records('AccessToken').revokeByGrantId('g3');
      expect(await records('AccessToken').find('a-1')).to.equal(undefined);
      expect(await records('RefreshToken').find('r-1')).to.not.equal(undefined);
      await records('RefreshToken').destroy('r-1');
      expect(await records('RefreshToken').find('r-1')).to.equal(undefined);
      expect(ended).to.deep.equal([]);
      const grants = records('Grant', async (id) => void ended.push(id));
      await grants.upsert('g3', { jti: 'g3', accountId: 'm' }, 60);
      expect(await stored('Grant', 'g3')).to.not.equal(undefined);
      await grants.destroy('g3');
      expect(ended).to.deep.equal(['g3']);
      expect(await grants.find('g3')).to.equal(undefined);
    });

    it('housekeeping removes expired records and unapproved clients an hour old, and keeps approved ones', async () => {
      const at = new Date();
      const clients = records('Client');
      const day = 86_400;
      const nowS = Math.floor(at.getTime() / 1000);
      await clients.upsert('old-unused', { client_id: 'old-unused', client_id_issued_at: nowS - 3600 - 1 });
      await clients.upsert('new-unused', { client_id: 'new-unused', client_id_issued_at: nowS - 3600 + 10 });
      await clients.upsert('old-used', { client_id: 'old-used', client_id_issued_at: nowS - 5 * day });
      await service.approve(member, agentId, {
        grantId: newId('grt'),
        clientId: 'old-used',
        clientName: null,
        redirectUri: 'https://x.test/cb',
      });
      await records('Interaction').upsert('i-1', { jti: 'i-1' }, 60);
      await h()
        .db('oauth_records')
        .where({ model: 'Interaction', id: sha('i-1') })
        .update({ expires_at: new Date(at.getTime() - 1) });
      const removed = await pruneOAuthRecords(h().db, at);
      expect(removed).to.be.at.least(2).and.be.a('number');
      expect(await stored('Client', 'old-unused')).to.equal(undefined);
      expect(await stored('Client', 'new-unused')).to.not.equal(undefined);
      expect(await stored('Client', 'old-used')).to.not.equal(undefined);
      expect(await stored('Interaction', sha('i-1'))).to.equal(undefined);
    });
  });
});
