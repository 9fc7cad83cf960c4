import { expect } from 'chai';
import OpenAI from 'openai';
import { startModelGate, type ModelGate } from '../helpers/model-gate.js';
import type { FakeTurn } from '../helpers/openai-server.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { call as send, httpApiPath } from '../helpers/surface-calls.js';

// Issue 49 item 5: a run the caller aborts, or whose model fails, is charged what it used — the
// finished steps' reported usage, the unfinished step's reported usage or else its estimate (prompt
// characters / 4 + streamed output characters / 4, docs/runtime.md) — so a daily credit limit holds
// against callers who disconnect after the first chunks. Before, all six aborted calls below were
// admitted and charged 0.

const ADMIN_TOKEN = 'credit-aborts-admin-token-01234';
// 10 credits per million input tokens, 20 per million output tokens: 100 + 50 tokens cost 0.002.
const PRICES = { input: 10, output: 20 };
const LIMIT = 0.003;
/** A long streamed answer (one chunk per word, 40 ms apart) that reports 100 + 50 tokens at its end. */
const SLOW: FakeTurn = {
  text: Array.from({ length: 60 }, (_, i) => `word${i}`).join(' '),
  usage: { prompt: 100, completion: 50 },
  chunkDelayMs: 40,
};
/** ~500 characters of question: the aborted run's prompt estimate is well over 100 tokens. */
const QUESTION = `Please tell me everything about the opening hours. ${'Details matter to me a lot. '.repeat(16)}`;

