import { expect } from 'chai';
import type { ActivityLog, ActivityRecord } from '../../src/domain/activity/activity-log.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { CallCancels, localCancelChannel } from '../../src/domain/calls/call-cancels.js';
import { CallLifecycle } from '../../src/domain/calls/call-lifecycle.js';
import type { Principal } from '../../src/domain/principal.js';
import { AdmittedRun, type Pipeline } from '../../src/domain/runtime/pipeline.js';
import type { RunEntry, RunEvent, RunFacts, RunInput } from '../../src/domain/runtime/run.types.js';

// The lifecycle's runs (src/domain/calls/call-lifecycle.ts): counted for /metrics when they end,
// run to their result by `execute`, and a run no request waits for logged as an entry of kind `run`.

const agent = { id: 'agt_1', workspaceId: 'ws_1' } as Agent;
const principal = { kind: 'admin' } as unknown as Principal;
const entry = { kind: 'webhook', id: null, name: 'events', handler: { kind: 'script' } } as unknown as RunEntry;
const input = { surface: 'WEBHOOK', method: 'POST', path: '/hook', headers: {}, body: { a: 1 } } as unknown as RunInput;
const facts: RunFacts = {
  entry: 'events',
  runId: 'run_1',
  credits: 3,
  logs: [],
  output: 'done',
  error: null,
  errorDetail: null,
  durationMs: 4,
  outcome: 'ok',
};

/** An admitted run that yields `events` and then reports `facts` as ended (unless `events` lacks a done). */
function admitted(events: RunEvent[]): AdmittedRun {
  const admission = { release: async () => {} } as unknown as ConstructorParameters<typeof AdmittedRun>[1];
  return new AdmittedRun('run_1', admission, Date.now(), async function* (_a, _s, ended) {
    for (const ev of events) yield ev;
    ended(facts);
  });
}

function lifecycle(events: RunEvent[]) {
  const written: ActivityRecord[] = [];
  const counted: [string, string, number][] = [];
  const log = { writeEntry: (_a: Agent, r: ActivityRecord) => void written.push(r) } as unknown as ActivityLog;
  const pipeline = {
    begin: async () => admitted(events),
    guard: async <T>(_a: Agent, _t: string, work: () => Promise<T>) => work(),
  } as unknown as Pipeline;
  const metrics = {
    run: (kind: string, outcome: string, credits: number) => void counted.push([kind, outcome, credits]),
  };
  const calls = new CallLifecycle(log, pipeline, new CallCancels(localCancelChannel()), metrics);
  return { calls, written, counted };
}

const done = { type: 'done', result: { output: 'done', error: null } } as unknown as RunEvent;

describe('call lifecycle: runs counted, run to their result, logged', () => {
  it('execute returns the done event’s result; the run is counted once and logged as a run entry', async () => {
    const { calls, written, counted } = lifecycle([{ type: 'delta', text: 'x' }, done]);
    const result = await calls.execute(principal, agent, entry, input);
    expect(result).to.deep.equal({ output: 'done', error: null });
    expect(counted).to.deep.equal([['script', 'ok', 3]]);
    expect(written).to.have.length(1);
    expect(written[0]).to.include({ kind: 'run', surface: 'WEBHOOK', entry: 'events', credits: 3, runId: 'run_1' });
    expect(written[0]!.response).to.deep.equal({ output: 'done' });
  });

  it('a run that ends without a done event is an error, not a result', async () => {
    const { calls } = lifecycle([{ type: 'delta', text: 'x' }]);
    const err = await calls.execute(principal, agent, entry, input).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error).with.property('message', 'the run ended without a result');
  });

  it('an admitted surface run is counted when it ends; guard runs the work; a received message is logged', async () => {
    const { calls, written, counted } = lifecycle([done]);
    const run = await calls.admit(principal, agent, entry, input);
    expect(counted).to.deep.equal([]);
    for await (const _ of run.events());
    expect(counted).to.deep.equal([['script', 'ok', 3]]);
    expect(written, 'a surface run’s entry is the call’s, written by run()').to.deep.equal([]);
    expect(await calls.guard(agent, 'text', async () => 42)).to.equal(42);
    calls.received(agent, { surface: 'EMAIL' } as ActivityRecord);
    expect(written).to.deep.equal([{ surface: 'EMAIL' }]);
  });

  it('a webhook delivery’s run names its delivery, as its receipt does; another run names none', async () => {
    const { calls, written } = lifecycle([done]);
    const delivery = { id: 'dlv_1', attempt: 2, senderDeliveryId: null };
    await calls.execute(principal, agent, entry, { ...input, delivery });
    await calls.execute(principal, agent, entry, input);
    expect(written.map((w) => w.deliveryId)).to.deep.equal(['dlv_1', null]);
  });

  it('a refused run of a delivery names its delivery too', async () => {
    const written: ActivityRecord[] = [];
    const log = { writeEntry: (_a: Agent, r: ActivityRecord) => void written.push(r) } as unknown as ActivityLog;
    const refusing = {
      begin: async () => {
        throw new Error('over the limit');
      },
    } as unknown as Pipeline;
    const calls = new CallLifecycle(log, refusing, new CallCancels(localCancelChannel()));
    const delivery = { id: 'dlv_9', attempt: 1, senderDeliveryId: null };
    const err = await calls.begin(principal, agent, entry, { ...input, delivery }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    expect(written).to.have.length(1);
    expect(written[0]).to.include({ kind: 'run', deliveryId: 'dlv_9', error: 'The run failed', runId: null });
    expect(written[0]!.response).to.deep.equal({ error: 'The run failed' });
  });
});
