import { expect } from 'chai';
import type { ActivityLog, ActivityRecord } from '../../src/domain/activity/activity-log.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { CallCancels, localCancelChannel } from '../../src/domain/calls/call-cancels.js';
import type { CallEnding } from '../../src/domain/calls/call-entry.js';
import { CallLifecycle } from '../../src/domain/calls/call-lifecycle.js';
import { NotFound } from '../../src/domain/errors.js';
import type { Pipeline } from '../../src/domain/runtime/pipeline.js';

// The lifecycle of a surface call writes its one entry from how the surface says it ended; no
// transport in sight (the Koa frame is one such surface, see test/integration/surface-activity-entry).

const agent = { id: 'agt_1', workspaceId: 'ws_1' } as Agent;

function lifecycle() {
  const written: ActivityRecord[] = [];
  const log = { writeEntry: (_a: Agent, r: ActivityRecord) => void written.push(r) } as unknown as ActivityLog;
  return { calls: new CallLifecycle(log, {} as Pipeline, new CallCancels(localCancelChannel())), written };
}

const ending = (over: Partial<CallEnding> = {}): CallEnding => ({
  surface: 'HTTP_API',
  agent,
  method: 'POST',
  path: '/agents/agt_1/api/x',
  status: 200,
  requestHeaders: { 'x-agent-access-key': 'secret' },
  body: { ok: true },
  streamed: false,
  requestId: 'req_1',
  ...over,
});

describe('call lifecycle: one entry per surface call', () => {
  it('writes the entry once the surface answered: status, body, request id, duration', async () => {
    const { calls, written } = lifecycle();
    const order: string[] = [];
    await calls.run({ handle: async () => void order.push('handled'), ending: () => (order.push('ended'), ending()) });
    expect(order).to.deep.equal(['handled', 'ended']);
    expect(written).to.have.length(1);
    expect(written[0]).to.include({ surface: 'HTTP_API', status: 200, requestId: 'req_1', error: null });
    expect(written[0]!.response).to.deep.equal({ ok: true });
    expect(written[0]!.durationMs).to.be.a('number');
  });

  it('a refusal is on record with its message; an unexpected failure as a generic one', async () => {
    const { calls, written } = lifecycle();
    const refused = new NotFound('Endpoint', 'x');
    await calls.run({ handle: async () => {}, ending: () => ending({ status: 404, failure: refused }) });
    await calls.run({ handle: async () => {}, ending: () => ending({ status: 500, failure: new Error('boom') }) });
    expect(written.map((r) => r.error)).to.deep.equal([refused.message, 'Internal server error']);
    expect(written[1]!.response).to.deep.equal({ error: 'Internal server error' });
  });

  it('no agent named, or handling that threw past the surface: no entry', async () => {
    const { calls, written } = lifecycle();
    await calls.run({ handle: async () => {}, ending: () => null });
    const thrown = await calls
      .run({
        handle: async () => {
          throw new Error('past the error mapper');
        },
        ending: () => ending(),
      })
      .catch((e: unknown) => e);
    expect(thrown).to.be.instanceOf(Error);
    expect(written).to.deep.equal([]);
  });
});