describe('e2e: aborted and failed runs are charged what they used', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let gate: ModelGate;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  before(async () => {
    svc = await startE2eService('credit_aborts', {
      adminToken: ADMIN_TOKEN,
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

  /** An agent on the priced model with the OpenAI surface on, an HTTP prompt endpoint `ask`, its daily limit, and a key. */
  async function agentWith(
    limit: number | null,
    capabilities?: Record<string, boolean>,
  ): Promise<{ id: string; key: string }> {
    const i = { name: 'Metered', instructions: 'You are the shop assistant.', defaultModel: 'priced' };
    const id = (await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', { i })).createAgent
      .id as string;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: OPENAI, enabled: true) { id } }', { a: id });
    await gql(
      'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: { path: "ask", handler: { prompt: "Answer." } }) { id } }',
      { a: id },
    );
    if (limit != null)
      await gql('mutation($a: ID!, $l: Float) { setAgentLimits(agentId: $a, dailyCreditLimit: $l) { id } }', {
        a: id,
        l: limit,
      });
    if (capabilities)
      await gql('mutation($a: ID!, $c: CapabilitiesInput!) { setCapabilities(agentId: $a, input: $c) { id } }', {
        a: id,
        c: capabilities,
      });
    const key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key as string;
    return { id, key };
  }

  /** Credits charged to the agent (summed over two days, so a run near 00:00 UTC still counts). */
  async function charged(agentId: string): Promise<number> {
    await svc.service.services.admission.flushCharges();
    const days = (await gql('query($a: ID!) { agent(id: $a) { usage(days: 2) { credits } } }', { a: agentId })).agent
      .usage as { credits: number }[];
    return days.reduce((n, d) => n + d.credits, 0);
  }

  async function activity(
    agentId: string,
  ): Promise<{ surface: string; status: number; credits: number; error: string | null; runId: string | null }[]> {
    await svc.service.services.activityLog.flush();
    const d = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 50) { nodes { surface status credits error runId } } } }',
      { a: agentId },
    );
    return d.agent.activity.nodes;
  }

  /** Waits until the agent's runs ended here: no lease, no reservation held. */
  async function settled(agentId: string): Promise<void> {
    const admission = svc.service.services.admission;
    const deadline = Date.now() + 30_000;
    while (admission.leasesHeld(agentId) > 0 || admission.reservedInFlight(agentId) > 0) {
      if (Date.now() > deadline) throw new Error('the run never ended');
      await new Promise((r) => setTimeout(r, 20));
    }
    await svc.fake.idle();
  }

  it('six streamed chat completions aborted after the first chunk: charged, and refused with daily_credit_limit at the limit', async () => {
    const agent = await agentWith(LIMIT);
    const client = new OpenAI({ baseURL: `${svc.url}/agents/${agent.id}/v1`, apiKey: agent.key, maxRetries: 0 });
    const outcomes: (number | 'aborted')[] = [];
    for (let i = 0; i < 6; i++) {
      svc.fake.enqueue(SLOW);
      const ac = new AbortController();
      try {
        const stream = await client.chat.completions.create(
          { model: agent.id, messages: [{ role: 'user', content: QUESTION }], stream: true },
          { signal: ac.signal },
        );
        for await (const ch of stream) {
          if (ch.choices[0]?.delta.content) ac.abort();
        }
        outcomes.push(ac.signal.aborted ? 'aborted' : 200);
      } catch (err) {
        if (err instanceof OpenAI.APIError && err.status) {
          expect(err.status).to.equal(429);
          expect((err.error as { code?: string }).code).to.equal('daily_credit_limit');
          outcomes.push(429);
        } else {
          expect(ac.signal.aborted, String(err)).to.equal(true);
          outcomes.push('aborted');
        }
      }
      await settled(agent.id);
    }
    const aborted = outcomes.filter((o) => o === 'aborted').length;
    expect(
      outcomes.slice(aborted).every((o) => o === 429),
      `${outcomes}`,
    ).to.equal(true);
    expect(aborted).to.be.within(1, 4);
    const total = await charged(agent.id);
    expect(total).to.be.at.least(LIMIT);
    const entries = (await activity(agent.id)).filter((e) => e.runId);
    expect(entries).to.have.length(aborted);
    for (const e of entries) expect(e.credits, JSON.stringify(e)).to.be.above(0.001); // ~120 prompt tokens estimated
    expect(entries.reduce((n, e) => n + e.credits, 0)).to.be.closeTo(total, 1e-9);
    // The bound admission keeps: the limit plus one run's estimate (the largest run charged).
    expect(total).to.be.at.most(LIMIT + Math.max(...entries.map((e) => e.credits)) + 1e-9);
    // The next call, streamed or not, is refused until midnight UTC.
    const next = await client.chat.completions
      .create({ model: agent.id, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(next).to.be.instanceOf(OpenAI.APIError);
    expect((next as InstanceType<typeof OpenAI.APIError>).status).to.equal(429);
  });

  it('a chat SSE stream the visitor aborts after the first delta is charged, and its activity entry shows it', async () => {
    const agent = await agentWith(LIMIT);
    svc.fake.enqueue(SLOW);
    const ac = new AbortController();
    const r = await fetch(`${svc.url}/agents/${agent.id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': agent.key, accept: 'text/event-stream' },
      body: JSON.stringify({ message: QUESTION }),
      signal: ac.signal,
    });
    expect(r.status).to.equal(200);
    const reader = r.body!.getReader();
    let text = '';
    while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    await settled(agent.id);
    const [entry] = await activity(agent.id);
    expect(entry!.surface).to.equal('WIDGET');
    expect(entry!.credits).to.be.above(0.001);
    expect(await charged(agent.id)).to.be.closeTo(entry!.credits, 1e-9);
  });

  it('an HTTP API stream aborted after the first delta is charged', async () => {
    const agent = await agentWith(null);
    svc.fake.enqueue(SLOW);
    const ac = new AbortController();
    const r = await fetch(`${svc.url}${httpApiPath(agent.id, 'ask')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': agent.key, accept: 'text/event-stream' },
      body: JSON.stringify({ q: QUESTION }),
      signal: ac.signal,
    });
    const reader = r.body!.getReader();
    let text = '';
    while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    await settled(agent.id);
    const [entry] = await activity(agent.id);
    expect(entry!.credits).to.be.above(0.001);
    expect(await charged(agent.id)).to.be.closeTo(entry!.credits, 1e-9);
  });

  it('a tool loop whose second model call fails is charged the first step', async () => {
    const agent = await agentWith(null, { documents: true });
    svc.fake.enqueue(
      { toolCalls: [{ name: 'list_documents', arguments: {} }], usage: { prompt: 100, completion: 50 } },
      { status: 400 },
    );
    const r = await send('POST', httpApiPath(agent.id, 'ask'), {
      key: agent.key,
      json: { q: 'What documents do you have?' },
      baseUrl: svc.url,
    });
    expect(r.status, r.text).to.equal(500);
    expect(svc.fake.requests).to.have.length(2);
    const [entry] = await activity(agent.id);
    expect(entry!.credits).to.be.closeTo(0.002, 1e-9); // the second call was refused by the provider: nothing more
    expect(await charged(agent.id)).to.be.closeTo(0.002, 1e-9);
  });

  it('a model stream that breaks off after reporting its usage is charged that usage', async () => {
    const agent = await agentWith(null);
    svc.fake.enqueue({
      text: 'An answer that never ends properly.',
      usage: { prompt: 300, completion: 100 },
      failAfterUsage: true,
    });
    const r = await send('POST', httpApiPath(agent.id, 'ask'), { key: agent.key, json: { q: 'hi' }, baseUrl: svc.url });
    expect(r.status, r.text).to.equal(500);
    const [entry] = await activity(agent.id);
    expect(entry!.error).to.be.a('string');
    expect(entry!.credits).to.be.closeTo(0.005, 1e-9); // 300 × 10 + 100 × 20 per million, as reported
    expect(await charged(agent.id)).to.be.closeTo(0.005, 1e-9);
  });
});
