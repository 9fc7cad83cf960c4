import { expect } from 'chai';
import { callEntry, type CallEnding } from '../../src/domain/calls/call-entry.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { Forbidden, Invalid, MethodNotAllowed, RunFailed } from '../../src/domain/errors.js';
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

  it('protocol traffic is marked as such; a call is not, whatever else its facts say', () => {
    expect(callEntry(ending({ facts: { protocol: true, entry: 'initialize' } }), 1)).to.include({
      protocol: true,
      entry: 'initialize',
      error: null,
    });
    expect(callEntry(ending({}, {}), 1).protocol).to.equal(false);
    expect(callEntry(ending({ facts: { protocol: false } }), 1).protocol).to.equal(false);
  });

  it('the 405 a stream probe expects is on record with its answer, never as an error', () => {
    const probe = callEntry(
      ending({
        method: 'GET',
        status: 405,
        failure: new MethodNotAllowed(['POST']),
        facts: { protocol: true },
        body: { error: 'Method GET not allowed' },
      }),
      1,
    );
    expect(probe.error).to.equal(null);
    expect(probe.response).to.deep.equal({ error: 'Method GET not allowed' });
    expect(probe.status).to.equal(405);
    // The same 405 to a call (no protocol traffic) is an error, and so is any other refusal of protocol traffic.
    const call = callEntry(ending({ status: 405, failure: new MethodNotAllowed(['POST']) }), 1);
    expect(call.error).to.be.a('string').and.not.equal('');
    const refused = callEntry(
      ending({ status: 400, failure: new Invalid('bad handshake'), facts: { protocol: true } }),
      1,
    );
    expect(refused.error).to.equal('bad handshake');
    expect(refused.response).to.deep.equal({ error: 'bad handshake' });
  });

  it('a webhook receipt names its delivery; other calls name none', () => {
    expect(callEntry(ending({ surface: 'WEBHOOKS', facts: { deliveryId: 'dlv_1' } }), 1).deliveryId).to.equal('dlv_1');
    expect(callEntry(ending({}, {}), 1).deliveryId).to.equal(null);
  });

  it('the facts of a keyless call are read when there is no caller; a caller’s facts come first', () => {
    const caller = { facts: { protocol: true }, principal: { kind: 'agentKey' }, keyId: 'key_1' };
    const both = callEntry(ending({ caller: caller as never, facts: { deliveryId: 'dlv_2' } }), 1);
    expect(both).to.include({ protocol: true, deliveryId: null, keyId: 'key_1' });
  });
});
