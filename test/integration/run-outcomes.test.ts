import { expect } from 'chai';
import { Unavailable } from '../../src/domain/errors.js';
import { RunService, type RunServiceDeps } from '../../src/domain/runtime/run.service.js';
import type { RunEvent, RunResult } from '../../src/domain/runtime/run.types.js';
import { createAgent, gqlOk, h, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import {
  configureFakeModel,
  httpInput,
  keyPrincipal,
  loadAgent,
  promptEntry,
  scriptEntry,
  useFakeModelWorkspace,
} from '../helpers/runtime.js';

// What a run ends with — the failure kind the activity log and the surfaces report, the system
// prompt the model receives, where the per-run credit limit stops the work and what the caller is
// told — checked through the run service with the real sandbox and a local model server.

describe('run service: how a run ends', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  const runs = () => h().service.services.runs;

  /** The run service of the started service, with small script limits so a failure comes fast. */
  function withLimits(cpuMs: number): RunService {
    const deps = (runs() as unknown as { deps: RunServiceDeps }).deps;
    return new RunService({
      ...deps,
      scriptLimits: { cpuMs, memoryBytes: 16 * 1024 * 1024, maxOutputBytes: 1000, wallMs: 60_000 },
    });
  }

  async function agentWith(guardrails: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) {
    const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
    await gqlOk(
      ws.adminToken,
      `mutation($id: ID!, $g: GuardrailsInput!) { setGuardrails(agentId: $id, input: $g) { id } }`,
      { id, g: guardrails },
    );
    if (Object.keys(capabilities).length) {
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!, $c: CapabilitiesInput!) { setCapabilities(agentId: $id, input: $c) { id } }`,
        { id, c: capabilities },
      );
    }
    return loadAgent(id);
  }

  describe('a script that fails is reported by what went wrong', () => {
    // The CPU limit is 150 ms for the endless loop and generous for the rest, so that on a slow or
    // instrumented run the memory hog reaches its memory limit before any CPU limit.
    const cases: Array<[string, string, string | RegExp]> = [
      ['throw new Error("out of stock")', 'script', /out of stock/],
      ['while (true) {}', 'timeout', /CPU time limit of 150 ms/],
      ['const a = []; for (;;) a.push(new Array(1e5).fill(1))', 'memory', /memory limit/],
      ['return () => 1', 'output', /not JSON/],
      ['return "x".repeat(5000)', 'output', /exceeds the limit of 1000 bytes/],
    ];
    for (const [source, kind, message] of cases) {
      it(`${kind}: ${source}`, async () => {
        const agent = await agentWith();
        const r = await withLimits(kind === 'timeout' ? 150 : 30_000).run(
          keyPrincipal(agent),
          agent,
          scriptEntry(source),
          httpInput(null),
        );
        expect(r.output).to.equal(null);
        expect(r.error!.kind).to.equal(kind);
        expect(r.error!.message).to.match(message instanceof RegExp ? message : new RegExp(message));
      });
    }

    it('aborted: the caller went away while the script ran', async () => {
      const agent = await agentWith();
      const deps = (runs() as unknown as { deps: RunServiceDeps }).deps;
      const slow = new RunService({
        ...deps,
        scriptLimits: { cpuMs: 20_000, memoryBytes: 16 * 1024 * 1024, maxOutputBytes: 1000, wallMs: 20_000 },
      });
      const ac = new AbortController();
      const pending = slow.run(keyPrincipal(agent), agent, scriptEntry('while (true) {}'), httpInput(null), {
        signal: ac.signal,
      });
      setTimeout(() => ac.abort(), 100);
      const r = await pending;
      expect(r.output).to.equal(null);
      expect(r.error!.kind).to.equal('aborted');
    });
  });

  describe('a script whose documents call meets an unreachable database', () => {
    /** The run service with document writes failing as they do while the database is away. */
    function withDatabaseAway(): RunService {
      const deps = (runs() as unknown as { deps: RunServiceDeps }).deps;
      const records = Object.create(deps.records) as RunServiceDeps['records'];
      records.insert = async () => {
        throw new Unavailable('The database cannot be reached right now; retry shortly', 5);
      };
      return new RunService({ ...deps, records });
    }

    it('is answered Unavailable with Retry-After when the script fails on it, not as a failed run', async () => {
      const agent = await agentWith();
      const err = await withDatabaseAway()
        .run(
          keyPrincipal(agent),
          agent,
          scriptEntry('await documents.insert("doc_x", [{ a: 1 }]); return 1;'),
          httpInput(null),
        )
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).to.be.instanceOf(Unavailable);
      expect((err as Unavailable).retryAfterSeconds).to.equal(5);
    });

    it('is a run like any other when the script catches the error and answers', async () => {
      const agent = await agentWith();
      const source =
        'try { await documents.insert("doc_x", [{ a: 1 }]); } catch (e) { return { queued: false, why: e.message }; } return { queued: true };';
      const r = await withDatabaseAway().run(keyPrincipal(agent), agent, scriptEntry(source), httpInput(null));
      expect(r.error).to.equal(undefined);
      expect(r.output).to.deep.equal({ queued: false, why: 'The database cannot be reached right now; retry shortly' });
    });
  });

  it('the system prompt joins the agent instructions and the entry prompt, leaving out a blank one', async () => {
    const agent = await agentWith();
    fake.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' });
    await runs().run(
      keyPrincipal(agent),
      { ...agent, instructions: '  \n ' },
      promptEntry('Answer in French.'),
      httpInput('hi'),
    );
    await runs().run(
      keyPrincipal(agent),
      { ...agent, instructions: 'You are terse.' },
      promptEntry('   '),
      httpInput('hi'),
    );
    await runs().run(
      keyPrincipal(agent),
      { ...agent, instructions: 'You are terse.' },
      promptEntry('Answer in French.'),
      httpInput('hi'),
    );
    const systems = fake.requests.map((r) =>
      r.body.messages!.filter((m) => m.role === 'system').map((m) => String(m.content)),
    );
    expect(systems).to.deep.equal([['Answer in French.'], ['You are terse.'], ['You are terse.\n\nAnswer in French.']]);
  });

  describe('the per-run credit limit (guardrail maxCreditsPerRun)', () => {
    // test-model costs 1 credit per million input tokens and 2 per million output tokens:
    // 1000 + 1000 tokens are exactly 0.003 credits.
    const toolStep = {
      toolCalls: [{ name: 'list_surfaces', arguments: {} }],
      usage: { prompt: 1000, completion: 1000 },
    };

    it('a run under its limit goes on using its tools and answers', async () => {
      const agent = await agentWith({ maxCreditsPerRun: 1 }, { endpointManagement: true });
      fake.enqueue(toolStep, { text: 'all done', usage: { prompt: 1000, completion: 1000 } });
      const r = await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      expect(fake.requests).to.have.length(2);
      expect(r.error).to.equal(undefined);
      expect(r.output).to.equal('all done');
    });

    it('a run that has spent exactly its limit makes no further model call, and its output is not withheld', async () => {
      const agent = await agentWith({ maxCreditsPerRun: 0.003 }, { endpointManagement: true });
      fake.enqueue(toolStep, { text: 'second step', usage: { prompt: 1000, completion: 1000 } });
      const r = await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      expect(fake.requests).to.have.length(1);
      expect(r.credits).to.equal(0.003);
      expect(r.error).to.equal(undefined);
    });

    it('a run over its limit is told its cost, rounded to a millionth, and the limit', async () => {
      await configureFakeModel(ws.adminToken, fake, { input: 0.1, output: 0.2 }, 'cheap-model');
      const id = await createAgent(ws.adminToken, { defaultModel: 'cheap-model' });
      await gqlOk(
        ws.adminToken,
        `mutation($id: ID!) { setGuardrails(agentId: $id, input: {maxCreditsPerRun: 0.0001}) { id } }`,
        { id },
      );
      const agent = await loadAgent(id);
      fake.enqueue({ text: 'too long an answer', usage: { prompt: 1234, completion: 1234 } });
      const r: RunResult = await runs().run(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi'));
      expect(r.output).to.equal(null);
      expect(r.error).to.deep.equal({
        kind: 'credits',
        message: "The run used 0.00037 credits, over this agent's per-run limit of 0.0001; its output was withheld",
      });
    });
  });

  it('a streamed run with output redaction never sends an empty piece of text', async () => {
    const agent = await agentWith({ redactPresets: ['email'] });
    fake.enqueue({ text: 'Write to jane@example.com today.\nOr call us.\n', chunkDelayMs: 1 });
    const events: RunEvent[] = [];
    for await (const ev of runs().stream(keyPrincipal(agent), agent, promptEntry('x'), httpInput('hi')))
      events.push(ev);
    const deltas = events
      .filter((e): e is Extract<RunEvent, { type: 'delta' }> => e.type === 'delta')
      .map((e) => e.text);
    expect(deltas.join('')).to.equal('Write to [redacted] today.\nOr call us.\n');
    expect(deltas.filter((t) => t === '')).to.deep.equal([]);
    expect(deltas.length).to.be.greaterThan(1);
  });
});
