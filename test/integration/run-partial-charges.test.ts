import { CallLifecycle } from '../../src/domain/calls/call-lifecycle.js';
import { expect } from 'chai';
import {
  ModelFailure,
  type LanguageModels,
  type ModelCall,
  type ModelEvent,
} from '../../src/domain/models/language-model.ports.js';
import { Pipeline } from '../../src/domain/runtime/pipeline.js';
import { RunService, type RunServiceDeps } from '../../src/domain/runtime/run.service.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import { createAgent, gqlOk, h, type TestWorkspace } from '../helpers/harness.js';
import { httpInput, keyPrincipal, loadAgent, promptEntry, useFakeModelWorkspace } from '../helpers/runtime.js';

// A run that ends before its model call did — the caller went away, the provider failed, the
// reader of the run stopped — is charged what the model reported using (docs/runtime.md), through
// the run service and the pipeline, with a scripted model. test-model costs 1 credit per million
// input tokens and 2 per million output tokens: 1000 + 500 tokens are 0.002 credits.

const USED = { inputTokens: 1000, outputTokens: 500 };
const CREDITS = 0.002;

/** How the scripted model call ends after it began answering, reported USED and streamed one delta. */
type Ending = 'failure' | 'abort' | 'crash' | 'hang' | 'refused';

function scriptedModels(ending: Ending, calls: ModelCall[]): LanguageModels {
  async function* stream(call: ModelCall): AsyncGenerator<ModelEvent> {
    calls.push(call);
    if (ending === 'refused') throw new ModelFailure('The model provider failed (HTTP 400)');
    call.meter!.stepStarted();
    call.meter!.reported(USED);
    call.meter!.output(12);
    yield { type: 'delta', text: 'Hello there ' };
    if (ending === 'failure') throw new ModelFailure('The model call failed', 'the connection dropped');
    if (ending === 'crash') throw new TypeError('a bug');
    if (ending === 'abort') {
      if (!call.signal!.aborted)
        await new Promise((resolve) => call.signal!.addEventListener('abort', resolve, { once: true }));
      throw new ModelFailure('The model call was aborted');
    }
    await new Promise(() => {}); // 'hang': the reader stops first
  }
  return { stream, generate: async () => Promise.reject(new Error('not used')) };
}

describe('run service: what an unfinished run is charged', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;
  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  /** The run service and a pipeline around it, the model scripted to end as `ending` says. */
  function scripted(ending: Ending): {
    runs: RunService;
    pipeline: Pipeline;
    lifecycle: CallLifecycle;
    calls: ModelCall[];
  } {
    const calls: ModelCall[] = [];
    const s = h().service.services;
    const deps = (s.runs as unknown as { deps: RunServiceDeps }).deps;
    const runs = new RunService({ ...deps, models: scriptedModels(ending, calls) });
    const pipeline = new Pipeline(s.admission, runs);
    return { runs, pipeline, lifecycle: new CallLifecycle(s.activityLog, pipeline, s.calls.cancels), calls };
  }

  /** An agent on test-model under a daily limit (so its charges are counted at once), with its key. */
  async function agent() {
    const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 1) { id } }', {
      a: id,
    });
    return loadAgent(id);
  }

  async function charged(agentId: string): Promise<number> {
    await h().service.services.admission.flushCharges();
    const d = await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { usage(days: 2) { credits } } }', {
      a: agentId,
    });
    return (d.agent.usage as { credits: number }[]).reduce((n, u) => n + u.credits, 0);
  }

  async function runEntry(agentId: string) {
    await h().service.services.activityLog.flush();
    const page = await h().service.store.repos.workspaceRead.listActivity(
      agentId,
      { kind: 'run' },
      { limit: 5, offset: 0 },
    );
    return page.items[0]!;
  }

  it('a provider failure after the model began answering: charged what it reported, the failure kept', async () => {
    const a = await agent();
    const { runs, calls } = scripted('failure');
    const r = await runs.run(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'));
    expect(r.error).to.deep.equal({
      kind: 'model',
      message: 'The model call failed',
      detail: 'the connection dropped',
    });
    expect(r.usage).to.deep.equal(USED);
    expect(r.credits).to.equal(CREDITS);
    expect(r.model).to.equal('test-model');
    expect(calls[0]!.meter).to.be.an('object');
  });

  it('the caller went away mid-answer: aborted, charged what was used; the kind run entry shows it', async () => {
    const a = await agent();
    const { lifecycle } = scripted('abort');
    const ac = new AbortController();
    const run = await lifecycle.begin(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'), {
      signal: ac.signal,
    });
    const events = run.events();
    expect((await events.next()).value).to.deep.equal({ type: 'delta', text: 'Hello there ' });
    ac.abort();
    const done = (await events.next()).value;
    expect(done.type === 'done' && done.result.error?.kind).to.equal('aborted');
    expect(done.type === 'done' && done.result.credits).to.equal(CREDITS);
    expect((await events.next()).done).to.equal(true);
    expect(run.facts!.credits).to.equal(CREDITS);
    expect((await runEntry(a.id)).credits).to.equal(CREDITS);
    expect(await charged(a.id)).to.be.closeTo(CREDITS, 1e-12);
  });

  it('the reader stops after the first delta: the pipeline charges what was used and logs it', async () => {
    const a = await agent();
    const { pipeline } = scripted('hang');
    const run = await pipeline.begin(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'));
    const events = run.events();
    expect((await events.next()).value).to.deep.equal({ type: 'delta', text: 'Hello there ' });
    await events.return(undefined);
    expect(run.facts!.credits).to.equal(CREDITS);
    expect(run.facts!.error).to.equal(null);
    expect(await charged(a.id)).to.be.closeTo(CREDITS, 1e-12);
    expect(h().service.services.admission.reservedInFlight(a.id)).to.equal(0);
  });

  it('an unexpected error after the model began answering: thrown on, and charged', async () => {
    const a = await agent();
    const { runs, lifecycle } = scripted('crash');
    const spent = { credits: 0 };
    const thrown = await runs
      .run(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'), { spent })
      .catch((e: unknown) => e);
    expect(thrown).to.be.instanceOf(TypeError);
    expect(spent.credits).to.equal(CREDITS);
    const again = await lifecycle
      .execute(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'))
      .catch((e: unknown) => e);
    expect(again).to.be.instanceOf(TypeError);
    const entry = await runEntry(a.id);
    expect(entry.credits).to.equal(CREDITS);
    expect(entry.error).to.equal('The run failed');
    expect(await charged(a.id)).to.be.closeTo(CREDITS, 1e-12);
  });

  it('a call the provider refused before answering costs nothing', async () => {
    const a = await agent();
    const { runs, lifecycle } = scripted('refused');
    const r = await runs.run(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'));
    expect(r.error!.kind).to.equal('model');
    expect(r.credits).to.equal(0);
    expect(r.usage).to.deep.equal({ inputTokens: 0, outputTokens: 0 });
    await lifecycle.execute(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'));
    expect((await runEntry(a.id)).credits).to.equal(0);
    expect(await charged(a.id)).to.equal(0);
  });

  it('a completed run is charged the usage the model reported, its prompt measured for the estimate', async () => {
    const a = await agent();
    fake.enqueue({ text: 'done', usage: { prompt: 1000, completion: 500 } });
    const r = await h().service.services.runs.run(keyPrincipal(a), a, promptEntry('Answer.'), httpInput('hi'));
    expect(r.usage).to.deep.equal(USED);
    expect(r.credits).to.equal(CREDITS);
  });
});
