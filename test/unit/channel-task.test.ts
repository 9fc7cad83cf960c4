import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { ChannelMessageTask, type ChannelTaskDeps } from '../../src/domain/channels/channel-message.task.js';
import type { Channel } from '../../src/domain/entries/channel.entities.js';
import type { EmailSendResult, OutgoingSms, SmsSendResult } from '../../src/domain/channels/channel.ports.js';
import type { OutboundEmail } from '../../src/domain/email/reply.js';
import { Forbidden, LimitExceeded, Unavailable } from '../../src/domain/errors.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import type { Principal } from '../../src/domain/principal.js';
import type { Store } from '../../src/domain/ports.js';
import type { AdmittedRun, Pipeline } from '../../src/domain/runtime/pipeline.js';
import type { RunEntry, RunInput, RunResult } from '../../src/domain/runtime/run.types.js';
import { MAX_DELIVERY_ATTEMPTS } from '../../src/domain/core/retry-schedule.js';
import { channelOf, messageOf } from '../helpers/channel-fixtures.js';

// The channel queue's task with fakes of its ports (docs/decisions.md §30, §32): how each way a run
// or a provider ends becomes an outcome, and what is handed to the pipeline and the providers.

const NOW = new Date('2026-11-27T10:00:00Z');
const AGENT = { id: 'agt_1', workspaceId: 'wsp_1' } as Agent;

