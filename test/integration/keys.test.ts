import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { DomainError } from '../../src/domain/errors.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

const KEY_FIELDS = 'id kind agentId name prefix last4 scopes createdAt lastUsedAt revokedAt';
const CREATE_AGENT_KEY = `mutation($a: ID!, $n: String!) { createAgentApiKey(agentId: $a, name: $n) { key apiKey { ${KEY_FIELDS} } } }`;
const CREATE_WORKSPACE_KEY = `mutation($n: String!, $s: [KeyScope!]) { createWorkspaceApiKey(name: $n, scopes: $s) { key apiKey { ${KEY_FIELDS} } } }`;
const REVOKE = `mutation($id: ID!) { revokeApiKey(id: $id) }`;

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

async function agentKey(token: string, agentId: string, name = 'key'): Promise<{ key: string; id: string }> {
  const d = await gqlOk(token, CREATE_AGENT_KEY, { a: agentId, n: name });
  return { key: d.createAgentApiKey.key, id: d.createAgentApiKey.apiKey.id };
}

async function workspaceKey(token: string, scopes: string[] = [], name = 'wk'): Promise<{ key: string; id: string }> {
  const d = await gqlOk(token, CREATE_WORKSPACE_KEY, { n: name, s: scopes });
  return { key: d.createWorkspaceApiKey.key, id: d.createWorkspaceApiKey.apiKey.id };
}

async function loadAgent(id: string): Promise<Agent> {
  const a = await h().service.store.repos.agents.get(id);
  if (!a) throw new Error(`agent ${id} not found`);
  return a;
}

