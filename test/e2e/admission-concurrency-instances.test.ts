import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { TEST_SECRETS_KEY } from '../helpers/harness.js';
import { startModelGate, type ModelGate } from '../helpers/model-gate.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { graphqlClient, startService, type Started } from '../helpers/process.js';

// Two instances of the service, started as a user starts them, share one PostgreSQL database. A
// burst of 5N prompt calls split across both must never run more than N model calls at once
// (the agent's maxConcurrentRequests), and every refused call is a 429 `concurrency_limit`. The
// model calls are held at a gate until every call of the burst is either answered or waiting on the
// model, so the admitted calls are still running while the others are decided — whatever the speed
// of the machine.
//
// The instances use a schema of their own in TEST_DATABASE_URL: the harness of the same run owns
// and resets `public`, and an ADMIN_TOKEN of ours would replace its bootstrap token there.

const N = 3;
const ADMIN_TOKEN = 'surfaces-conc-admin-token-0123'; // 30 characters
const SCHEMA = 'surf_conc';

async function sql(url: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

interface Outcome {
  server: number;
  status: number;
  retryAfter: string | null;
  body: any;
}

describe('e2e: the concurrency limit across two instances sharing PostgreSQL', function () {
  this.timeout(240_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-surfaces-conc-'));
  let fake: FakeOpenAi | undefined;
  let gate: ModelGate | undefined;
  const servers: Started[] = [];
  let schemaCreated = false;
  let agentId: string;
  let key: string;

  const gql = (url: string, query: string, variables: Record<string, unknown> = {}) =>
    graphqlClient(() => url, ADMIN_TOKEN)(query, variables);

  async function call(server: number, input: unknown): Promise<Outcome> {
    const res = await fetch(`${servers[server]!.url}/agents/${agentId}/api/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
      body: JSON.stringify(input),
    });
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { server, status: res.status, retryAfter: res.headers.get('retry-after'), body };
  }

  before(async function () {
    const databaseUrl = process.env.TEST_DATABASE_URL;
    if (!databaseUrl) {
      console.log(
        '      (skipped: needs TEST_DATABASE_URL — instances share concurrency slots only through PostgreSQL)',
      );
      this.skip();
    }
    await sql(databaseUrl!, `drop schema if exists ${SCHEMA} cascade; create schema ${SCHEMA}`);
    schemaCreated = true;
    fake = await startOpenAiServer();
    gate = await startModelGate(fake);
    const env = {
      PORT: '0',
      DATABASE_URL: `${databaseUrl}${databaseUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${SCHEMA}`)}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      ADMIN_TOKEN,
      DATA_DIR: dataDir,
      OPENAI_BASE_URL: gate.url,
      OPENAI_API_KEY: 'test',
      ANTHROPIC_API_KEY: undefined,
      LOG_LEVEL: 'warn',
    };
    // One after the other: the first start migrates the empty schema and bootstraps the workspace.
    servers.push(await startService(env));
    servers.push(await startService(env));

    const url = servers[0]!.url;
    agentId = (
      await gql(url, 'mutation { createAgent(input: { name: "Concurrency", defaultModel: "fake-model" }) { id } }')
    ).createAgent.id;
    key = (
      await gql(url, 'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "burst") { key } }', { a: agentId })
    ).createAgentApiKey.key;
    await gql(
      url,
      'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: { path: "slow", handler: { prompt: "Answer slowly." } }) { id } }',
      { a: agentId },
    );
    await gql(url, `mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: ${N}) { id } }`, {
      a: agentId,
    });

    // Both instances see the configuration (it lives in the database) and answer this agent.
    for (const s of [0, 1]) {
      fake.enqueue({ text: `warm ${s}` });
      const r = await call(s, { warm: s });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.output).to.equal(`warm ${s}`);
    }
  });

  after(async () => {
    gate?.open();
    for (const s of servers) await s.stop();
    await gate?.close();
    await fake?.close();
    if (schemaCreated) await sql(process.env.TEST_DATABASE_URL!, `drop schema if exists ${SCHEMA} cascade`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`a burst of ${5 * N} calls over both instances: at most ${N} model calls overlap, the rest get 429 concurrency_limit with Retry-After: 1`, async () => {
    fake!.reset();
    for (let i = 0; i < 5 * N; i++) fake!.enqueue({ text: 'slow answer' });
    gate!.shut();

    let answered = 0;
    const pending = Array.from({ length: 5 * N }, (_, i) => call(i % 2, { i }).finally(() => answered++));
    // Every call is answered or holds a slot with its model call waiting at the gate: then release.
    const deadline = Date.now() + 60_000;
    while (answered + gate!.held() < 5 * N) {
      if (Date.now() > deadline)
        throw new Error(`burst not settled: ${answered} answered, ${gate!.held()} waiting on the model`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const heldAtOnce = gate!.held();
    gate!.open();
    const outcomes = await Promise.all(pending);
    const ok = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status === 429);
    expect(
      ok.length + refused.length,
      JSON.stringify(outcomes.filter((o) => o.status !== 200 && o.status !== 429)),
    ).to.equal(5 * N);

    // While N calls held their slots, every other call was refused — across both instances.
    expect(heldAtOnce).to.equal(N);
    expect(ok.length).to.equal(N);
    for (const o of ok) {
      expect(o.body.output).to.equal('slow answer');
      expect(o.body.runId).to.be.a('string').and.match(/^run_/);
      expect(o.body.credits).to.be.a('number');
    }
    for (const o of refused) {
      expect(o.body).to.be.an('object');
      expect(o.body.error).to.be.a('string').and.not.equal('');
      expect(o.body.reason).to.equal('concurrency_limit');
      expect(o.retryAfter).to.equal('1');
    }
    // Each instance refused some of its own calls: the slots are shared, not counted per process.
    for (const s of [0, 1])
      expect(refused.filter((o) => o.server === s).length, `refusals on instance ${s}`).to.be.at.least(1);

    // Overlap as the model server saw it: never more than N calls in flight at any moment, and N
    // at once while the gate held them.
    const spans = fake!.requests.map((r) => [r.receivedAt, r.endedAt ?? Date.now()] as const);
    expect(spans).to.have.length(ok.length);
    let maxOverlap = 0;
    for (const [start] of spans)
      maxOverlap = Math.max(maxOverlap, spans.filter(([s, e]) => s <= start && start < e).length);
    expect(maxOverlap).to.be.at.most(N);
    expect(gate!.maxInFlight()).to.equal(N);
  });

  it('the slots are free again once the calls finished: both instances admit new calls', async () => {
    fake!.reset();
    fake!.enqueue({ text: 'after 0' }, { text: 'after 1' });
    const a = await call(0, { after: 0 });
    const b = await call(1, { after: 1 });
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    expect([a.body.output, b.body.output]).to.deep.equal(['after 0', 'after 1']);
  });
});
