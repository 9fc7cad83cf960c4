import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startModelGate, type ModelGate } from '../helpers/model-gate.js';
import type { FakeTurn } from '../helpers/openai-server.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { call as send, httpApiPath, type Reply } from '../helpers/surface-calls.js';

// DESIGN §5: "admission reserves credits so a burst cannot overshoot a daily limit by more than the
// runs in flight". Bursts of concurrent HTTP API prompt calls against the service as `npm start`
// builds it, on a priced model whose every answer reports the same token usage. Model calls are held
// at a gate until every call of a burst is either answered or waiting on the model, so the admitted
// runs are still in flight (and charged nothing yet) while the others are decided — on any machine.
//
// Without reservations, all 30 calls of the first burst were admitted and charged 10× the limit, and
// 200 calls on a limit of 0.01 charged 0.4.

const ADMIN_TOKEN = 'credit-burst-admin-token-01234'; // 30 characters
const PLATFORM = 'https://app.example.test';
// 100 input tokens × 10 + 50 output tokens × 20 per million: every run costs 0.002 credits.
const PRICES = { input: 10, output: 20 };
const RUN: FakeTurn = { text: 'ok', usage: { prompt: 100, completion: 50 } };
const RUN_CREDITS = 0.002;

describe('e2e: a burst of calls cannot overshoot a daily credit limit', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let gate: ModelGate;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  before(async () => {
    svc = await startE2eService('credit_burst', {
      adminToken: ADMIN_TOKEN,
      platformOrigin: PLATFORM,
      modelProxy: async (fake) => (gate = await startModelGate(fake)),
    });
    await gql('mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }', {
      i: {
        name: 'priced',
        provider: 'OPENAI_COMPATIBLE',
        model: 'fake-model',
        baseUrl: gate.url,
        inputPricePerMillion: PRICES.input,
        outputPricePerMillion: PRICES.output,
      },
    });
  });
  after(async () => {
    gate?.open();
    await svc?.stop();
  });
  beforeEach(() => {
    gate.open();
    svc.fake.reset();
  });

  /** An agent with a prompt endpoint `ask` on the priced model, its limits and guardrails, and a key. */
  async function agentWith(limits: string, maxCreditsPerRun: number | null): Promise<{ id: string; key: string }> {
    const id = (await gql('mutation { createAgent(input: { name: "Burst", defaultModel: "priced" }) { id } }'))
      .createAgent.id as string;
    await gql(
      'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: { path: "ask", handler: { prompt: "Answer." } }) { id } }',
      { a: id },
    );
    await gql(`mutation($a: ID!) { setAgentLimits(agentId: $a, ${limits}) { id } }`, { a: id });
    if (maxCreditsPerRun != null)
      await gql('mutation($a: ID!, $m: Float) { setGuardrails(agentId: $a, input: { maxCreditsPerRun: $m }) { id } }', {
        a: id,
        m: maxCreditsPerRun,
      });
    const key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "burst") { key } }', { a: id }))
      .createAgentApiKey.key as string;
    return { id, key };
  }

  const ask = (agent: { id: string; key: string }, i: number) =>
    send('POST', httpApiPath(agent.id, 'ask'), { key: agent.key, json: { i }, baseUrl: svc.url });

  /**
   * Sends `n` calls at once with the model shut; once each is answered or waiting at the gate,
   * counts the runs in flight and lets them finish. Every model call answers `turn`.
   */
  async function burst(
    agent: { id: string; key: string },
    n: number,
    turn: FakeTurn = RUN,
  ): Promise<{ inFlight: number; replies: Reply[] }> {
    for (let i = 0; i < n; i++) svc.fake.enqueue(turn);
    gate.shut();
    let answered = 0;
    const pending = Array.from({ length: n }, (_, i) => ask(agent, i).finally(() => answered++));
    const deadline = Date.now() + 120_000; // bounds a hang only
    while (answered + gate.held() < n) {
      if (Date.now() > deadline)
        throw new Error(`burst not settled: ${answered} answered, ${gate.held()} waiting on the model`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const inFlight = gate.held();
    gate.open();
    return { inFlight, replies: await Promise.all(pending) };
  }

  /** Credits charged to the agent (summed over two days, so a run near 00:00 UTC still counts). */
  async function charged(agentId: string): Promise<{ credits: number; runs: number }> {
    const days = (await gql('query($a: ID!) { agent(id: $a) { usage(days: 2) { credits runs } } }', { a: agentId }))
      .agent.usage as { credits: number; runs: number }[];
    return { credits: days.reduce((n, d) => n + d.credits, 0), runs: days.reduce((n, d) => n + d.runs, 0) };
  }

  /** Credits the agent's runs in flight still reserve (a slice's unused credits are not a run's). */
  const leases = async (agentId: string) => svc.service.services.admission.reservedInFlight(agentId);

  function expectRefused(replies: Reply[], reason: string): void {
    for (const r of replies) {
      expect(r.status, r.text).to.equal(429);
      expect(r.json.reason, r.text).to.equal(reason);
      expect(r.headers.get('retry-after'), r.text).to.equal('1'); // the runs in flight may still leave room
    }
  }

  it('30 calls on a limit worth three runs (maxCreditsPerRun set): 3 admitted, 27 refused, charged exactly the limit', async () => {
    const agent = await agentWith(`dailyCreditLimit: ${3 * RUN_CREDITS}`, RUN_CREDITS);
    const { inFlight, replies } = await burst(agent, 30);
    expect(inFlight).to.equal(3);
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).to.have.length(3);
    for (const r of ok) expect(r.json.credits).to.be.closeTo(RUN_CREDITS, 1e-9);
    expectRefused(
      replies.filter((r) => r.status !== 200),
      'daily_credit_limit',
    );
    expect(svc.fake.requests).to.have.length(3);

    // The bound: the limit plus one run's maximum; runs that cost their maximum land on the limit.
    const total = await charged(agent.id);
    expect(total.credits).to.be.at.most(3 * RUN_CREDITS + RUN_CREDITS + 1e-9);
    expect(total).to.deep.equal({ credits: 0.006, runs: 3 });
    expect(await leases(agent.id)).to.equal(0);
    const after = await ask(agent, 99);
    expect(after.status).to.equal(429);
    expect(after.json.error).to.equal(
      `This agent used its daily credit limit of ${3 * RUN_CREDITS}; it resets at 00:00 UTC`,
    );
  });

  it('200 calls on a limit of 0.01 without a per-run maximum: one probe run; then 50 calls: runs of the measured size up to the limit', async () => {
    const agent = await agentWith('dailyCreditLimit: 0.01', null);
    // Nothing charged yet: the cost of a run is unknown, so a single run goes ahead.
    const first = await burst(agent, 200);
    expect(first.inFlight).to.equal(1);
    expect(first.replies.filter((r) => r.status === 200)).to.have.length(1);
    expectRefused(
      first.replies.filter((r) => r.status !== 200),
      'concurrency_limit',
    );
    expect(await charged(agent.id)).to.deep.equal({ credits: RUN_CREDITS, runs: 1 });

    // Now each run reserves the largest run charged (0.002): four more fit under 0.01.
    const second = await burst(agent, 50);
    expect(second.inFlight).to.equal(4);
    expect(second.replies.filter((r) => r.status === 200)).to.have.length(4);
    expectRefused(
      second.replies.filter((r) => r.status !== 200),
      'daily_credit_limit',
    );
    const total = await charged(agent.id);
    expect(total.credits).to.be.at.most(0.01 + RUN_CREDITS + 1e-9); // the limit plus one run's estimate
    expect(total).to.deep.equal({ credits: 0.01, runs: 5 });
    expect(svc.fake.requests).to.have.length(5);
    expect(await leases(agent.id)).to.equal(0);
  });

  it('failed runs release their reservations: the next burst is admitted as if they had never run', async () => {
    const agent = await agentWith(`dailyCreditLimit: ${3 * RUN_CREDITS}`, RUN_CREDITS);
    const failed = await burst(agent, 6, {
      status: 400,
      errorBody: { error: { message: 'bad request', type: 'invalid_request_error' } },
    });
    expect(failed.inFlight).to.equal(3);
    expect(failed.replies.filter((r) => r.status === 500)).to.have.length(3);
    expectRefused(
      failed.replies.filter((r) => r.status !== 500),
      'daily_credit_limit',
    );
    expect(await leases(agent.id)).to.equal(0);
    expect(await charged(agent.id)).to.deep.equal({ credits: 0, runs: 0 });
    svc.fake.reset(); // the failures the refused calls did not consume

    const next = await burst(agent, 6);
    expect(next.inFlight).to.equal(3);
    expect(await charged(agent.id)).to.deep.equal({ credits: 0.006, runs: 3 });
  });

  it('a caller that goes away while its run waits on the model releases the reservation', async () => {
    const agent = await agentWith(`dailyCreditLimit: ${RUN_CREDITS}`, RUN_CREDITS);
    svc.fake.enqueue(RUN, RUN);
    gate.shut();
    const gone = new AbortController();
    const streamed = fetch(`${svc.url}${httpApiPath(agent.id, 'ask')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': agent.key, accept: 'text/event-stream' },
      body: JSON.stringify({ q: 'slow' }),
      signal: gone.signal,
    }).then(
      (r) => r.body?.cancel(),
      () => undefined,
    );
    const deadline = Date.now() + 60_000;
    while (gate.held() < 1) {
      if (Date.now() > deadline) throw new Error('the run never reached the model');
      await new Promise((r) => setTimeout(r, 20));
    }
    expectRefused([await ask(agent, 1)], 'daily_credit_limit'); // the only run's worth is reserved
    gone.abort();
    await streamed;
    while ((await leases(agent.id)) > 0) {
      if (Date.now() > deadline) throw new Error('the reservation was never released');
      await new Promise((r) => setTimeout(r, 20));
    }
    gate.open();
    const r = await ask(agent, 2);
    expect(r.status, r.text).to.equal(200);
    expect(await charged(agent.id)).to.deep.equal({ credits: RUN_CREDITS, runs: 1 });
  });
});
