import { expect } from 'chai';
import { createLogger } from '../../src/infra/logger.js';
import { buildService, type Service } from '../../src/server.js';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { addHttpEndpoint, call, httpApiPath } from '../helpers/surface-calls.js';

// Keys with an expiry, created over GraphQL on the shared service (the real clock) and used on a
// second instance of the service on the same database whose clock the test moves: the key works
// there until its expiry and is refused from that instant on, with no change notification in
// between (the instance's read cache still holds the key).

const HOUR = 3_600_000;
const KEY_FIELDS = 'id name prefix last4 expiresAt revokedAt';

describe('API key expiry', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let clock: MovableClock;
  let other: Service;
  let otherUrl: string;

  before(async () => {
    ws = await newWorkspace();
    clock = new MovableClock(new Date());
    other = await buildService(h().config, { db: h().db, skipMigrations: true, clock, logger: createLogger('silent') });
    otherUrl = (await other.listen(0, '127.0.0.1')).url;
  });
  after(async () => other?.close());

  it('an agent key created with expiresAt is listed with it, answers 200 before its expiry and 401 from it on, on every instance', async () => {
    const agent = await createAgent(ws.adminToken);
    await addHttpEndpoint(ws.adminToken, agent, { path: 'echo', methods: ['GET'], handler: { script: 'return "ok"' } });
    const expiresAt = new Date(Date.now() + HOUR);
    const created = await gqlOk(
      ws.adminToken,
      `mutation($a: ID!, $e: DateTimeISO) { createAgentApiKey(agentId: $a, name: "Try it", expiresAt: $e) { key apiKey { ${KEY_FIELDS} } } }`,
      {
        a: agent,
        e: expiresAt.toISOString(),
      },
    );
    const { key, apiKey } = created.createAgentApiKey;
    expect(apiKey.expiresAt).to.equal(expiresAt.toISOString());
    const listed = await gqlOk(ws.adminToken, `query($a: ID!) { agent(id: $a) { apiKeys { ${KEY_FIELDS} } } }`, {
      a: agent,
    });
    expect(listed.agent.apiKeys).to.deep.equal([apiKey]);

    clock.set(new Date(expiresAt.getTime() - 1000).toISOString());
    const before = await call('GET', httpApiPath(agent, 'echo'), { key, baseUrl: otherUrl });
    expect(before.status, before.text).to.equal(200);

    clock.set(expiresAt.toISOString());
    const after = await call('GET', httpApiPath(agent, 'echo'), { bearer: key, baseUrl: otherUrl });
    expect(after.status).to.equal(401);
    expect(after.json.error).to.equal(
      `This API key expired at ${expiresAt.toISOString()}: create a new one (GraphQL createAgentApiKey or createWorkspaceApiKey, with expiresAt if it should expire too)`,
    );
    // The shared instance, whose clock is still before the expiry, takes it.
    expect((await call('GET', httpApiPath(agent, 'echo'), { key })).status).to.equal(200);
  });

  it('a workspace key with an expiry works on the Workspace API until then, and is refused after', async () => {
    const expiresAt = new Date(Date.now() + 2 * HOUR);
    const d = await gqlOk(
      ws.adminToken,
      `mutation($e: DateTimeISO) { createWorkspaceApiKey(name: "reporting", scopes: [WORKSPACE_READ], expiresAt: $e) { key apiKey { ${KEY_FIELDS} } } }`,
      {
        e: expiresAt.toISOString(),
      },
    );
    const { key } = d.createWorkspaceApiKey;
    const listed = await gqlOk(ws.adminToken, `{ workspace { apiKeys { id expiresAt } } }`);
    expect(listed.workspace.apiKeys).to.deep.include({
      id: d.createWorkspaceApiKey.apiKey.id,
      expiresAt: expiresAt.toISOString(),
    });
    clock.set(new Date(expiresAt.getTime() - 60_000).toISOString());
    expect((await call('GET', '/workspaceapi/agents', { bearer: key, baseUrl: otherUrl })).status).to.equal(200);
    clock.set(new Date(expiresAt.getTime() + 60_000).toISOString());
    const refused = await call('GET', '/workspaceapi/agents', { bearer: key, baseUrl: otherUrl });
    expect(refused.status).to.equal(401);
    expect(refused.json.error).to.match(/^This API key expired at /);
  });

  it('a key created without expiresAt does not expire (expiresAt is null)', async () => {
    const agent = await createAgent(ws.adminToken);
    const d = await gqlOk(
      ws.adminToken,
      `mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "forever") { apiKey { expiresAt } } }`,
      { a: agent },
    );
    expect(d.createAgentApiKey.apiKey.expiresAt).to.equal(null);
  });

  it('refuses an expiresAt in the past, less than a minute ahead, or more than 365 days ahead, naming the field', async () => {
    const agent = await createAgent(ws.adminToken);
    const create = (e: string) =>
      gql(
        ws.adminToken,
        'mutation($a: ID!, $e: DateTimeISO) { createAgentApiKey(agentId: $a, name: "k", expiresAt: $e) { key } }',
        { a: agent, e },
      );
    for (const [e, message] of [
      [new Date(Date.now() - HOUR).toISOString(), /^expiresAt: must be at least 60 seconds in the future/],
      [new Date(Date.now() + 10_000).toISOString(), /^expiresAt: must be at least 60 seconds in the future/],
      [
        new Date(Date.now() + 400 * 24 * HOUR).toISOString(),
        /^expiresAt: must be at most 365 days ahead .*leave expiresAt out$/,
      ],
    ] as const) {
      const r = await create(e);
      expect(errorCode(r), e).to.equal('BAD_USER_INPUT');
      expect(r.errors![0]!.message).to.match(message);
      expect(r.errors![0]!.extensions!.field).to.equal('expiresAt');
    }
    const ws2 = await gql(
      ws.adminToken,
      'mutation($e: DateTimeISO) { createWorkspaceApiKey(name: "w", expiresAt: $e) { key } }',
      { e: new Date(Date.now() - 1000).toISOString() },
    );
    expect(errorCode(ws2)).to.equal('BAD_USER_INPUT');
  });
});
