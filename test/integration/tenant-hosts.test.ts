import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import { ensureAccount } from '../../src/domain/workspace/workspace-rows.js';
import { obtainAccessToken } from '../helpers/oauth-flow.js';
import { createAgent, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { call, createAgentKey } from '../helpers/surface-calls.js';
import { resolveTenantHosts } from '../helpers/tenant-dns.js';

// TENANT_BASE_URL (the harness: http://{tenant}.agents.test): each workspace answers on its own
// host as well as on the shared base URL. Every URL an answer prints is the host's, an agent of
// another workspace does not exist there, credentials of another workspace are refused, and an
// OAuth token is good only on the host that issued it.

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

describe('tenant hosts (TENANT_BASE_URL)', function () {
  this.timeout(60_000);
  let restore: () => void;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let slugA: string;
  let slugB: string;
  let agentA: string;
  let keyA: string;
  let hostA: string;
  let hostB: string;

  const slugOf = async (ws: TestWorkspace) => (await h().service.store.repos.workspaces.get(ws.workspaceId))!.slug;
  const port = () => new URL(h().url).port;

  before(async () => {
    restore = resolveTenantHosts();
    [a, b] = [await newWorkspace(), await newWorkspace()];
    [slugA, slugB] = [await slugOf(a), await slugOf(b)];
    hostA = `http://${slugA}.agents.test:${port()}`;
    hostB = `http://${slugB}.agents.test:${port()}`;
    agentA = await createAgent(a.adminToken, { name: 'Tenant agent' });
    await gqlOk(a.adminToken, 'mutation($a: ID!) { setSurface(agentId: $a, surface: A2A, enabled: true) { id } }', {
      a: agentA,
    });
    keyA = await createAgentKey(a.adminToken, agentA);
  });

  after(() => restore?.());

  it('leaves the shared base URL as it was: its documents name BASE_URL, every workspace answers there', async () => {
    const doc = await call('GET', '/openapi.json');
    expect(doc.json.servers).to.deep.equal([{ url: h().config.baseUrl }]);
    const card = await call('GET', `/agents/${agentA}/.well-known/agent-card.json`);
    expect(card.status).to.equal(200);
    expect(card.json.url).to.equal(`${h().url}/agents/${agentA}/a2a`);
    expect((await call('GET', `/agents/${agentA}/openapi.json`, { key: keyA })).status).to.equal(200);
  });

  it('answers 404 with the error body for a host whose slug is no workspace, before any route', async () => {
    for (const path of ['/healthz', '/openapi.json', `/agents/${agentA}/openapi.json`, '/console']) {
      const r = await call('GET', path, { baseUrl: `http://no-such-workspace.agents.test:${port()}` });
      expect(r.status, path).to.equal(404);
      expect(Object.keys(r.json)).to.deep.equal(['error']);
      expect(r.json.error).to.include("No workspace 'no-such-workspace'");
    }
  });

  it("prints the tenant host's base URL in the OpenAPI documents, the agent card and the home page", async () => {
    expect((await call('GET', '/openapi.json', { baseUrl: hostA })).json.servers).to.deep.equal([{ url: hostA }]);
    const api = await call('GET', '/workspaceapi/openapi.json', { baseUrl: hostA });
    expect(api.json.servers[0].variables.base_url.default).to.equal(hostA);
    const own = await call('GET', `/agents/${agentA}/openapi.json`, { key: keyA, baseUrl: hostA });
    expect(own.json.servers[0].url).to.equal(`${hostA}/agents/${agentA}/api`);
    const card = await call('GET', `/agents/${agentA}/.well-known/agent-card.json`, { baseUrl: hostA });
    expect(card.json.url).to.equal(`${hostA}/agents/${agentA}/a2a`);
    expect(card.json.provider.url).to.equal(hostA);
    expect((await call('GET', '/', { baseUrl: hostA })).text).to.include(`${hostA}/graphql`);
    // The shared document is still the shared one afterwards (one cached document per base URL).
    expect((await call('GET', '/openapi.json')).json.servers).to.deep.equal([{ url: h().config.baseUrl }]);
  });

  it('has an OAuth issuer per tenant host: MCP resource metadata and authorization server metadata', async () => {
    const challenge = await call('POST', `/agents/${agentA}/mcp`, { raw: LIST, headers: MCP_HEADERS, baseUrl: hostA });
    expect(challenge.status).to.equal(401);
    const metadataUrl = `${hostA}/.well-known/oauth-protected-resource/agents/${agentA}/mcp`;
    expect(challenge.headers.get('www-authenticate')).to.include(`resource_metadata="${metadataUrl}"`);
    const prm = await call('GET', `/.well-known/oauth-protected-resource/agents/${agentA}/mcp`, { baseUrl: hostA });
    expect(prm.json).to.deep.include({ resource: `${hostA}/agents/${agentA}/mcp`, authorization_servers: [hostA] });
    const as = await call('GET', '/.well-known/oauth-authorization-server', { baseUrl: hostA });
    expect(as.json.issuer).to.equal(hostA);
    expect(as.json.token_endpoint).to.match(new RegExp(`^${hostA}/`));
    const shared = await call('GET', '/.well-known/oauth-authorization-server');
    expect(shared.json.issuer).to.equal(h().url);
  });

  it('answers an agent of another workspace on a tenant host as one that does not exist, on every surface', async () => {
    const missing = `${agentA.slice(0, 4)}${'z'.repeat(agentA.length - 4)}`;
    // Each request for A's agent on B's host is answered as the same request for an agent that does
    // not exist (the ids swapped): same status, same body.
    const same = async (method: string, path: string, opts: Parameters<typeof call>[2] = {}) => {
      const foreign = await call(method, path.replace('{id}', agentA), { ...opts, baseUrl: hostB });
      const none = await call(method, path.replace('{id}', missing), { ...opts, baseUrl: hostB });
      expect(foreign.status, path).to.equal(404);
      expect(foreign.text.replaceAll(agentA, missing), path).to.equal(none.text);
    };
    await same('GET', '/agents/{id}/openapi.json', { key: keyA });
    await same('GET', '/agents/{id}/.well-known/agent-card.json');
    await same('GET', '/.well-known/oauth-protected-resource/agents/{id}/mcp');
    await same('POST', '/agents/{id}/api/hello', { key: keyA, json: {} });
    await same('POST', '/agents/{id}/mcp', { key: keyA, raw: LIST, headers: MCP_HEADERS });
    await same('POST', '/agents/{id}/a2a', { key: keyA, json: {} });
    await same('POST', '/agents/{id}/chat', { key: keyA, json: { message: 'hi' } });
    await same('POST', '/agents/{id}/v1/chat/completions', { key: keyA, json: {} });
    await same('POST', '/agents/{id}/webhook/generic', { json: {} });
    await same('POST', '/agents/{id}/sms', { raw: 'Body=hi', type: 'application/x-www-form-urlencoded' });
    // The same agent on its own host and on the shared base URL: found.
    expect((await call('GET', `/agents/${agentA}/openapi.json`, { key: keyA, baseUrl: hostA })).status).to.equal(200);
  });

  it("takes only the host's workspace's credentials on the Workspace API, OpenAI /v1, GraphQL and the console", async () => {
    const wk = (
      await gqlOk(a.adminToken, 'mutation { createWorkspaceApiKey(name: "wk", scopes: [WORKSPACE_READ]) { key } }')
    ).createWorkspaceApiKey.key as string;
    expect((await call('GET', '/workspaceapi/agents', { bearer: wk, baseUrl: hostA })).status).to.equal(200);
    const wrongApi = await call('GET', '/workspaceapi/agents', { bearer: wk, baseUrl: hostB });
    expect(wrongApi.status).to.equal(401);
    expect(wrongApi.json.error).to.include(`${slugB}.agents.test`);
    expect((await call('GET', '/v1/models', { bearer: wk, baseUrl: hostB })).status).to.equal(401);
    expect((await call('GET', '/v1/models', { bearer: wk, baseUrl: hostA })).status).to.equal(200);

    const viewer = { query: '{ viewer { role } }' };
    expect(
      (await call('POST', '/graphql', { bearer: a.adminToken, json: viewer, baseUrl: hostA })).json.data,
    ).to.deep.equal({ viewer: { role: 'ADMIN' } });
    const wrongGql = await call('POST', '/graphql', { bearer: a.adminToken, json: viewer, baseUrl: hostB });
    expect(wrongGql.json.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
    expect(wrongGql.json.errors[0].message).to.include(`${slugB}.agents.test`);

    const signIn = (base: string) => call('POST', '/console/session', { json: { token: a.adminToken }, baseUrl: base });
    expect((await signIn(hostB)).status).to.equal(401);
    const ok = await signIn(hostA);
    expect(ok.status).to.equal(204);
    const cookie = ok.headers.get('set-cookie')!.split(';')[0]!;
    const asConsole = (base: string) =>
      call('POST', '/graphql', { json: viewer, headers: { cookie, origin: base }, baseUrl: base });
    expect((await asConsole(hostA)).json.data).to.deep.equal({ viewer: { role: 'ADMIN' } });
    // The same session cookie sent to another tenant host (a client that shares cookies across hosts).
    expect((await asConsole(hostB)).json.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
    expect(errorOf(await gql(b.adminToken, '{ viewer { role } }'))).to.equal(undefined);
  });

  it("signs a person in to the host's workspace, keeps the console there, and lets its console call the agents", async () => {
    const email = (await gqlOk(a.adminToken, '{ viewer { account { email } } }')).viewer.account.email as string;
    await gqlOk(a.adminToken, 'mutation($i: SetPasswordInput!) { setPassword(input: $i) }', {
      i: { newPassword: 'tenant host password' },
    });
    // The same person is a VIEWER of B too (a membership made directly, as the harness makes them).
    const { repos } = h().service.store;
    const account = await ensureAccount(repos, { email, name: 'Both' }, new Date());
    await repos.members.insert({
      id: newId('mem'),
      workspaceId: b.workspaceId,
      accountId: account.id,
      email,
      name: 'Both',
      role: 'VIEWER',
      createdAt: new Date(),
    });
    const signIn = (base: string, workspace?: string) =>
      call('POST', '/console/session', {
        json: { email, password: 'tenant host password', ...(workspace ? { workspace } : {}) },
        baseUrl: base,
      });
    // On B's host the sign-in opens B, whichever workspace the body or the last sign-in names.
    const onB = await signIn(hostB, slugA);
    expect(onB.status).to.equal(204);
    const cookie = onB.headers.get('set-cookie')!.split(';')[0]!;
    const gqlB = (query: string, variables?: Record<string, unknown>) =>
      call('POST', '/graphql', { json: { query, variables }, headers: { cookie, origin: hostB }, baseUrl: hostB });
    expect((await gqlB('{ workspace { id } viewer { role } }')).json.data).to.deep.equal({
      workspace: { id: b.workspaceId },
      viewer: { role: 'VIEWER' },
    });
    const away = await gqlB('mutation($w: String!) { switchWorkspace(workspace: $w) { id } }', { w: slugA });
    expect(away.json.errors[0].extensions.code).to.equal('FORBIDDEN');
    expect(away.json.errors[0].message).to.include(`'${slugB}'`);
    expect((await gqlB('{ workspace { id } }')).json.data.workspace.id).to.equal(b.workspaceId);
    // A token for the person (PERSON) acts in the host's workspace when the request names none.
    const person = (
      await gqlOk(a.adminToken, 'mutation($m: ID!) { createMemberToken(memberId: $m, scope: PERSON) { token } }', {
        m: a.adminId,
      })
    ).createMemberToken.token as string;
    const viaToken = (token: string, base: string) =>
      call('POST', '/graphql', { bearer: token, json: { query: '{ workspace { id } }' }, baseUrl: base });
    expect((await viaToken(person, hostB)).json.data.workspace.id).to.equal(b.workspaceId);
    expect((await viaToken(person, hostA)).json.data.workspace.id).to.equal(a.workspaceId);
    const workspaceToken = await viaToken(a.adminToken, hostB);
    expect(workspaceToken.json.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
    expect(workspaceToken.json.errors[0].message).to.include(`${slugB}.agents.test`);
    // The console on A's host is one of the platform's apps for A's agents (CORS).
    const preflight = await call('OPTIONS', `/agents/${agentA}/mcp`, {
      headers: { origin: hostA, 'access-control-request-method': 'POST' },
      baseUrl: hostA,
    });
    expect(preflight.headers.get('access-control-allow-origin')).to.equal(hostA);
    const fromB = await call('OPTIONS', `/agents/${agentA}/mcp`, {
      headers: { origin: hostB, 'access-control-request-method': 'POST' },
      baseUrl: hostA,
    });
    expect(fromB.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('accepts an OAuth token only on the host that issued it', async () => {
    const tokens = await obtainAccessToken(hostA, agentA, a.adminToken);
    const list = (base: string) =>
      call('POST', `/agents/${agentA}/mcp`, {
        bearer: tokens.accessToken,
        raw: LIST,
        headers: MCP_HEADERS,
        baseUrl: base,
      });
    expect((await list(hostA)).status).to.equal(200);
    const shared = await list(h().url);
    expect(shared.status).to.equal(401);
    expect(shared.text).to.include('issued by another address');
    expect((await list(hostB)).status).to.equal(404);
  });
});

const errorOf = (r: { errors?: { message: string }[] }) => r.errors?.[0]?.message;