type Begin = (p: Principal, a: Agent, e: RunEntry, i: RunInput) => Promise<AdmittedRun>;
const resultOf = (over: Partial<RunResult>): RunResult => ({
  runId: 'run_1',
  output: 'Thanks',
  usage: {} as RunResult['usage'],
  credits: 0,
  model: null,
  logs: [],
  durationMs: 1,
  ...over,
});
const runOf = (events: () => AsyncGenerator<{ type: string; result?: RunResult }>) =>
  ({
    events,
    span: { traceparent: () => '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  }) as unknown as AdmittedRun;
const answering = (r: RunResult) =>
  runOf(async function* () {
    yield { type: 'step' };
    yield { type: 'done', result: r };
  });

function task(
  opts: {
    begin?: Begin;
    agent?: Agent | null;
    channel?: Channel | null;
    sms?: (s: OutgoingSms) => Promise<SmsSendResult>;
    email?: (m: OutboundEmail) => Promise<EmailSendResult>;
    configured?: boolean;
    sentIntoThread?: boolean;
  } = {},
) {
  const begun: { principal: Principal; entry: RunEntry; input: RunInput }[] = [];
  const asked: [string, string][] = [];
  const sent: unknown[] = [];
  const store = {
    repos: {
      agents: { get: async () => (opts.agent === undefined ? AGENT : opts.agent) },
      channels: { get: async (id: string) => (opts.channel === undefined ? channelOf({ id }) : opts.channel) },
      // Whether the run sent into the thread with its own tools (the messaging capability); by default nothing.
      messages: {
        sentIntoThread: async (runId: string, threadId: string) => (
          asked.push([runId, threadId]),
          opts.sentIntoThread ?? false
        ),
      },
    },
  } as unknown as Store;
  const pipeline = {
    begin: async (principal: Principal, agent: Agent, entry: RunEntry, input: RunInput) => {
      begun.push({ principal, entry, input });
      return (opts.begin ?? (async () => answering(resultOf({}))))(principal, agent, entry, input);
    },
  } as unknown as Pipeline;
  const configured = opts.configured ?? true;
  const deps: ChannelTaskDeps = {
    store,
    calls: pipeline,
    clock: { now: () => NOW } as ChannelTaskDeps['clock'],
    baseUrl: 'https://svc.test',
    mailDomain: 'out.example',
    sms: {
      configured,
      verify: () => true,
      send: async (s) => (
        sent.push(s),
        (opts.sms ?? (async () => ({ ok: true, messageId: 'SM9', status: 'queued', answer: { sid: 'SM9' } })))(s)
      ),
    },
    email: {
      configured,
      send: async (m) => (sent.push(m), (opts.email ?? (async () => ({ ok: true, answer: '250 ok' })))(m)),
    },
  };
  return { t: new ChannelMessageTask(deps), begun, sent, asked };
}

describe('channel message task', () => {
  it('gives up on a message that used up its attempts', async () => {
    const { t, begun } = task();
    expect(await t.run(messageOf({ failures: MAX_DELIVERY_ATTEMPTS }))).to.deep.equal({
      kind: 'failed',
      error: `Stopped after ${MAX_DELIVERY_ATTEMPTS} attempts; the last did not finish (the instance running it stopped)`,
      runId: 'run_old',
    });
    expect(begun).to.have.length(0);
    expect((await t.run(messageOf({ failures: MAX_DELIVERY_ATTEMPTS - 1 }))).kind).to.equal('done');
  });

  it('answers a received email as the channel-answer principal, queuing the threaded reply', async () => {
    const { t, begun } = task({
      begin: async () => answering(resultOf({ output: { reply: 'Sure', subject: 'Own subject' } })),
    });
    const o = await t.run(messageOf());
    expect(begun[0]!.principal).to.deep.equal({
      kind: 'system',
      name: 'channel-answer',
      workspaceId: 'wsp_1',
      agentId: 'agt_1',
    });
    expect(begun[0]!.entry).to.deep.equal({
      kind: 'channel',
      id: 'chn_1',
      name: 'agent@mail.test',
      handler: { kind: 'prompt', body: 'Answer.' },
      modelOverride: null,
    });
    expect(begun[0]!.input.surface).to.equal('EMAIL');
    expect(o).to.deep.include({ kind: 'done', status: 'answered', runId: 'run_1' });
    const reply = (o as { reply: Message }).reply;
    expect(reply).to.deep.include({
      to: 'alice@example.com',
      subject: 'Own subject',
      body: 'Sure',
      inReplyTo: '<m1@example.com>',
      sentAt: NOW,
      runId: 'run_1',
    });
    expect(reply.messageId).to.match(/@out\.example>$/);
    // Events after `done` do not take its result away.
    const trailing = task({
      begin: async () =>
        runOf(async function* () {
          yield { type: 'done', result: resultOf({ output: 'Late' }) };
          yield { type: 'usage' };
        }),
    });
    expect(((await trailing.t.run(messageOf())) as { reply: Message }).reply.body).to.equal('Late');
    const plain = await task().t.run(messageOf());
    expect((plain as { reply: Message }).reply.subject).to.equal('Re: Question');
  });

  it("queues no second answer when the run already wrote into the message's thread with a tool", async () => {
    const { t, asked } = task({ sentIntoThread: true });
    expect(await t.run(messageOf({ threadId: '<root@example.com>' }))).to.deep.equal({
      kind: 'done',
      status: 'answered',
      runId: 'run_1',
    });
    expect(asked).to.deep.equal([['run_1', '<root@example.com>']]);
    const unthreaded = task({ sentIntoThread: true });
    expect(((await unthreaded.t.run(messageOf({ threadId: null }))) as { reply?: Message }).reply?.body).to.equal(
      'Thanks',
    );
    expect(unthreaded.asked).to.have.length(0);
  });

  it('answers nothing when the output is empty, retries a failed run', async () => {
    expect(await task({ begin: async () => answering(resultOf({ output: '  ' })) }).t.run(messageOf())).to.deep.equal({
      kind: 'done',
      status: 'answered',
      runId: 'run_1',
    });
    expect(
      await task({
        begin: async () => answering(resultOf({ output: null, error: { kind: 'script', message: 'script threw' } })),
      }).t.run(messageOf()),
    ).to.deep.equal({ kind: 'retry', error: 'script threw', runId: 'run_1' });
  });

  it('fails when the agent or the channel is gone', async () => {
    const gone = { kind: 'failed', error: 'The agent or its channel was removed', runId: null };
    expect(await task({ agent: null }).t.run(messageOf())).to.deep.equal(gone);
    expect(await task({ channel: null }).t.run(messageOf())).to.deep.equal(gone);
    expect(await task().t.run(messageOf({ channelId: null }))).to.deep.equal(gone);
  });

  it('defers on limits and unavailability, fails on other refusals, retries what could not start or finish', async () => {
    const refusing = (err: unknown) => task({ begin: async () => Promise.reject(err) }).t.run(messageOf());
    expect(await refusing(new LimitExceeded('DAILY_CREDITS' as never, 120, 'daily limit'))).to.deep.equal({
      kind: 'deferred',
      error: 'daily limit',
      retryAfterSeconds: 120,
      refusal: { code: 'LIMIT_EXCEEDED', reason: 'DAILY_CREDITS' },
    });
    expect(await refusing(new Unavailable('busy', 7))).to.deep.equal({
      kind: 'deferred',
      error: 'busy',
      retryAfterSeconds: 7,
    });
    expect(await refusing(new Forbidden('off'))).to.deep.equal({
      kind: 'failed',
      error: 'off',
      runId: null,
      refusal: { code: 'FORBIDDEN' },
    });
    expect(await refusing(new Error('db down'))).to.deep.equal({
      kind: 'retry',
      error: 'The run could not start',
      runId: null,
    });
    const failing = (err: unknown) =>
      task({
        begin: async () =>
          runOf(async function* () {
            yield { type: 'step' };
            throw err;
          }),
      }).t.run(messageOf());
    expect(await failing(new Unavailable('model busy', 9))).to.deep.equal({
      kind: 'deferred',
      error: 'model busy',
      retryAfterSeconds: 9,
    });
    expect(await failing(new Forbidden('guardrail'))).to.deep.equal({ kind: 'retry', error: 'guardrail', runId: null });
    expect(await failing(new Error('secret detail'))).to.deep.equal({
      kind: 'retry',
      error: 'The run failed',
      runId: null,
    });
    expect(
      await task({
        begin: async () =>
          runOf(async function* () {
            yield { type: 'step' };
          }),
      }).t.run(messageOf()),
    ).to.deep.equal({ kind: 'retry', error: 'The run ended without a result', runId: null });
  });

  const outSms = () =>
    messageOf({
      direction: 'outbound',
      channel: 'sms',
      from: '+14155550100',
      to: '+14155550123',
      body: 'Hi',
      agentId: 'agt/1',
      attempts: 3,
      provider: null,
    });
  const outEmail = () =>
    messageOf({
      direction: 'outbound',
      from: 'agent@mail.test',
      to: ' a@x.test, ,b@x.test ',
      subject: null,
      body: 'Hi',
      messageId: '<o1@out>',
      inReplyTo: '<m1@x>',
      attempts: 2,
      provider: { email: { references: ['<r@x>'], headers: { 'Auto-Submitted': 'auto-replied' } } },
    });

  it('sends an SMS with its status callback, keeping the provider answer', async () => {
    const { t, sent } = task();
    const o = await t.run(outSms());
    expect(sent).to.deep.equal([
      {
        from: '+14155550100',
        to: '+14155550123',
        body: 'Hi',
        statusCallback: 'https://svc.test/agents/agt%2F1/sms/status',
      },
    ]);
    expect(o).to.deep.equal({
      kind: 'done',
      status: 'sent',
      runId: null,
      messageId: 'SM9',
      provider: {
        sends: [{ at: NOW.toISOString(), attempt: 3, status: 'queued', messageId: 'SM9', answer: { sid: 'SM9' } }],
      },
    });
  });

  it('retries or fails an SMS the provider refused or did not take, and waits when SMS is not configured', async () => {
    expect(await task({ configured: false }).t.run(outSms())).to.deep.equal({
      kind: 'retry',
      error: 'SMS is not configured: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN',
      runId: null,
    });
    const event = (error: string, answer: unknown) => ({
      sends: [{ at: NOW.toISOString(), attempt: 3, error, answer }],
    });
    expect(
      await task({
        sms: async () => ({ ok: false, retry: false, error: 'bad number', answer: { code: 21211 } }),
      }).t.run(outSms()),
    ).to.deep.equal({
      kind: 'failed',
      error: 'bad number',
      runId: null,
      provider: event('bad number', { code: 21211 }),
    });
    expect(
      await task({ sms: async () => ({ ok: false, retry: true, error: '503', answer: null }) }).t.run(outSms()),
    ).to.deep.equal({ kind: 'retry', error: '503', runId: null, provider: event('503', null) });
    expect(await task({ sms: async () => Promise.reject(new Error('ECONNRESET')) }).t.run(outSms())).to.deep.equal({
      kind: 'retry',
      error: 'ECONNRESET',
      runId: null,
      provider: event('ECONNRESET', null),
    });
    expect(await task({ sms: async () => Promise.reject('odd') }).t.run(outSms())).to.deep.include({
      kind: 'retry',
      error: 'odd',
    });
  });

  it('sends an email as stored: recipients, subject, Message-ID and threading headers', async () => {
    const { t, sent } = task();
    const o = await t.run(outEmail());
    expect(sent).to.deep.equal([
      {
        from: 'agent@mail.test',
        to: ['a@x.test', 'b@x.test'],
        subject: '',
        text: 'Hi',
        messageId: '<o1@out>',
        inReplyTo: '<m1@x>',
        references: ['<r@x>'],
        headers: { 'Auto-Submitted': 'auto-replied' },
      },
    ]);
    expect(o).to.deep.equal({
      kind: 'done',
      status: 'sent',
      runId: null,
      provider: {
        email: { references: ['<r@x>'], headers: { 'Auto-Submitted': 'auto-replied' } },
        sends: [{ at: NOW.toISOString(), attempt: 2, answer: '250 ok' }],
      },
    });
    const bare = task();
    await bare.t.run(messageOf({ direction: 'outbound', subject: 'S', messageId: null, provider: null }));
    expect(bare.sent[0]).to.deep.include({ subject: 'S', messageId: '', references: [], headers: {} });
  });

  it('retries or fails an email the smarthost refused, and waits when no smarthost is configured', async () => {
    expect(await task({ configured: false }).t.run(outEmail())).to.deep.equal({
      kind: 'retry',
      error: 'Email sending is not configured: set SMTP_URL to the smarthost',
      runId: null,
    });
    expect(
      await task({ email: async () => ({ ok: false, retry: false, error: '550 no', answer: '550' }) }).t.run(
        outEmail(),
      ),
    ).to.deep.include({ kind: 'failed', error: '550 no' });
    expect(await task({ email: async () => Promise.reject(new Error('timeout')) }).t.run(outEmail())).to.deep.include({
      kind: 'retry',
      error: 'timeout',
    });
    expect(await task({ email: async () => Promise.reject(7) }).t.run(outEmail())).to.deep.include({
      kind: 'retry',
      error: '7',
    });
  });
});