/** The DomainError a promise rejects with (fails the test when it resolves or throws something else). */
async function rejection(p: Promise<unknown>): Promise<DomainError> {
  let resolved: unknown;
  try {
    resolved = await p;
  } catch (err) {
    expect(err).to.be.instanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(resolved)}`);
}

/** `key` with the character at `i` replaced by a different character of the same alphabet. */
function changeChar(key: string, i: number): string {
  const c = key[i] === 'A' ? 'B' : 'A';
  return key.slice(0, i) + c + key.slice(i + 1);
}

describe('GraphQL: API keys', () => {
  let ws: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
  });

  it('createAgentApiKey returns an ak_ key once; the listing shows prefix and last 4 only', async () => {
    const agentId = await createAgent(ws.adminToken);
    const before = Date.now();
    const d = await gqlOk(ws.adminToken, CREATE_AGENT_KEY, { a: agentId, n: 'production' });
    const { key, apiKey } = d.createAgentApiKey;
    expect(key).to.match(/^ak_[A-Za-z0-9_-]+$/);
    expect(key.length - 'ak_'.length).to.be.at.least(43);
    expect(apiKey).to.include({
      kind: 'AGENT',
      agentId,
      name: 'production',
      prefix: key.slice(0, 6),
      last4: key.slice(-4),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(apiKey.prefix).to.match(/^ak_/);
    expect(apiKey.scopes).to.deep.equal([]);
    expect(Date.parse(apiKey.createdAt)).to.be.within(before - 1000, Date.now() + 1000);

    const second = await agentKey(ws.adminToken, agentId, 'staging');
    expect(second.key).to.not.equal(key);

    const listed = (
      await gqlOk(ws.adminToken, `query($id: ID!) { agent(id: $id) { apiKeys { ${KEY_FIELDS} } } }`, { id: agentId })
    ).agent.apiKeys;
    expect(listed.map((k: any) => k.id)).to.deep.equal([apiKey.id, second.id]);
    expect(listed[0]).to.deep.equal(apiKey);
    const text = JSON.stringify(listed);
    expect(text).to.not.include(key);
    expect(text).to.not.include(second.key);
    expect(text).to.not.include(sha256(key));

    // the ApiKey type has no field that could carry the key or its hash
    const t = await gqlOk(ws.adminToken, '{ __type(name: "ApiKey") { fields { name } } }');
    expect(t.__type.fields.map((f: any) => f.name).sort()).to.deep.equal([
      'agentId',
      'createdAt',
      'expiresAt',
      'id',
      'kind',
      'last4',
      'lastUsedAt',
      'name',
      'origin',
      'prefix',
      'revokedAt',
      'scopes',
    ]);
  });

  it('createAgentApiKey refuses an empty name, an unknown agent and another workspace’s agent', async () => {
    const agentId = await createAgent(ws.adminToken);
    const r = await gql(ws.adminToken, CREATE_AGENT_KEY, { a: agentId, n: '  ' });
    expect(errorCode(r)).to.equal('BAD_USER_INPUT');
    expect(r.errors![0]!.extensions!.field).to.equal('name');
    expect(errorCode(await gql(ws.adminToken, CREATE_AGENT_KEY, { a: 'agt_missing', n: 'x' }))).to.equal('NOT_FOUND');
    const other = await newWorkspace();
    expect(errorCode(await gql(other.adminToken, CREATE_AGENT_KEY, { a: agentId, n: 'x' }))).to.equal('NOT_FOUND');
    const listed = (
      await gqlOk(ws.adminToken, `query($id: ID!) { agent(id: $id) { apiKeys { id } } }`, { id: agentId })
    ).agent.apiKeys;
    expect(listed).to.deep.equal([]);
  });

  it('createWorkspaceApiKey returns a wk_ key with its scopes; admins only', async () => {
    const fresh = await newWorkspace();
    const d = await gqlOk(fresh.adminToken, CREATE_WORKSPACE_KEY, {
      n: 'reporting',
      s: ['WORKSPACE_READ', 'WORKSPACE_READ'],
    });
    const { key, apiKey } = d.createWorkspaceApiKey;
    expect(key).to.match(/^wk_[A-Za-z0-9_-]{43,}$/);
    expect(apiKey).to.include({
      kind: 'WORKSPACE',
      agentId: null,
      name: 'reporting',
      prefix: key.slice(0, 6),
      last4: key.slice(-4),
      revokedAt: null,
    });
    expect(apiKey.scopes).to.deep.equal(['WORKSPACE_READ']);

    const plain = await gqlOk(
      fresh.adminToken,
      `mutation { createWorkspaceApiKey(name: "plain") { key apiKey { id scopes } } }`,
    );
    expect(plain.createWorkspaceApiKey.apiKey.scopes).to.deep.equal([]);
    expect(plain.createWorkspaceApiKey.key).to.match(/^wk_/);

    const listed = (await gqlOk(fresh.adminToken, '{ workspace { apiKeys { id name scopes prefix last4 } } }'))
      .workspace.apiKeys;
    expect(listed).to.have.deep.members([
      { id: apiKey.id, name: 'reporting', scopes: ['WORKSPACE_READ'], prefix: apiKey.prefix, last4: apiKey.last4 },
      {
        id: plain.createWorkspaceApiKey.apiKey.id,
        name: 'plain',
        scopes: [],
        prefix: plain.createWorkspaceApiKey.key.slice(0, 6),
        last4: plain.createWorkspaceApiKey.key.slice(-4),
      },
    ]);
    expect(JSON.stringify(listed)).to.not.include(key);

    const m = await fresh.addMember();
    expect(errorCode(await gql(m.token, CREATE_WORKSPACE_KEY, { n: 'mine', s: [] }))).to.equal('FORBIDDEN');
    expect((await gqlOk(fresh.adminToken, '{ workspace { apiKeys { id } } }')).workspace.apiKeys).to.have.length(2);
  });

  it('revokeApiKey sets revokedAt; unknown or foreign id NOT_FOUND; a MEMBER may not revoke a workspace key', async () => {
    const fresh = await newWorkspace();
    const agentId = await createAgent(fresh.adminToken);
    const ak = await agentKey(fresh.adminToken, agentId);
    const before = Date.now();
    expect((await gqlOk(fresh.adminToken, REVOKE, { id: ak.id })).revokeApiKey).to.equal(true);
    const listed = (
      await gqlOk(fresh.adminToken, `query($id: ID!) { agent(id: $id) { apiKeys { id revokedAt } } }`, { id: agentId })
    ).agent.apiKeys;
    expect(listed).to.have.length(1);
    const revokedAt = listed[0].revokedAt;
    expect(Date.parse(revokedAt)).to.be.within(before - 1000, Date.now() + 1000);
    // revoking again changes nothing
    expect((await gqlOk(fresh.adminToken, REVOKE, { id: ak.id })).revokeApiKey).to.equal(true);
    const again = (
      await gqlOk(fresh.adminToken, `query($id: ID!) { agent(id: $id) { apiKeys { revokedAt } } }`, { id: agentId })
    ).agent.apiKeys;
    expect(again[0].revokedAt).to.equal(revokedAt);

    expect(errorCode(await gql(fresh.adminToken, REVOKE, { id: 'key_missing' }))).to.equal('NOT_FOUND');
    const other = await newWorkspace();
    const foreign = await workspaceKey(other.adminToken);
    expect(errorCode(await gql(fresh.adminToken, REVOKE, { id: foreign.id }))).to.equal('NOT_FOUND');

    const wk = await workspaceKey(fresh.adminToken, ['WORKSPACE_READ']);
    const m = await fresh.addMember();
    expect(errorCode(await gql(m.token, REVOKE, { id: wk.id }))).to.equal('FORBIDDEN');
    const wks = (await gqlOk(fresh.adminToken, '{ workspace { apiKeys { id revokedAt } } }')).workspace.apiKeys;
    expect(wks).to.deep.equal([{ id: wk.id, revokedAt: null }]);
    await h().service.services.keys.authenticateWorkspaceRead(wk.key); // still valid

    // a MEMBER may revoke a key of an agent they can configure
    const ak2 = await agentKey(fresh.adminToken, agentId, 'second');
    expect((await gqlOk(m.token, REVOKE, { id: ak2.id })).revokeApiKey).to.equal(true);
  });
});

describe('Domain: key authentication', () => {
  let ws: TestWorkspace;
  let agentId: string;
  let otherAgentId: string;
  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken, { name: 'Keyed' });
    otherAgentId = await createAgent(ws.adminToken, { name: 'Other' });
  });

  const keys = () => h().service.services.keys;

  it('accepts the agent’s own key as an agentKey principal and records lastUsedAt', async () => {
    const ak = await agentKey(ws.adminToken, agentId);
    const p = await keys().authenticate(await loadAgent(agentId), ak.key);
    expect(p).to.deep.equal({ kind: 'agentKey', keyId: ak.id, workspaceId: ws.workspaceId, agentId });
    const listed = (
      await gqlOk(ws.adminToken, `query($id: ID!) { agent(id: $id) { apiKeys { id lastUsedAt } } }`, { id: agentId })
    ).agent.apiKeys;
    expect(listed.find((k: any) => k.id === ak.id).lastUsedAt).to.be.a('string');
  });

  it('refuses another agent’s key as UNAUTHENTICATED', async () => {
    const otherKey = await agentKey(ws.adminToken, otherAgentId);
    const e = await rejection(keys().authenticate(await loadAgent(agentId), otherKey.key));
    expect(e.code).to.equal('UNAUTHENTICATED');
    // the key itself is fine for its own agent
    expect((await keys().authenticate(await loadAgent(otherAgentId), otherKey.key)).kind).to.equal('agentKey');
  });

  it('accepts a workspace key only while the agent allows workspace keys', async () => {
    const wk = await workspaceKey(ws.adminToken, ['WORKSPACE_READ']);
    const id = await createAgent(ws.adminToken, { allowWorkspaceKeys: false });
    const off = await rejection(keys().authenticate(await loadAgent(id), wk.key));
    expect(off.code).to.equal('UNAUTHENTICATED');

    await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { updateAgent(id: $id, input: {allowWorkspaceKeys: true}) { id } }`,
      { id },
    );
    const p = await keys().authenticate(await loadAgent(id), wk.key);
    expect(p).to.deep.equal({
      kind: 'workspaceKey',
      keyId: wk.id,
      workspaceId: ws.workspaceId,
      scopes: ['WORKSPACE_READ'],
    });

    await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { updateAgent(id: $id, input: {allowWorkspaceKeys: false}) { id } }`,
      { id },
    );
    expect((await rejection(keys().authenticate(await loadAgent(id), wk.key))).code).to.equal('UNAUTHENTICATED');
  });

  it('refuses a workspace key of another workspace', async () => {
    const id = await createAgent(ws.adminToken, { allowWorkspaceKeys: true });
    const own = await workspaceKey(ws.adminToken);
    expect((await keys().authenticate(await loadAgent(id), own.key)).kind).to.equal('workspaceKey');
    const other = await newWorkspace();
    const foreign = await workspaceKey(other.adminToken, ['WORKSPACE_READ']);
    expect((await rejection(keys().authenticate(await loadAgent(id), foreign.key))).code).to.equal('UNAUTHENTICATED');
  });

  it('refuses a key immediately after revokeApiKey', async () => {
    const id = await createAgent(ws.adminToken, { allowWorkspaceKeys: true });
    const ak = await agentKey(ws.adminToken, id);
    const wk = await workspaceKey(ws.adminToken, ['WORKSPACE_READ']);
    const agent = await loadAgent(id);
    expect((await keys().authenticate(agent, ak.key)).kind).to.equal('agentKey');
    expect((await keys().authenticate(agent, wk.key)).kind).to.equal('workspaceKey');
    expect((await keys().authenticateWorkspaceRead(wk.key)).kind).to.equal('workspaceKey');

    await gqlOk(ws.adminToken, REVOKE, { id: ak.id });
    await gqlOk(ws.adminToken, REVOKE, { id: wk.id });
    expect((await rejection(keys().authenticate(agent, ak.key))).code).to.equal('UNAUTHENTICATED');
    expect((await rejection(keys().authenticate(agent, wk.key))).code).to.equal('UNAUTHENTICATED');
    expect((await rejection(keys().authenticateWorkspaceRead(wk.key))).code).to.equal('UNAUTHENTICATED');
  });

  it('refuses garbage, empty, missing and altered keys', async () => {
    const ak = await agentKey(ws.adminToken, agentId);
    const agent = await loadAgent(agentId);
    const member = await ws.addMember();
    const presented: [string, string | undefined][] = [
      ['garbage', 'not-a-key'],
      ['garbage with prefix', 'ak_short'],
      ['well-formed but unknown', `ak_${'A'.repeat(43)}`],
      ['empty', ''],
      ['undefined', undefined],
      ['last character changed', changeChar(ak.key, ak.key.length - 1)],
      ['middle character changed', changeChar(ak.key, 20)],
      ['first character after prefix changed', changeChar(ak.key, 3)],
      ['prefix changed', 'wk_' + ak.key.slice(3)],
      ['upper-case prefix', 'AK_' + ak.key.slice(3)],
      ['trailing space', ak.key + ' '],
      ['truncated', ak.key.slice(0, -1)],
      ['extended', ak.key + 'x'],
      ['its hash', sha256(ak.key)],
      ['a member token', member.token],
    ];
    for (const [label, key] of presented) {
      if (key !== undefined) expect(key, label).to.not.equal(ak.key);
      const e = await rejection(keys().authenticate(agent, key));
      expect(e.code, label).to.equal('UNAUTHENTICATED');
    }
    // and the real key still works afterwards
    expect((await keys().authenticate(agent, ak.key)).kind).to.equal('agentKey');
  });

  it('authenticateWorkspaceRead: a wk_ key with WORKSPACE_READ passes; without the scope FORBIDDEN; an ak_ key UNAUTHENTICATED', async () => {
    const withScope = await workspaceKey(ws.adminToken, ['WORKSPACE_READ']);
    const without = await workspaceKey(ws.adminToken, []);
    const ak = await agentKey(ws.adminToken, agentId);
    const p = await keys().authenticateWorkspaceRead(withScope.key);
    expect(p).to.deep.equal({
      kind: 'workspaceKey',
      keyId: withScope.id,
      workspaceId: ws.workspaceId,
      scopes: ['WORKSPACE_READ'],
    });
    expect((await rejection(keys().authenticateWorkspaceRead(without.key))).code).to.equal('FORBIDDEN');
    expect((await rejection(keys().authenticateWorkspaceRead(ak.key))).code).to.equal('UNAUTHENTICATED');
    for (const bad of [undefined, '', 'garbage', changeChar(withScope.key, withScope.key.length - 2)]) {
      expect((await rejection(keys().authenticateWorkspaceRead(bad))).code, String(bad)).to.equal('UNAUTHENTICATED');
    }
  });
});

describe('GraphQL: authentication', () => {
  const VIEWER = '{ viewer { id } }';

  async function expect401(token: string | undefined, label: string): Promise<void> {
    const r = await gql(token, VIEWER);
    expect(r.status, label).to.equal(401);
    expect(errorCode(r), label).to.equal('UNAUTHENTICATED');
    expect(r.data ?? null, label).to.equal(null);
  }

  it('no token is HTTP 401 UNAUTHENTICATED', async () => {
    await expect401(undefined, 'no token');
    const res = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Basic dXNlcjpwYXNz' },
      body: JSON.stringify({ query: VIEWER }),
    });
    expect(res.status).to.equal(401);
  });

  it('a garbage, altered, revoked or non-member token is HTTP 401', async () => {
    const ws = await newWorkspace();
    const m = await ws.addMember();
    expect((await gqlOk(m.token, VIEWER)).viewer.id).to.equal(m.memberId);

    await expect401('garbage', 'garbage');
    await expect401('x'.repeat(40), 'long garbage');
    await expect401(changeChar(m.token, m.token.length - 1), 'altered');

    // member tokens have no revocation mutation yet; revoke the row directly
    const n = await h()
      .db('member_tokens')
      .where({ token_hash: sha256(m.token) })
      .update({ revoked_at: new Date() });
    expect(n).to.equal(1);
    await expect401(m.token, 'revoked');
    expect((await gqlOk(ws.adminToken, VIEWER)).viewer.id).to.equal(ws.adminId);

    const agentId = await createAgent(ws.adminToken);
    const ak = await agentKey(ws.adminToken, agentId);
    const wk = await workspaceKey(ws.adminToken, ['WORKSPACE_READ']);
    await expect401(ak.key, 'agent key');
    await expect401(wk.key, 'workspace key');
  });
});
