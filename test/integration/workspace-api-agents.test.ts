import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { expectError, workspaceKey, wsApi } from '../helpers/workspace-api.js';

// GET /workspaceapi/agents, /workspaceapi/agents/{id} and /workspaceapi/overview. Every call goes
// through wsApi, which validates the body against the served OpenAPI document.

/** Gives an agent one HTTP endpoint, MCP tool, webhook and exposed document. */
async function addEntries(token: string, agentId: string): Promise<void> {
  const d = await gqlOk(
    token,
    `mutation($id: ID!) {
      addHttpEndpoint(agentId: $id, input: {path: "orders", handler: {prompt: "x"}}) { id }
      addMcpTool(agentId: $id, input: {name: "t", description: "d", handler: {script: "return 1"}}) { id }
      addWebhook(agentId: $id, input: {integration: "shop", handler: {script: "return 1"}}) { id }
      createDocument(agentId: $id, input: {name: "Notes"}) { id }
    }`,
    { id: agentId },
  );
  await gqlOk(token, 'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true) { id } }', {
    a: agentId,
    d: d.createDocument.id,
  });
}

describe('Workspace API: agents and workspace overview', () => {
  let ws: TestWorkspace;
  let key: string;
  let busy: string;
  let secret: string;
  let idle: string;

  before(async function () {
    this.timeout(30_000);
    ws = await newWorkspace();
    key = (await workspaceKey(ws.adminToken)).key;
    busy = await createAgent(ws.adminToken, { name: 'Busy', description: 'Does things' });
    secret = await createAgent(ws.adminToken, { name: 'Secret', visibility: 'PRIVATE' });
    idle = await createAgent(ws.adminToken, { name: 'Idle' });
    await addEntries(ws.adminToken, busy);
    await gqlOk(
      ws.adminToken,
      'mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 10, maxConcurrentRequests: 2) { id } setSurface(agentId: $id, surface: MCP, enabled: false) { id } }',
      { id: busy },
    );
    const { repos } = h().service.store;
    await repos.usage.charge({
      agentId: busy,
      workspaceId: ws.workspaceId,
      teamId: null,
      day: new Date().toISOString().slice(0, 10),
      credits: 2.5,
    });
    await repos.activity.insert({
      id: newId('act'),
      workspaceId: ws.workspaceId,
      agentId: busy,
      kind: 'request',
      surface: 'HTTP_API',
      entry: 'orders',
      method: 'POST',
      path: '/x',
      status: 200,
      requestHeaders: {},
      requestBody: null,
      response: null,
      truncated: false,
      credits: 2.5,
      durationMs: 3,
      keyId: null,
      oauthClientId: null,
      grantedBy: null,
      runId: null,
      requestId: null,
      error: null,
      logs: null,
      createdAt: new Date('2026-03-01T08:00:00.000Z'),
      protocol: false,
      deliveryId: null,
    });
  });

  it('lists every agent, private ones included, oldest first, without overview unless asked', async () => {
    for (const q of ['', '?includeOverview=false']) {
      const r = await wsApi(`/workspaceapi/agents${q}`, { key });
      expect(r.status).to.equal(200);
      expect(r.body.totalCount).to.equal(3);
      expect(r.body.agents.map((a: any) => [a.name, a.visibility])).to.deep.equal([
        ['Busy', 'WORKSPACE'],
        ['Secret', 'PRIVATE'],
        ['Idle', 'WORKSPACE'],
      ]);
      for (const a of r.body.agents)
        expect(Object.keys(a)).to.have.members(['id', 'name', 'description', 'visibility', 'teamId', 'createdAt']);
    }
    expectError(
      await wsApi('/workspaceapi/agents?includeOverview=yes', { key }),
      400,
      /^Invalid query parameters: includeOverview must be true or false$/,
    );
    expectError(
      await wsApi('/workspaceapi/agents?unknown=1', { key }),
      400,
      /^Invalid query parameters: "unknown" is not a parameter of this endpoint \(its parameters are includeOverview\)$/,
    );
  });

  it("adds each agent's overview with includeOverview=true, the same one /agents/{id} returns", async () => {
    const r = await wsApi('/workspaceapi/agents?includeOverview=true', { key });
    const byName = Object.fromEntries(r.body.agents.map((a: any) => [a.name, a]));
    expect(byName.Busy.overview).to.deep.equal({
      surfaces: [
        { surface: 'HTTP_API', enabled: true, activityLogging: true },
        { surface: 'DOCUMENT_API', enabled: true, activityLogging: true },
        { surface: 'MCP', enabled: false, activityLogging: true },
        { surface: 'WIDGET', enabled: true, activityLogging: true },
        { surface: 'WEBHOOKS', enabled: true, activityLogging: true },
        { surface: 'OPENAI', enabled: false, activityLogging: true },
        { surface: 'A2A', enabled: false, activityLogging: true },
        { surface: 'EMAIL', enabled: false, activityLogging: true },
        { surface: 'SMS', enabled: false, activityLogging: true },
        { surface: 'SCHEDULE', enabled: false, activityLogging: true },
      ],
      entries: { httpEndpoints: 1, mcpTools: 1, webhooks: 1, exposedDocuments: 1 },
      creditsToday: 2.5,
      runsToday: 1,
      limits: { dailyCreditLimit: 10, maxConcurrentRequests: 2 },
      lastActivityAt: '2026-03-01T08:00:00.000Z',
    });
    expect(byName.Idle.overview).to.include({ creditsToday: 0, runsToday: 0, lastActivityAt: null });
    expect(byName.Idle.overview.entries).to.deep.equal({
      httpEndpoints: 0,
      mcpTools: 0,
      webhooks: 0,
      exposedDocuments: 0,
    });
    expect(byName.Secret.overview).to.be.an('object');

    const one = await wsApi(`/workspaceapi/agents/${busy}`, { key });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(byName.Busy);
    expectError(await wsApi(`/workspaceapi/agents/${secret}`, { key }), 403, /private/);
    expect((await wsApi(`/workspaceapi/agents/${idle}`, { key })).body.overview.limits).to.deep.equal({
      dailyCreditLimit: null,
      maxConcurrentRequests: null,
    });
  });

  it('builds the overviews in a fixed number of queries, whatever the number of agents', async function () {
    this.timeout(60_000);
    const fresh = await newWorkspace();
    const { key: k } = await workspaceKey(fresh.adminToken);
    const addAgents = async (n: number) => {
      for (let i = 0; i < n; i++)
        await addEntries(fresh.adminToken, await createAgent(fresh.adminToken, { name: `agent ${i}` }));
    };
    const countQueries = async () => {
      let n = 0;
      // Background work shares the database: the queues poll, the activity and credit buffers flush.
      // Count the reads of what the request needs, the key included; no background task reads these.
      const requestRead = /^select .*\b(agents|http_endpoints|credit_usage|activity_log|api_keys)\b/s;
      const background = /\b(webhook_deliveries|messages|agent_queue_serves)\b/;
      const onQuery = (q: { sql: string }) => void (requestRead.test(q.sql) && !background.test(q.sql) && n++);
      h().db.on('query', onQuery);
      try {
        const r = await wsApi('/workspaceapi/agents?includeOverview=true', { key: k });
        return {
          n,
          agents: r.body.agents.length,
          overviews: r.body.agents.filter((a: any) => a.overview?.entries.mcpTools === 1).length,
        };
      } finally {
        h().db.off('query', onQuery);
      }
    };
    await addAgents(2);
    // The key's first use records lastUsedAt (a write, and a change notification that drops the
    // cached key); the second use reads the key again. Keep both out of the count.
    await wsApi('/workspaceapi/agents', { key: k });
    await wsApi('/workspaceapi/agents', { key: k });
    const small = await countQueries();
    await addAgents(10);
    const large = await countQueries();
    expect([small.agents, small.overviews, large.agents, large.overviews]).to.deep.equal([2, 2, 12, 12]);
    expect(large.n).to.equal(small.n);
    // agents + entry counts + today's credits + last activity (the key is read from the cache after its first use)
    expect(large.n).to.equal(4);
  });

  it('returns the workspace configuration groups and models, never model URLs or key names', async () => {
    await gqlOk(
      ws.adminToken,
      `mutation {
      updateWorkspaceSettings(input: { featureFlags: {beta: true}, tags: ["eu", "support"], accountRules: {maxSeats: 5},
        dataProcessing: {dpaAccepted: true, region: "eu-west", subprocessors: ["Acme Hosting"]}, loginSettings: {allowedEmailDomains: ["example.com"]},
        valueCapture: {currency: "EUR"}, creditDefaults: {scriptRunCredits: 0.01} }) { id }
      configureModel(input: {name: "local", provider: OPENAI_COMPATIBLE, model: "llama3", baseUrl: "https://user:hunter2@llm.example.com/v1",
        inputPricePerMillion: 1, outputPricePerMillion: 2, isDefault: true}) { name }
    }`,
    );
    const r = await wsApi('/workspaceapi/overview', { key });
    expect(r.status).to.equal(200);
    expect(Object.keys(r.body)).to.have.members([
      'workspace',
      'featureFlags',
      'creditDefaults',
      'accountRules',
      'dataProcessing',
      'loginSettings',
      'valueCapture',
      'tags',
      'models',
    ]);
    expect(r.body.workspace).to.include({
      id: ws.workspaceId,
      name: 'Test workspace',
      activityRetentionDays: 30,
      dailyCreditLimit: null,
    });
    expect(r.body.featureFlags).to.deep.equal({ beta: true });
    expect(r.body.tags).to.deep.equal(['eu', 'support']);
    expect(r.body.accountRules).to.deep.equal({ maxSeats: 5 });
    expect(r.body.dataProcessing).to.include({ dpaAccepted: true, region: 'eu-west' });
    expect(r.body.dataProcessing.dpaAcceptedAt).to.be.a('string');
    expect(r.body.loginSettings).to.deep.equal({
      ssoRequired: false,
      allowedEmailDomains: ['example.com'],
      jitMembership: { enabled: false, role: 'MEMBER' },
    });
    expect(r.body.valueCapture).to.deep.equal({ currency: 'EUR' });
    expect(r.body.creditDefaults).to.include({ scriptRunCredits: 0.01 });
    expect(r.body.models).to.deep.equal([
      {
        name: 'local',
        provider: 'openai-compatible',
        model: 'llama3',
        isDefault: true,
        inputPricePerMillion: 1,
        outputPricePerMillion: 2,
      },
    ]);
    expect(JSON.stringify(r.body)).to.not.match(/hunter2|llm\.example\.com|baseUrl|apiKeySecret/);
  });

  it('shows another workspace only its own data', async () => {
    const other = await newWorkspace();
    const { key: otherKey } = await workspaceKey(other.adminToken);
    expect((await wsApi('/workspaceapi/agents', { key: otherKey })).body).to.deep.equal({ agents: [], totalCount: 0 });
    expect((await wsApi('/workspaceapi/overview', { key: otherKey })).body.workspace.id).to.equal(other.workspaceId);
    expectError(await wsApi(`/workspaceapi/agents/${busy}`, { key: otherKey }), 404);
  });
});
