import { expect } from 'chai';
import type { ReceiptLog, ActivityRecord } from '../../src/domain/activity/activity-log.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Channel, ChannelKind } from '../../src/domain/entries/channel.entities.js';
import { EmailReceiptService, type EmailDelivery } from '../../src/domain/channels/email-receipt.service.js';
import { SmsReceiptService, type SmsCallback } from '../../src/domain/channels/sms-receipt.service.js';
import type { SenderVerdict } from '../../src/domain/email/sender-rules.js';
import type { Clock } from '../../src/domain/clock.js';
import { Forbidden, Invalid, NotFound, Unauthenticated, Unavailable } from '../../src/domain/errors.js';
import type { Json } from '../../src/domain/json.js';
import type { Message, MessageStatus } from '../../src/domain/messages/message.entities.js';
import type { MessageAttachment } from '../../src/domain/messages/message.ports.js';
import type { Store } from '../../src/domain/ports.js';
import { channelOf, messageOf } from '../helpers/channel-fixtures.js';
import { inboundMail } from '../helpers/inbound-mail.js';
import { Tracer, type Span } from '../../src/domain/tracing/call-trace.js';

// The EMAIL and SMS ways in (docs/decisions.md §30, §32) over an in-memory store: what is stored,
// when it is answered, what is refused, and when the channel queue is woken.

const NOW = new Date('2026-11-27T10:00:00Z');
const clock = { now: () => NOW } as Clock;

function agentOf(id: string, on = true): Agent {
  return { id, workspaceId: 'wsp_1', surfaces: { EMAIL: { enabled: on }, SMS: { enabled: on } } } as unknown as Agent;
}

/** A store of agents, channels and accepted messages; `failAccept` makes storing fail. */
function memoryStore(
  agents: Agent[],
  channels: Channel[],
  opts: { answeredLastHour?: number; channelLastHour?: number; failAccept?: boolean | string } = {},
) {
  const messages: Message[] = [];
  const lookedUp: string[] = [];
  const accepted: { message: Message; attachments: readonly MessageAttachment[] | undefined }[] = [];
  const counted: unknown[][] = [];
  const statuses: [string, MessageStatus, Json][] = [];
  const repos = {
    agents: { get: async (id: string) => agents.find((a) => a.id === id) ?? null },
    channels: {
      findByAddress: async (kind: ChannelKind, address: string) => (
        lookedUp.push(address),
        channels.find((c) => c.kind === kind && c.address === address) ?? null
      ),
      listByAgents: async (ids: string[]) => channels.filter((c) => ids.includes(c.agentId)),
    },
    messages: {
      accept: async (m: Message, attachments?: readonly MessageAttachment[]) => {
        if (typeof opts.failAccept === 'string') throw opts.failAccept;
        if (opts.failAccept) throw new Error('disk full');
        const seen =
          m.messageId === null
            ? undefined
            : messages.find((x) => x.channelId === m.channelId && x.messageId === m.messageId);
        if (seen) return { message: seen, duplicate: true };
        messages.push(m);
        accepted.push({ message: m, attachments });
        return { message: m, duplicate: false };
      },
      countAnswerable: async (...args: unknown[]) => (
        counted.push(args),
        args[1] === null ? (opts.channelLastHour ?? 0) : (opts.answeredLastHour ?? 0)
      ),
      findByMessageId: async (agentId: string, direction: string, id: string) =>
        messages.find((m) => m.agentId === agentId && m.direction === direction && m.messageId === id) ?? null,
      setStatus: async (id: string, status: MessageStatus, provider: Json) =>
        void statuses.push([id, status, provider]),
    },
  };
  const store = { repos, transaction: async <T>(fn: (r: typeof repos) => Promise<T>) => fn(repos) } as unknown as Store;
  return { store, messages, accepted, counted, statuses, lookedUp };
}

function signals() {
  let woken = 0;
  return { queue: { onQueued: () => void woken++ }, woken: () => woken };
}

