import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startModelGate, type ModelGate } from '../helpers/model-gate.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { databaseEnv, graphqlClient, startService, type Started } from '../helpers/process.js';
import { drained, onPostgres, SIGNING_SECRET, sqlClient, until, WebhookSender } from './support.js';

// Two instances of the service, started as a user starts them, on one PostgreSQL database, under
// bursts. The model server sees every model call, and each instance calls it with its own API key,
// so what is checked is what happened outside the service: how many calls of one agent overlapped,
// and which instance ran which webhook event.
//
// 1. Concurrency: rounds of 10N calls split over both instances. The model calls are held at a gate
//    until every call is answered or waiting on the model, so admitted calls still hold their slots
//    while the rest are decided: exactly N run, every other call is a 429 concurrency_limit.
// 2. Webhooks: 2,000 signed events sent alternately to both instances, each handled by a prompt
//    run. Every event reaches the model exactly once, from one instance; both instances take part.

const ADMIN_TOKEN = 'faults-two-instances-admin-token-0'; // 34 characters
const N = 8;
const ROUNDS = 4;
const EVENTS = Number(process.env.FAULTS_TWO_INSTANCE_EVENTS ?? 2000);

describe('faults: two instances on one PostgreSQL under bursts', function () {
  this.timeout(600_000);
  let fake: FakeOpenAi | undefined;
  let gate: ModelGate | undefined;
  const servers: Started[] = [];
  const dirs: string[] = [];
  let database: Awaited<ReturnType<typeof databaseEnv>> | undefined;

  before(onPostgres());
  before(async () => {
    database = await databaseEnv('faults_two');
    fake = await startOpenAiServer();
    gate = await startModelGate(fake);
    for (const k of [0, 1]) {
      dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), `aes-faults-two-${k}-`)));
      // One after the other: the first start migrates the empty schema and bootstraps the workspace.
      servers.push(
        await startService({
          ...database.env,
          PORT: '0',
          DATA_DIR: dirs[k],
          ADMIN_TOKEN,
          OPENAI_BASE_URL: gate.url,
          OPENAI_API_KEY: `instance-${k}`,
          ANTHROPIC_API_KEY: undefined,
          LOG_LEVEL: 'warn',
          WEBHOOK_WORKERS: '8',
        }),
      );
    }
  });

  after(async () => {
    gate?.open();
    for (const s of servers) await s.stop();
    await gate?.close();
    await fake?.close();
    await database?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const gql = (query: string, variables: Record<string, unknown> = {}) =>
    graphqlClient(() => servers[0]!.url, ADMIN_TOKEN)(query, variables);

  it(`${ROUNDS} bursts of ${10 * N} calls over both instances: exactly ${N} run at once, every other call is a 429 concurrency_limit`, async () => {
    const agent = (await gql('mutation { createAgent(input: { name: "Burst", defaultModel: "fake-model" }) { id } }'))
      .createAgent.id as string;
    const key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "burst") { key } }', { a: agent }))
      .createAgentApiKey.key as string;
    await gql(
      'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: { path: "slow", handler: { prompt: "Answer slowly." } }) { id } }',
      { a: agent },
    );
    await gql('mutation($a: ID!, $n: Int!) { setAgentLimits(agentId: $a, maxConcurrentRequests: $n) { id } }', {
      a: agent,
      n: N,
    });
    const call = async (server: number, i: number) => {
      const res = await fetch(`${servers[server]!.url}/agents/${agent}/api/slow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
        body: JSON.stringify({ i }),
      });
      return { server, status: res.status, body: (await res.json()) as { reason?: string; output?: string } };
    };

    const tally = { sent: 0, ran: 0, refused: 0, other: 0, heldAtOnce: [] as number[], maxInFlight: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      gate!.shut();
      let answered = 0;
      const pending = Array.from({ length: 10 * N }, (_, i) => call(i % 2, round * 1000 + i).finally(() => answered++));
      tally.sent += 10 * N;
      await until(
        'the burst to settle (each call answered or waiting on the model)',
        async () => (answered + gate!.held() === 10 * N ? true : undefined),
        60_000,
      );
      tally.heldAtOnce.push(gate!.held());
      gate!.open();
      const outcomes = await Promise.all(pending);
      tally.maxInFlight.push(gate!.maxInFlight());
      for (const o of outcomes) {
        if (o.status === 200) tally.ran++;
        else if (o.status === 429 && o.body.reason === 'concurrency_limit') tally.refused++;
        else tally.other++;
      }
      for (const s of [0, 1])
        expect(
          outcomes.filter((o) => o.server === s && o.status === 429).length,
          `round ${round}: refusals on instance ${s}`,
        ).to.be.above(0);
    }
    console.log(
      `      concurrency over two instances: sent ${tally.sent}, ran ${tally.ran}, refused ${tally.refused} (429 concurrency_limit), other ${tally.other};` +
        ` limit ${N}, held at once per round ${tally.heldAtOnce.join('/')}, most in flight at the model per round ${tally.maxInFlight.join('/')}`,
    );
    expect(tally.other).to.equal(0);
    expect(tally.heldAtOnce).to.deep.equal(Array(ROUNDS).fill(N));
    expect(tally.maxInFlight).to.deep.equal(Array(ROUNDS).fill(N));
    expect(tally.ran).to.equal(ROUNDS * N);
    expect(tally.refused).to.equal(ROUNDS * 9 * N);
  });

  it(`${EVENTS} signed webhook events sent alternately to both instances: each runs once, on one instance, and both take part`, async () => {
    const agent = (await gql('mutation { createAgent(input: { name: "Events", defaultModel: "fake-model" }) { id } }'))
      .createAgent.id as string;
    await gql(
      'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
      { n: 'two', v: SIGNING_SECRET },
    );
    await gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        integration: 'events',
        handler: { prompt: 'Acknowledge the event.' },
        signature: { scheme: 'STANDARD_WEBHOOKS', secretName: 'two' },
      },
    });
    fake!.reset();
    let turn = 0;
    const sender = new WebhookSender(() => `${servers[turn++ % 2]!.url}/agents/${agent}/webhook`, {
      redeliverEvery: 10,
    });
    await sender.send(0, EVENTS, 32);
    const sql = await sqlClient(database!.env.DATABASE_URL!);
    try {
      await drained(async () => sql);
      const rows = (
        await sql.query(
          'select sender_delivery_id as s, status, attempts from webhook_deliveries where agent_id = $1',
          [agent],
        )
      ).rows;
      // Which instance called the model for which event: the key it sent, the event in the prompt.
      const runs = new Map<number, string[]>();
      for (const r of fake!.requests) {
        // The run's input is the user message: the request as JSON, the sender's headers included.
        const m = /"webhook-id":\s*"evt-(\d+)"/.exec(
          String(r.body.messages?.find((x) => x.role === 'user')?.content ?? ''),
        );
        if (!m) continue;
        const i = Number(m[1]);
        runs.set(i, [...(runs.get(i) ?? []), String(r.headers.authorization)]);
      }
      const byInstance = [0, 1].map(
        (k) => [...runs.values()].filter((who) => who[0] === `Bearer instance-${k}`).length,
      );
      const lost = Array.from({ length: EVENTS }, (_, i) => i).filter((i) => !runs.has(i));
      const duplicated = [...runs.entries()].filter(([, who]) => who.length > 1).map(([i]) => i);
      console.log(
        `      webhooks over two instances: sent ${sender.counts.sent}, accepted ${sender.counts.accepted}, run ${runs.size}, lost ${lost.length}, duplicated ${duplicated.length}` +
          ` (instance 0 ran ${byInstance[0]}, instance 1 ran ${byInstance[1]}; ${sender.counts.redelivered} redeliveries)`,
      );
      expect(sender.counts.unexpected).to.deep.equal(new Map());
      expect(sender.counts.accepted).to.equal(EVENTS);
      expect(sender.counts.redeliveryMismatches).to.equal(0);
      expect(rows).to.have.length(EVENTS);
      for (const r of rows) expect([r.status, Number(r.attempts)], r.s).to.deep.equal(['DONE', 1]);
      expect(lost).to.deep.equal([]);
      expect(duplicated).to.deep.equal([]);
      expect(byInstance[0]! + byInstance[1]!).to.equal(EVENTS);
      expect(byInstance[0], 'instance 0 took part').to.be.above(0);
      expect(byInstance[1], 'instance 1 took part').to.be.above(0);
    } finally {
      await sql.end();
    }
  });
});
