import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { ChannelMessageTask, type ChannelTaskDeps } from '../../src/domain/channels/channel-message.task.js';
import type { OutgoingSms } from '../../src/domain/channels/channel.ports.js';
import { sendTrace } from '../../src/domain/channels/send-trace.js';
import type { OutboundEmail } from '../../src/domain/email/reply.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import type { Store } from '../../src/domain/ports.js';
import type { AdmittedRun, BeginOptions, UnattendedRuns } from '../../src/domain/runtime/pipeline.js';
import type { RunResult } from '../../src/domain/runtime/run.types.js';
import { Tracer } from '../../src/domain/tracing/call-trace.js';
import { parseTraceparent } from '../../src/domain/tracing/trace-context.js';
import { channelOf, messageOf } from '../helpers/channel-fixtures.js';

// Trace context through the channel queue (issue 53): the answering run links to the receipt, the
// answer and each send attempt are in the trace of the run that queued them.

const RECEIPT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const RUN = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const RUN_TRACE = '0af7651916cd43dd8448eb211c80319c';

function task(tracer?: Tracer) {
  const opts: BeginOptions[] = [];
  const sent: (OutgoingSms | OutboundEmail)[] = [];
  const result = { runId: 'run_1', output: 'Sure', usage: {}, credits: 0, model: null, logs: [], durationMs: 1 };
  const calls: UnattendedRuns = {
    begin: async (_p, _a, _e, _i, o = {}) => {
      opts.push(o);
      const events = async function* () {
        yield { type: 'done', result: result as unknown as RunResult };
      };
      return { events, span: { traceparent: () => RUN } } as unknown as AdmittedRun;
    },
  };
  const store = {
    repos: {
      agents: { get: async () => ({ id: 'agt_1', workspaceId: 'wsp_1' }) as Agent },
      channels: { get: async (id: string) => channelOf({ id }) },
      messages: { sentIntoThread: async () => false },
    },
  } as unknown as Store;
  const ok = async (m: OutgoingSms | OutboundEmail) => (sent.push(m), { ok: true as const, answer: null });
  const deps: ChannelTaskDeps = {
    store,
    calls,
    clock: { now: () => new Date('2026-11-29T10:00:00Z') } as ChannelTaskDeps['clock'],
    baseUrl: 'https://svc.test',
    mailDomain: 'out.example',
    sms: {
      configured: true,
      verify: () => true,
      send: async (s) => (await ok(s), { ok: true, messageId: 'SM1', status: 'queued', answer: null }),
    },
    email: { configured: true, send: ok },
    ...(tracer ? { tracer } : {}),
  };
  return { t: new ChannelMessageTask(deps), opts, sent };
}

describe('channel messages: trace context', () => {
  it("links the answering run to the receipt's span and queues the answer in the run's trace", async () => {
    const { t, opts } = task();
    const o = await t.run(messageOf({ traceParent: RECEIPT }));
    expect(opts[0]!.links).to.deep.equal([parseTraceparent(RECEIPT)]);
    expect((o as { reply: Message }).reply.traceParent).to.equal(RUN);
    // A message stored before traces (or with a broken value) links to nothing.
    const none = task();
    await none.t.run(messageOf({ traceParent: 'not a traceparent' }));
    expect(none.opts[0]!.links).to.deep.equal([]);
  });

  it("sends in the queuing run's trace: a client span of the attempt with a tracer, the run's span without", async () => {
    const outbound = (channel: 'sms' | 'email') =>
      messageOf({ direction: 'outbound', channel, status: 'queued', traceParent: RUN });
    const traced = task(new Tracer());
    await traced.t.run(outbound('sms'));
    await traced.t.run(outbound('email'));
    for (const s of traced.sent) {
      const ref = parseTraceparent(s.trace?.traceparent);
      expect(ref?.traceId).to.equal(RUN_TRACE);
      expect(ref?.spanId).to.not.equal('b7ad6b7169203331');
    }
    const bare = task();
    await bare.t.run(outbound('sms'));
    expect(bare.sent[0]!.trace).to.deep.equal({ traceparent: RUN });
    // Nothing to carry: no header at all.
    const old = task(new Tracer());
    await old.t.run(messageOf({ direction: 'outbound', channel: 'sms', status: 'queued' }));
    expect(old.sent[0]).to.not.have.property('trace');
  });

  it("fails the attempt's span when the provider refused, in the run's trace", () => {
    const ended: string[] = [];
    const tracer = {
      begin: (name: string, parent: unknown) => {
        const span = new Tracer().begin(name, parent as never, { kind: 'client' });
        return Object.assign(span, {
          failWith: (code: string) => (ended.push(code), span),
        });
      },
    };
    const trace = sendTrace(tracer, messageOf({ channel: 'sms', traceParent: RUN }));
    trace.end({ retry: true, error: 'HTTP 503' });
    expect(ended).to.deep.equal(['UNAVAILABLE']);
    expect(parseTraceparent(trace.headers?.traceparent)?.traceId).to.equal(RUN_TRACE);
  });
});
