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
// `agent.usage`, `workspace.usage`) and in the run's activity entry. Today the surfaces that run
// handlers are the HTTP API (prompt and script endpoints, JSON or streamed); the Document API runs
// no handler and charges nothing.

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
    const d = await gqlOk(token, 'query($a: ID!) { agent(id: $a) { usage(days: 2) { day credits runs } } workspace { usage(days: 2) { day credits runs } } }', { a: agentId });
    return { agent: total(d.agent.usage), workspace: total(d.workspace.usage) };
  }

  it('an HTTP API prompt run is charged tokens × prices: in the answer, agent.usage, workspace.usage and its activity entry', async () => {
    const { ws, agent, key } = await setup();
    await addHttpEndpoint(ws.adminToken, agent, { path: 'ask', handler: { prompt: 'Answer briefly.' } });
    expect(await usage(ws.adminToken, agent)).to.deep.equal({ agent: { credits: 0, runs: 0 }, workspace: { credits: 0, runs: 0 } });

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
    const r = await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'count' }, headers: { accept: 'text/event-stream' } });
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
    await gqlOk(ws.adminToken, 'mutation { updateWorkspaceSettings(input: {creditDefaults: {scriptRunCredits: 0.75}}) { id } }');
    await addHttpEndpoint(ws.adminToken, agent, { path: 'sum', handler: { script: 'return input.a + input.b' } });

    for (const [a, b] of [[1, 2], [3, 4]]) {
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

  it('the Document API runs no handler and charges nothing: usage stays at zero and its activity entries show 0 credits', async () => {
    const { ws, agent, key } = await setup();
    const doc = await createDocument(ws.adminToken, agent, { name: 'Notes', kind: 'DATABASE', fields: [{ name: 'text', type: 'STRING' }] });
    await exposeDocument(ws.adminToken, agent, doc);

    expect((await call('POST', documentPath(agent, doc, 'insert'), { key, json: { items: [{ text: 'a' }] } })).status).to.equal(200);
    expect((await call('POST', documentPath(agent, doc, 'query'), { key, json: { filter: {} } })).status).to.equal(200);
    expect((await call('GET', documentPath(agent, doc), { key })).status).to.equal(200);

    expect(await usage(ws.adminToken, agent)).to.deep.equal({ agent: { credits: 0, runs: 0 }, workspace: { credits: 0, runs: 0 } });
    const entries = await activityOf(ws.adminToken, agent);
    expect(entries).to.have.length(3);
    expect(entries.map((e) => [e.surface, e.credits])).to.deep.equal([
      ['DOCUMENT_API', 0],
      ['DOCUMENT_API', 0],
      ['DOCUMENT_API', 0],
    ]);
  });
});