describe('email receipt', () => {
  const helpdesk = channelOf({ id: 'chn_h', address: 'help@mail.test' });
  const sales = channelOf({ id: 'chn_s', address: 'sales@mail.test' });
  const PASS: SenderVerdict = {
    authenticated: true,
    method: 'dkim',
    summary: 'spf=none dkim=pass (d=example.com) dmarc=none (from example.com)',
  };
  const FAIL: SenderVerdict = {
    authenticated: false,
    method: 'none',
    summary: 'spf=none dkim=none dmarc=none (from example.com)',
  };
  const smtp: EmailDelivery = {
    recipients: ['Help@Mail.Test'],
    via: 'smtp',
    envelope: { mailFrom: 'bounce@example.com', remoteAddress: '127.0.0.1', secure: false },
    sender: PASS,
  };
  const AUTH = { authenticated: true, method: 'dkim', summary: PASS.summary };

  function service(
    opts: {
      agents?: Agent[];
      channels?: Channel[];
      answeredLastHour?: number;
      channelLastHour?: number;
      failAccept?: boolean | string;
      limit?: number;
      channelLimit?: number;
    } = {},
  ) {
    const mem = memoryStore(opts.agents ?? [agentOf('agt_1')], opts.channels ?? [helpdesk, sales], opts);
    const recorded: ActivityRecord[] = [];
    // The receipt runs in a span of its own, as the call lifecycle runs it.
    const receipts: Span[] = [];
    const activity: ReceiptLog = {
      receipt: (name, attributes, work) => {
        const span = new Tracer().begin(name, null, { kind: 'server', attributes });
        receipts.push(span);
        return work(span);
      },
      received: (_a: Agent, r: ActivityRecord) => void recorded.push(r),
    };
    const s = signals();
    const limits =
      opts.limit === undefined && opts.channelLimit === undefined
        ? undefined
        : { repliesPerSenderPerHour: opts.limit ?? 10, repliesPerChannelPerHour: opts.channelLimit ?? 100 };
    const svc = new EmailReceiptService(mem.store, clock, activity, s.queue, limits);
    return { svc, ...mem, recorded, woken: s.woken, receipts };
  }

  it('stores a message to be answered, with its details, records it and wakes the queue', async () => {
    const { svc, accepted, recorded, woken, counted, receipts } = service();
    const mail = inboundMail({
      cc: [{ address: 'c@x.test', name: '' }],
      replyTo: [{ address: 'r@x.test', name: '' }],
      html: '<p>hi</p>',
      attachments: [
        { filename: 'a.txt', contentType: 'text/plain', size: 3, content: Buffer.from('abc') },
        { filename: null, contentType: 'image/png', size: 9 },
      ] as never,
    });
    const [r] = await svc.receive(mail, smtp);
    expect(r!.duplicate).to.equal(false);
    expect(r!.message.id).to.match(/^msg_[a-z0-9]{16}$/);
    expect(r!.message).to.deep.include({
      direction: 'inbound',
      channel: 'email',
      from: 'alice@example.com',
      to: 'help@mail.test',
      subject: 'Question',
      body: 'Hello',
      status: 'received',
      nextAttemptAt: NOW,
      lastError: null,
      threadId: '<m1@example.com>',
      messageId: '<m1@example.com>',
      workspaceId: 'wsp_1',
      agentId: 'agt_1',
      channelId: 'chn_h',
      attempts: 0,
      failures: 0,
      runId: null,
      sentAt: NOW,
      answerTo: 'alice@example.com',
      // The receipt's span: the run that answers it later links to it.
      traceParent: receipts[0]!.traceparent(),
    });
    expect(receipts.map((sp) => sp.name)).to.deep.equal(['receive email']);
    expect(r!.message.provider).to.deep.equal({
      email: {
        references: [],
        cc: ['c@x.test'],
        replyTo: ['r@x.test'],
        html: '<p>hi</p>',
        answer: 'ok',
        answerTo: 'alice@example.com',
        auth: AUTH,
        via: 'smtp',
        envelope: smtp.envelope,
        attachments: [
          { filename: 'a.txt', contentType: 'text/plain', size: 3, kept: true },
          { filename: null, contentType: 'image/png', size: 9, kept: false },
        ],
      },
    });
    expect(accepted[0]!.attachments).to.deep.equal([
      { filename: 'a.txt', contentType: 'text/plain', size: 3, content: Buffer.from('abc') },
      { filename: null, contentType: 'image/png', size: 9, content: null },
    ]);
    const since = new Date(NOW.getTime() - 3_600_000);
    expect(counted).to.deep.equal([
      ['chn_h', 'alice@example.com', since],
      ['chn_h', null, since],
    ]);
    expect(woken()).to.equal(1);
    expect(recorded).to.deep.equal([
      {
        surface: 'EMAIL',
        entry: 'help@mail.test',
        method: 'SMTP',
        path: 'help@mail.test',
        status: 250,
        requestBody: {
          from: 'alice@example.com',
          to: 'help@mail.test',
          subject: 'Question',
          messageId: '<m1@example.com>',
          threadId: '<m1@example.com>',
          via: 'smtp',
        },
        response: { stored: r!.message.id, status: 'received', duplicate: false },
        credits: 0,
        durationMs: null,
      },
    ]);
  });

  it('stores a copy per known recipient channel, once each, and a redelivery as a duplicate that wakes nothing', async () => {
    const { svc, messages, recorded, woken } = service();
    const delivery: EmailDelivery = {
      recipients: ['help@mail.test', ' <HELP@mail.test> ', 'sales@mail.test', 'nobody@mail.test'],
      via: 'mailgun',
      sender: PASS,
    };
    const first = await svc.receive(inboundMail(), delivery);
    expect(first.map((r) => r.channel.id)).to.deep.equal(['chn_h', 'chn_s']);
    expect(messages).to.have.length(2);
    expect(first[0]!.message.provider).to.deep.include({
      email: {
        references: [],
        cc: [],
        replyTo: [],
        html: null,
        answer: 'ok',
        answerTo: 'alice@example.com',
        auth: AUTH,
        attachments: [],
        via: 'mailgun',
      },
    });
    expect(recorded[0]).to.deep.include({ method: 'POST', status: 200 });
    const again = await svc.receive(inboundMail(), delivery);
    expect(again.map((r) => r.duplicate)).to.deep.equal([true, true]);
    expect(woken()).to.equal(1);
    expect(recorded.at(-1)!.response).to.deep.include({ duplicate: true });
    // One new copy among redeliveries wakes the queue.
    const more = service();
    await more.svc.receive(inboundMail(), { recipients: ['help@mail.test'], via: 'smtp', sender: PASS });
    await more.svc.receive(inboundMail(), {
      recipients: ['help@mail.test', 'sales@mail.test'],
      via: 'smtp',
      sender: PASS,
    });
    expect(more.woken()).to.equal(2);
  });

  it('refuses mail to no known recipient (naming five), and mail whose storing failed as Unavailable', async () => {
    const { svc } = service();
    const many = ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test', 'e@x.test', 'f@x.test'];
    const err = await svc.receive(inboundMail(), { recipients: many, via: 'smtp' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NotFound);
    expect((err as Error).message).to.equal(
      "Email channel 'a@x.test, b@x.test, c@x.test, d@x.test, e@x.test' not found" +
        ': add it with addChannel(agentId, input: {kind: EMAIL, address, handler}) and turn the EMAIL surface on',
    );
    const failing = service({ failAccept: true });
    const down = await failing.svc.receive(inboundMail(), smtp).catch((e: unknown) => e);
    expect(down).to.be.instanceOf(Unavailable);
    expect((down as Unavailable).retryAfterSeconds).to.equal(60);
    expect((down as Error).message).to.equal('The message could not be stored; send it again later (disk full)');
    expect(failing.woken()).to.equal(0);
    const odd = (await service({ failAccept: 'odd' })
      .svc.receive(inboundMail(), smtp)
      .catch((e: unknown) => e)) as Error;
    expect(odd.message).to.equal('The message could not be stored; send it again later (storage failed)');
  });

  it('knows a recipient only when its channel exists and the agent takes email', async () => {
    const { svc, lookedUp } = service({
      agents: [agentOf('agt_1'), agentOf('agt_off', false)],
      channels: [
        helpdesk,
        channelOf({ id: 'chn_o', agentId: 'agt_off', address: 'off@mail.test' }),
        channelOf({ id: 'chn_g', agentId: 'agt_gone', address: 'gone@mail.test' }),
      ],
    });
    expect(await svc.knownRecipient(' <Help@Mail.Test>')).to.equal(true);
    for (const no of [
      'off@mail.test',
      'gone@mail.test',
      'other@mail.test',
      '',
      '<>',
      `${'a'.repeat(320)}@mail.test`,
      'help\u0000@mail.test',
    ]) {
      expect(await svc.knownRecipient(no), no).to.equal(false);
    }
    // An empty, overlong or NUL-holding address is never looked up (PostgreSQL refuses U+0000).
    expect(lookedUp).to.deep.equal(['help@mail.test', 'off@mail.test', 'gone@mail.test', 'other@mail.test']);
    expect(
      await service({ channels: [channelOf({ address: 'x'.repeat(310) + '@mail.test' })] }).svc.knownRecipient(
        'x'.repeat(310) + '@mail.test',
      ),
    ).to.equal(true);
  });

  it('stores unanswered mail as ignored, saying why: loop rules, the hourly budget, allowed senders, no auto-reply', async () => {
    const ignored = async (opts: Parameters<typeof service>[0], mail = inboundMail()) => {
      const s = service(opts);
      const [r] = await s.svc.receive(mail, smtp);
      expect(r!.message).to.deep.include({ status: 'ignored', nextAttemptAt: null });
      expect(s.woken()).to.equal(0);
      expect(s.recorded[0]!.response).to.deep.include({ note: r!.message.lastError });
      return r!.message;
    };
    const list = await ignored({}, inboundMail({}, { listId: 'l <l.x>' }));
    expect(list.lastError).to.equal('Not answered: mailing-list mail (List-Id or List-Unsubscribe)');
    expect(list.provider).to.deep.include({
      email: { ...(list.provider as { email: object }).email, answer: 'mailing-list' },
    });
    // Mail from another of the agent's own addresses is never answered.
    expect((await ignored({}, inboundMail({ from: { address: 'sales@mail.test', name: '' } }))).lastError).to.equal(
      "Not answered: it comes from (or answers to) one of the agent's own addresses",
    );
    expect((await ignored({ answeredLastHour: 10 })).lastError).to.equal(
      'Not answered: this sender had the most automatic answers allowed in the last hour',
    );
    expect((await ignored({ answeredLastHour: 2, limit: 2 })).lastError).to.match(/most automatic answers/);
    expect(
      (
        await ignored({
          channels: [channelOf({ id: 'chn_h', address: 'help@mail.test', allowedSenders: ['@other.test'] })],
        })
      ).lastError,
    ).to.equal("Not answered: the sender is not one of the channel's allowed senders");
    expect(
      (await ignored({ channels: [channelOf({ id: 'chn_h', address: 'help@mail.test', autoReply: false })] }))
        .lastError,
    ).to.equal('The channel does not answer automatically');
    expect(
      (
        await ignored({
          channels: [
            channelOf({ id: 'chn_h', address: 'help@mail.test', autoReply: false, allowedSenders: ['@other.test'] }),
          ],
        })
      ).lastError,
    ).to.equal('The channel does not answer automatically');
    const domain = service({
      channels: [channelOf({ id: 'chn_h', address: 'help@mail.test', allowedSenders: ['@example.com'] })],
    });
    const [allowed] = await domain.svc.receive(inboundMail({ from: { address: 'Alice@Example.COM', name: '' } }), smtp);
    expect(allowed!.message.status).to.equal('received');
    const ownOnOtherAgent = service({
      agents: [agentOf('agt_1'), agentOf('agt_2')],
      channels: [
        helpdesk,
        channelOf({ id: 'chn_2', agentId: 'agt_2', address: 'two@mail.test' }),
        channelOf({ id: 'chn_3', agentId: 'agt_1', kind: 'SMS', address: '+14155550100' }),
      ],
    });
    const [r] = await ownOnOtherAgent.svc.receive(inboundMail({ from: { address: 'two@mail.test', name: '' } }), smtp);
    expect(r!.message.status).to.equal('received');
    // Only the agent's email addresses are its own: its SMS number is not.
    const [n] = await ownOnOtherAgent.svc.receive(
      inboundMail({ from: { address: '+14155550100', name: '' }, messageId: '<n@x>' }, { returnPath: null }),
      smtp,
    );
    expect(n!.message.status).to.equal('received');
  });

  it('takes the sender from the envelope when the message names none, and threads by channel and sender without ids', async () => {
    const { svc } = service();
    const [r] = await svc.receive(inboundMail({ from: null, threadId: null }), smtp);
    expect(r!.message).to.deep.include({
      from: 'bounce@example.com',
      threadId: 'chn_h:bounce@example.com',
      status: 'ignored',
      lastError: 'Not answered: it names no sender',
    });
    const [m] = await service().svc.receive(
      inboundMail({ from: { address: ` ${'A'.repeat(400)}@X.test `, name: '' }, threadId: null, messageId: null }),
      { recipients: ['help@mail.test'], via: 'mailgun' },
    );
    expect(m!.message.from).to.have.length(320);
    expect(m!.message.threadId).to.equal(`chn_h:${'a'.repeat(320)}`);
    const [n] = await service().svc.receive(inboundMail({ from: null }), {
      recipients: ['help@mail.test'],
      via: 'mailgun',
    });
    expect(n!.message.from).to.equal('');
  });
});

describe('SMS receipt', () => {
  const channel = channelOf({ id: 'chn_t', kind: 'SMS', address: '+14155550100' });
  const form = { From: '+14155550123', To: '+14155550100', Body: 'Hi', MessageSid: 'SM1' };
  const cb = (params: Record<string, string> = form, signature: string | undefined = 'sig'): SmsCallback => ({
    url: 'https://svc.test/agents/agt_1/sms',
    params,
    signature,
  });
  const unsigned = (params: Record<string, string> = form): SmsCallback => ({ ...cb(params), signature: undefined });

  function service(
    opts: {
      agents?: Agent[];
      channels?: Channel[];
      configured?: boolean;
      verified?: boolean;
      failAccept?: boolean | string;
    } = {},
  ) {
    const mem = memoryStore(opts.agents ?? [agentOf('agt_1')], opts.channels ?? [channel], opts);
    const checked: unknown[][] = [];
    const sms = {
      configured: opts.configured ?? true,
      verify: (...args: unknown[]) => (checked.push(args), opts.verified ?? true),
      send: async () => ({ ok: true as const, messageId: 'x', status: 'queued', answer: null }),
    };
    const s = signals();
    return { svc: new SmsReceiptService(mem.store, clock, sms, s.queue), ...mem, checked, woken: s.woken };
  }

  it('stores a received message to be answered, once per MessageSid, and wakes the queue', async () => {
    const { svc, woken, checked } = service();
    const r = await svc.receive('agt_1', cb({ ...form, From: ' +14155550123 ', 'Odd\u0000': 'v\u0000' }));
    expect(checked).to.deep.equal([
      ['https://svc.test/agents/agt_1/sms', { ...form, From: ' +14155550123 ', 'Odd\u0000': 'v\u0000' }, 'sig'],
    ]);
    expect(r.duplicate).to.equal(false);
    expect(r.agent!.id).to.equal('agt_1');
    expect(r.message!.id).to.match(/^msg_[a-z0-9]{16}$/);
    expect(r.message).to.deep.include({
      direction: 'inbound',
      channel: 'sms',
      from: '+14155550123',
      to: '+14155550100',
      subject: null,
      body: 'Hi',
      threadId: 'chn_t:+14155550123',
      messageId: 'SM1',
      status: 'received',
      nextAttemptAt: NOW,
      lastError: null,
      channelId: 'chn_t',
      workspaceId: 'wsp_1',
      attempts: 0,
      failures: 0,
      runId: null,
      inReplyTo: null,
    });
    expect(r.message!.provider).to.deep.equal({
      received: { ...form, From: ' +14155550123 ', 'Odd\uFFFD': 'v\uFFFD' },
    });
    expect(woken()).to.equal(1);
    const again = await svc.receive('agt_1', cb());
    expect(again.duplicate).to.equal(true);
    expect(woken()).to.equal(1);
    const old = await svc.receive('agt_1', cb({ From: '+14155550123', To: '+14155550100', SmsSid: 'SM2' }));
    expect(old.message).to.deep.include({ messageId: 'SM2', body: '' });
    const none = await svc.receive('agt_1', cb({ From: '+14155550123', To: '+14155550100' }));
    expect(none.message!.messageId).to.equal(null);
  });

  it('stores as ignored what a channel does not answer', async () => {
    const picky = await service({ channels: [{ ...channel, allowedSenders: ['+14155550999'] }] });
    const r = await picky.svc.receive('agt_1', cb());
    expect(r.message).to.deep.include({
      status: 'ignored',
      nextAttemptAt: null,
      lastError: "The sender is not one of the channel's allowed senders",
    });
    expect(picky.woken()).to.equal(0);
    const quiet = await service({ channels: [{ ...channel, autoReply: false }] }).svc.receive('agt_1', cb());
    expect(quiet.message).to.deep.include({
      status: 'ignored',
      lastError: 'The channel does not answer automatically',
    });
    const both = await service({
      channels: [{ ...channel, autoReply: false, allowedSenders: ['+14155550999'] }],
    }).svc.receive('agt_1', cb());
    expect(both.message!.lastError).to.equal("The sender is not one of the channel's allowed senders");
  });

  it('refuses in order: agent, signature, surface, channel, sender; storage failure as Unavailable', async () => {
    const refused = async (opts: Parameters<typeof service>[0], agentId = 'agt_1', c = cb()) =>
      (await service(opts).svc.receive(agentId, c)).refused;
    expect(await refused({}, 'agt_none')).to.be.instanceOf(NotFound);
    expect((await refused({}, 'agt\u0000'))!.message).to.equal("Agent 'agt\uFFFD' not found");
    expect((await refused({ configured: false }))!.message)
      .to.match(/no TWILIO_AUTH_TOKEN/)
      .and.to.satisfy((m: string) => m.startsWith('SMS signature check failed'));
    expect(await refused({}, 'agt_1', unsigned()))
      .to.be.instanceOf(Unauthenticated)
      .and.to.have.property('message')
      .that.matches(/X-Twilio-Signature header is missing/);
    expect((await refused({}, 'agt_1', cb(form, '')))!.message).to.match(/header is missing/);
    expect((await refused({ verified: false }))!.message).to.match(/does not match the request/);
    expect(await refused({ agents: [agentOf('agt_1', false)] }))
      .to.be.instanceOf(Forbidden)
      .and.to.have.property('message')
      .that.contains('setSurface(agentId: "agt_1", surface: SMS, enabled: true)');
    expect((await refused({}, 'agt_1', cb({ ...form, To: '+14155550999' })))!.message).to.equal(
      "SMS channel '+14155550999' not found" +
        ': add it with the GraphQL mutation addChannel(agentId, input: {kind: SMS, address, handler})',
    );
    expect(await refused({ channels: [{ ...channel, agentId: 'agt_2' }] })).to.be.instanceOf(NotFound);
    expect((await refused({}, 'agt_1', cb({ From: '+14155550123' })))!.message).to.equal(
      'SMS channel not found' +
        ': add it with the GraphQL mutation addChannel(agentId, input: {kind: SMS, address, handler})',
    );
    expect(await refused({}, 'agt_1', cb({ To: '+14155550100' }))).to.be.instanceOf(Invalid);
    expect(await refused({}, 'agt_1', cb({ To: '+14155550100', From: '  ' })))
      .to.be.instanceOf(Invalid)
      .and.to.have.property('field', 'From');
    expect((await refused({}, 'agt_1', cb({ To: '+14155550100', From: '+1'.padEnd(321, '5') })))!.message).to.equal(
      'From: must be the sender, at most 320 characters',
    );
    expect(await refused({}, 'agt_1', cb({ To: '+14155550100', From: '+1'.padEnd(320, '5') }))).to.equal(undefined);
    const down = await refused({ failAccept: true });
    expect(down).to.be.instanceOf(Unavailable);
    expect(down!.message).to.equal('The message could not be stored; send it again later (disk full)');
    expect((await refused({ failAccept: 'odd' }))!.message).to.equal(
      'The message could not be stored; send it again later (storage failed)',
    );
    expect((down as Unavailable).retryAfterSeconds).to.equal(30);
    const odd = await new SmsReceiptService(
      { repos: { agents: { get: async () => Promise.reject(new Error('db')) } } } as unknown as Store,
      clock,
      {
        configured: true,
        verify: () => true,
        send: async () => ({ ok: true, messageId: '', status: '', answer: null }),
      },
      signals().queue,
    ).receive('agt_1', cb());
    expect(odd).to.deep.include({ agent: null });
    expect(odd.refused).to.be.instanceOf(Unavailable).and.to.have.property('retryAfterSeconds', 30);
    expect(odd.refused!.message).to.equal('The message could not be stored; send it again later');
  });

  it('moves a sent message forward on status callbacks, never back, keeping each callback', async () => {
    const { svc, messages, statuses } = service();
    messages.push(
      messageOf({
        id: 'msg_o',
        direction: 'outbound',
        channel: 'sms',
        messageId: 'SMo',
        status: 'sent',
        provider: null,
      }),
    );
    const status = (params: Record<string, string>) => svc.status('agt_1', cb(params));
    const r = await status({ MessageSid: 'SMo', MessageStatus: 'delivered' });
    expect(r.message).to.deep.include({ id: 'msg_o', status: 'delivered' });
    expect(statuses[0]).to.deep.equal([
      'msg_o',
      'delivered',
      { callbacks: [{ at: NOW.toISOString(), status: 'delivered', errorCode: null }] },
    ]);
    messages[0] = { ...messages[0]!, status: 'delivered' };
    expect((await status({ SmsSid: 'SMo', SmsStatus: 'sent', ErrorCode: '30003' })).message!.status).to.equal(
      'delivered',
    );
    expect(statuses[1]![2]).to.deep.equal({
      callbacks: [{ at: NOW.toISOString(), status: 'sent', errorCode: '30003' }],
    });
    expect((await status({ MessageSid: 'SMo', MessageStatus: 'read' })).message!.status).to.equal('delivered');
    expect((await status({ MessageSid: 'SMo', MessageStatus: 'undelivered' })).message!.status).to.equal('undelivered');
    expect((await status({ MessageSid: 'SMo', MessageStatus: 'accepted' })).message!.status).to.equal('delivered');
    expect((await status({ MessageSid: 'SMo' })).message!.provider).to.deep.equal({
      callbacks: [{ at: NOW.toISOString(), status: '', errorCode: null }],
    });
    messages[0] = { ...messages[0]!, status: 'queued' };
    expect((await status({ MessageSid: 'SMo', MessageStatus: 'sent' })).message!.status).to.equal('sent');
    expect((await status({ MessageSid: 'SMo', MessageStatus: 'failed' })).message!.status).to.equal('failed');
    messages[0] = { ...messages[0]!, status: null };
    expect((await status({ MessageSid: 'SMo', MessageStatus: 'queued' })).message!.status).to.equal('sent');
    expect((await status({ MessageSid: 'SMo', MessageStatus: 'sent' })).message!.status).to.equal('sent');
  });

  it('refuses a status of no known sent message, and one that could not be stored', async () => {
    const { svc, messages } = service();
    messages.push(messageOf({ id: 'msg_i', direction: 'inbound', channel: 'sms', messageId: 'SMi' }));
    expect((await svc.status('agt_1', cb({ MessageSid: 'SMi', MessageStatus: 'sent' }))).refused!.message).to.equal(
      "Sent message 'SMi' not found",
    );
    expect((await svc.status('agt_1', cb({ MessageStatus: 'sent' }))).refused!.message).to.equal(
      'Sent message not found',
    );
    expect((await svc.status('agt_1', unsigned({}))).refused).to.be.instanceOf(Unauthenticated);
    const broken = service();
    broken.messages.push(messageOf({ id: 'msg_o', direction: 'outbound', messageId: 'SMo', status: 'sent' }));
    (broken.store.repos.messages as unknown as { setStatus: () => Promise<void> }).setStatus = async () =>
      Promise.reject(new Error('db'));
    const r = await broken.svc.status('agt_1', cb({ MessageSid: 'SMo', MessageStatus: 'delivered' }));
    expect(r.agent!.id).to.equal('agt_1');
    expect(r.refused)
      .to.be.instanceOf(Unavailable)
      .and.to.have.property('message', 'The status could not be stored; send it again later');
  });
});
