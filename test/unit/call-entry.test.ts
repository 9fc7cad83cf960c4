import { expect } from 'chai';
import { callEntry, type CallEnding } from '../../src/domain/calls/call-entry.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { Forbidden, RunFailed } from '../../src/domain/errors.js';
import type { RunFacts } from '../../src/domain/runtime/run.types.js';
import type { AdmittedRun } from '../../src/domain/runtime/pipeline.js';

// The activity entry the call lifecycle writes (src/domain/calls/call-entry.ts): what it keeps as the
// answer and as the error for each way a call can end, streamed or not.

const agent = { id: 'agt_1', workspaceId: 'ws_1' } as unknown as Agent;

function facts(over: Partial<RunFacts> = {}): RunFacts {
  return {
    entry: 'orders',
    runId: 'run_1',
    credits: 2,
    logs: ['a log line'],
    output: { ok: true },
    error: null,
    errorDetail: null,
    durationMs: 5,
    outcome: 'ok',
    ...over,
  };
}

function ending(over: Partial<CallEnding> = {}, run?: Partial<RunFacts>): CallEnding {
  return {
    surface: 'HTTP_API',
    agent,
    facts: run ? { run: { facts: facts(run) } as unknown as AdmittedRun } : {},
    method: 'POST',
    path: '/agents/agt_1/api/orders',
    status: 200,
    requestHeaders: {},
    body: { sent: 'body' },
    streamed: false,
    requestId: 'req_1',
    ...over,
  };
}

describe('callEntry: the one activity entry of a surface call', () => {
  it('an answered call keeps the body answered, the run facts and no error', () => {
    const e = callEntry(ending({}, {}), 12);
    expect(e.response).to.deep.equal({ sent: 'body' });
    expect(e.error).to.equal(null);
    expect(e).to.include({ entry: 'orders', runId: 'run_1', credits: 2, durationMs: 12, requestId: 'req_1' });
    expect(e.logs).to.deep.equal(['a log line']);
  });

  it('a summary given as the answer is kept instead of the body', () => {
    expect(callEntry(ending({ answer: { tool: 'result' } }, {}), 1).response).to.deep.equal({ tool: 'result' });
  });

  it('a call that ended without failure keeps the run’s own error, its detail first, then its text', () => {
    expect(callEntry(ending({}, { error: 'handler threw', errorDetail: 'provider said no' }), 1).error).to.equal(
      'provider said no',
    );
    expect(callEntry(ending({}, { error: 'handler threw' }), 1).error).to.equal('handler threw');
  });

  it('a refusal keeps its message as the error and as the answer; a failed run keeps its detail', () => {
    const refused = callEntry(ending({ status: 403, failure: new Forbidden('not yours') }, {}), 1);
    expect(refused.error).to.equal('not yours');
    expect(refused.response).to.deep.equal({ error: 'not yours' });
    const failed = callEntry(
      ending(
        { status: 502, failure: new RunFailed('run_1', 'model', 'The model failed') },
        { error: 'model error', errorDetail: null },
      ),
      1,
    );
    expect(failed.error).to.equal('model error');
  });

  it('an unexpected failure is an internal error, and "The run failed" once the answer was streamed', () => {
    const plain = callEntry(ending({ status: 500, failure: new Error('boom') }), 1);
    expect(plain.error).to.equal('Internal server error');
    expect(plain.response).to.deep.equal({ error: 'Internal server error' });
    const streamed = callEntry(ending({ streamed: true, failure: new Error('boom') }), 1);
    expect(streamed.error).to.equal('The run failed');
    expect(streamed.response).to.deep.equal({ error: 'The run failed' });
  });

  it('a streamed answer keeps the run’s output, or null without a run, or the run’s error', () => {
    expect(
      callEntry(ending({ streamed: true, body: undefined }, { output: 'streamed text' }), 1).response,
    ).to.deep.equal({
      output: 'streamed text',
    });
    expect(callEntry(ending({ streamed: true, body: undefined }), 1).response).to.deep.equal({ output: null });
    const failedRun = callEntry(ending({ streamed: true }, { error: 'handler threw', errorDetail: 'full detail' }), 1);
    expect(failedRun.response).to.deep.equal({ error: 'handler threw' });
    expect(failedRun.error).to.equal('full detail');
    const refusedMidStream = callEntry(ending({ streamed: true, failure: new Forbidden('gone') }), 1);
    expect(refusedMidStream.response).to.deep.equal({ error: 'gone' });
  });
});
