import { expect } from 'chai';
import { createAgent, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { configureFakeModel } from '../helpers/runtime.js';
import {
  activityOf,
  addHttpEndpoint,
  call,
  createAgentKey,
  createDocument,
  documentPath,
  exposeDocument,
  httpApiPath,
} from '../helpers/surface-calls.js';

// DESIGN §5 steps 8–9: a run is charged its credits (prompt runs: tokens × the model's prices;
// script runs: the workspace's flat `scriptRunCredits`), and the charge shows in usage (GraphQL
// `agent.usage`, `workspace.usage`) and in the run's activity entry, on every surface that runs a
// handler: the HTTP API (prompt and script endpoints, JSON or streamed), MCP tool calls, chat
// messages and webhook deliveries. The Document API runs no handler and charges nothing.

// Prices per million tokens chosen so that 1000 input + 500 output tokens cost exactly 2 credits.
const PRICES = { input: 1000, output: 2000 };
const USAGE = { prompt: 1000, completion: 500 };
const PROMPT_RUN_CREDITS = 2;

interface Totals {
  credits: number;
  runs: number;
}

/** Sum over the returned days, so a run near midnight UTC is still counted. */
const total = (days: { credits: number; runs: number }[]): Totals => ({
  credits: days.reduce((n, d) => n + d.credits, 0),
  runs: days.reduce((n, d) => n + d.runs, 0),
});

describe('credits charged by runs, visible in usage and in the activity log', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;

  before(async () => {
    fake = await startOpenAiServer();
  });
  after(async () => fake.close());
  beforeEach(() => fake.reset());

  /** A fresh workspace (so its usage is this test's alone) with one agent on the fake model. */
  async function setup(): Promise<{ ws: TestWorkspace; agent: string; key: string }> {
    const ws = await newWorkspace();
    await configureFakeModel(ws.adminToken, fake, PRICES);
    const agent = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
    const key = await createAgentKey(ws.adminToken, agent);
    return { ws, agent, key };
  }

  async function usage(token: string, agentId: string): Promise<{ agent: Totals; workspace: Totals }> {
    const d = await gqlOk(
      token,
      'query($a: ID!) { agent(id: $a) { usage(days: 2) { day credits runs } } workspace { usage(days: 2) { day credits runs } } }',
      { a: agentId },
    );
    return { agent: total(d.agent.usage), workspace: total(d.workspace.usage) };
  }

  it('an HTTP API prompt run is charged tokens × prices: in the answer, agent.usage, workspace.usage and its activity entry', async () => {
    const { ws, agent, key } = await setup();
    await addHttpEndpoint(ws.adminToken, agent, { path: 'ask', handler: { prompt: 'Answer briefly.' } });
    expect(await usage(ws.adminToken, agent)).to.deep.equal({
      agent: { credits: 0, runs: 0 },
      workspace: { credits: 0, runs: 0 },
    });

    fake.enqueue({ text: 'forty-two', usage: USAGE });
    const r = await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'meaning of life' } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);

    const u = await usage(ws.adminToken, agent);
    expect(u.agent.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
    expect(u.agent.runs).to.equal(1);
    expect(u.workspace.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
    expect(u.workspace.runs).to.equal(1);

    const entries = await activityOf(ws.adminToken, agent);
    expect(entries).to.have.length(1);
    expect(entries[0]).to.deep.include({ surface: 'HTTP_API', entry: 'ask', status: 200, runId: r.json.runId });
    expect(entries[0]!.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
  });

  it('a streamed HTTP API prompt run is charged the same: in the done event, usage and its activity entry', async () => {
    const { ws, agent, key } = await setup();
    await addHttpEndpoint(ws.adminToken, agent, { path: 'ask', handler: { prompt: 'Answer briefly.' } });

    fake.enqueue({ text: 'one two three', usage: USAGE });
    const r = await call('POST', httpApiPath(agent, 'ask'), {
      key,
      json: { q: 'count' },
      headers: { accept: 'text/event-stream' },
    });
    expect(r.status, r.text).to.equal(200);
    const done = r.text
      .split(/\n\n/)
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
      .find((e) => e.event === 'done');
    expect(done, r.text).to.not.equal(undefined);
    const result = JSON.parse(done!.data!) as { runId: string; credits: number };
    expect(result.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);

    const u = await usage(ws.adminToken, agent);
    expect(u.agent.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
    expect(u.workspace.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);

    const entries = await activityOf(ws.adminToken, agent);
    expect(entries).to.have.length(1);
    expect(entries[0]).to.deep.include({ surface: 'HTTP_API', status: 200, runId: result.runId });
    expect(entries[0]!.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
  });

  it("an HTTP API script run is charged the workspace's flat scriptRunCredits, in usage and its activity entry", async () => {
    const { ws, agent, key } = await setup();
    await gqlOk(
      ws.adminToken,
      'mutation { updateWorkspaceSettings(input: {creditDefaults: {scriptRunCredits: 0.75}}) { id } }',
    );
    await addHttpEndpoint(ws.adminToken, agent, { path: 'sum', handler: { script: 'return input.a + input.b' } });

    for (const [a, b] of [
      [1, 2],
      [3, 4],
    ]) {
      const r = await call('POST', httpApiPath(agent, 'sum'), { key, json: { a, b } });
      expect(r.status, r.text).to.equal(200);
      expect(r.json).to.deep.include({ output: a + b, credits: 0.75 });
    }

    const u = await usage(ws.adminToken, agent);
    expect(u.agent.credits).to.be.closeTo(1.5, 1e-9);
    expect(u.agent.runs).to.equal(2);
    expect(u.workspace.credits).to.be.closeTo(1.5, 1e-9);

    const entries = await activityOf(ws.adminToken, agent);
    expect(entries.map((e) => e.credits)).to.deep.equal([0.75, 0.75]);
    expect(fake.requests).to.have.length(0);
  });

  it("a deleted agent's spent credits still count in the workspace's usage of the day (deleting is no way round a daily limit)", async () => {
    const { ws, agent, key } = await setup();
    await gqlOk(
      ws.adminToken,
      'mutation { updateWorkspaceSettings(input: {creditDefaults: {scriptRunCredits: 0.75}}) { id } }',
    );
    await addHttpEndpoint(ws.adminToken, agent, { path: 'sum', handler: { script: 'return input.a + input.b' } });
    const r = await call('POST', httpApiPath(agent, 'sum'), { key, json: { a: 1, b: 2 } });
    expect(r.status, r.text).to.equal(200);
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { deleteAgent(id: $a) }', { a: agent });
    const d = await gqlOk(ws.adminToken, 'query { workspace { usage(days: 2) { day credits runs } } }');
    expect(total(d.workspace.usage)).to.deep.equal({ credits: 0.75, runs: 1 });
  });

  /** Usage and activity after one prompt run of PROMPT_RUN_CREDITS: one run, its entry charged it. */
  async function expectOneRunCharged(
    token: string,
    agent: string,
    entry: { surface: string; status: number | null; runId?: string | null },
  ): Promise<void> {
    const u = await usage(token, agent);
    expect(u.agent.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
    expect(u.agent.runs).to.equal(1);
    expect(u.workspace.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
    expect(u.workspace.runs).to.equal(1);
    const charged = (await activityOf(token, agent)).filter((e) => e.credits !== 0);
    expect(
      charged.map((e) => [e.surface, e.status]),
      'the entries that carry a charge',
    ).to.deep.equal([[entry.surface, entry.status]]);
    expect(charged[0]!.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);
    if (entry.runId !== undefined) expect(charged[0]!.runId).to.equal(entry.runId);
  }

  it('an MCP tools/call of a prompt tool is charged tokens × prices: in agent.usage, workspace.usage and its MCP activity entry', async () => {
    const { ws, agent, key } = await setup();
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { name: 'ask', description: 'Answers a question', handler: { prompt: 'Answer briefly.' } },
    });

    fake.enqueue({ text: 'forty-two', usage: USAGE });
    const r = await call('POST', `/agents/${agent}/mcp`, {
      key,
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask', arguments: { input: 'meaning of life' } },
      },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.text).to.contain('forty-two');
    expect(fake.requests).to.have.length(1);

    await expectOneRunCharged(ws.adminToken, agent, { surface: 'MCP', status: 200 });
  });

  it('a chat message is charged tokens × prices: in the answer, agent.usage, workspace.usage and its activity entry', async () => {
    const { ws, agent, key } = await setup();

    fake.enqueue({ text: 'forty-two', usage: USAGE });
    const r = await call('POST', `/agents/${agent}/chat`, {
      key,
      json: { message: 'meaning of life' },
      headers: { accept: 'application/json' },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.output).to.equal('forty-two');
    expect(r.json.credits).to.be.closeTo(PROMPT_RUN_CREDITS, 1e-9);

    await expectOneRunCharged(ws.adminToken, agent, { surface: 'WIDGET', status: 200, runId: r.json.runId });
  });

  it("a webhook delivery's prompt run is charged tokens × prices: in agent.usage, workspace.usage and the run's activity entry", async () => {
    const { ws, agent } = await setup();
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { integration: 'orders', handler: { prompt: 'Summarise the event.' } },
    });

    fake.enqueue({ text: 'an order was paid', usage: USAGE });
    const r = await call('POST', `/agents/${agent}/webhook/orders`, { json: { event: 'order.paid' } });
    expect(r.status, r.text).to.equal(200);
    // The queue worker of the harness service runs the delivery in the background: poll its status.
    const deadline = Date.now() + 30_000;
    let delivery: { status: string; runId: string | null } | undefined;
    for (;;) {
      const d = await gqlOk(
        ws.adminToken,
        'query($a: ID!) { webhookDeliveries(agentId: $a, first: 10) { nodes { id status runId } } }',
        { a: agent },
      );
      delivery = (d.webhookDeliveries.nodes as { id: string; status: string; runId: string | null }[]).find(
        (x) => x.id === r.json.deliveryId,
      );
      if (delivery?.status === 'DONE') break;
      if (Date.now() > deadline) throw new Error(`the delivery did not finish: ${JSON.stringify(delivery)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(delivery.runId).to.match(/^run_/);

    // The delivery's request entry charges nothing; the run has an entry of its own (no HTTP status).
    await expectOneRunCharged(ws.adminToken, agent, { surface: 'WEBHOOKS', status: null, runId: delivery.runId });
  });

  it('the Document API runs no handler and charges nothing: usage stays at zero and its activity entries show 0 credits', async () => {
    const { ws, agent, key } = await setup();
    const doc = await createDocument(ws.adminToken, agent, {
      name: 'Notes',
      kind: 'DATABASE',
      fields: [{ name: 'text', type: 'STRING' }],
    });
    await exposeDocument(ws.adminToken, agent, doc);

    expect(
      (await call('POST', documentPath(agent, doc, 'insert'), { key, json: { items: [{ text: 'a' }] } })).status,
    ).to.equal(200);
    expect((await call('POST', documentPath(agent, doc, 'query'), { key, json: { filter: {} } })).status).to.equal(200);
    expect((await call('GET', documentPath(agent, doc), { key })).status).to.equal(200);

    expect(await usage(ws.adminToken, agent)).to.deep.equal({
      agent: { credits: 0, runs: 0 },
      workspace: { credits: 0, runs: 0 },
    });
    const entries = await activityOf(ws.adminToken, agent);
    expect(entries).to.have.length(3);
    expect(entries.map((e) => [e.surface, e.credits])).to.deep.equal([
      ['DOCUMENT_API', 0],
      ['DOCUMENT_API', 0],
      ['DOCUMENT_API', 0],
    ]);
  });
});
