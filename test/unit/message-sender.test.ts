import { expect } from 'chai';
import type { Agent, Guardrails } from '../../src/domain/core/agent.entities.js';
import type { Channel } from '../../src/domain/entries/channel.entities.js';
import { MAX_MESSAGES_PER_RUN, MessageSender, type MessagingDeps } from '../../src/domain/channels/message-sender.js';
import { messagingTools } from '../../src/domain/channels/messaging.tools.js';
import type { Clock } from '../../src/domain/clock.js';
import { MAX_SUBJECT_CHARS } from '../../src/domain/email/reply.js';
import { Forbidden, Invalid } from '../../src/domain/errors.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import type { Store } from '../../src/domain/ports.js';
import type { RunInput } from '../../src/domain/runtime/run.types.js';
import { channelOf, messageOf } from '../helpers/channel-fixtures.js';

// The messaging capability's rules (docs/decisions.md §33) over an in-memory store: which channel
// sends, who may be written to, the thread an answer joins, the per-run cap, the tools' arguments.

const NOW = new Date('2026-11-27T10:00:00Z');
const GUARDRAILS = {
  blockedInputPatterns: [],
  redactOutputPatterns: ['secret'],
  redactPresets: [],
  maxInputChars: null,
  maxOutputTokens: null,
  maxToolSteps: 10,
  maxCreditsPerRun: null,
} as Guardrails;
const AGENT = { id: 'agt_1', workspaceId: 'wsp_1', guardrails: GUARDRAILS } as Agent;

const mailA = channelOf({ id: 'chn_a', address: 'a@mail.test', allowedSenders: ['bob@x.test', '@team.test'] });
const mailB = channelOf({ id: 'chn_b', address: 'b@mail.test' });
const text = channelOf({ id: 'chn_t', kind: 'SMS', address: '+14155550100', allowedSenders: ['+14155550199'] });

const plainInput: RunInput = {
  surface: 'HTTP_API',
  method: 'POST',
  path: 'x',
  params: {},
  query: {},
  headers: {},
  body: {},
} as RunInput;
const answering = (over: Partial<RunInput> & { body?: unknown } = {}): RunInput =>
  ({
    surface: 'EMAIL',
    method: 'POST',
    path: 'b@mail.test',
    params: { channel: 'chn_b' },
    query: {},
    headers: {},
    body: { from: 'Carol@X.test', to: 'b@mail.test', text: 'hi', messageId: '<in@x.test>', threadId: '<root@x.test>' },
    ...over,
  }) as RunInput;

function setup(channels: Channel[] = [mailA, mailB, text], stored: Message[] = []) {
  const inserted: Message[] = [];
  let woken = 0;
  const store = {
    repos: {
      channels: { listByAgents: async (ids: string[]) => channels.filter((c) => ids.includes(c.agentId)) },
      messages: {
        insert: async (m: Message) => void inserted.push(m),
        findByMessageId: async (agentId: string, direction: string, id: string) =>
          stored.find((m) => m.agentId === agentId && m.direction === direction && m.messageId === id) ?? null,
      },
    },
  } as unknown as Store;
  const deps: MessagingDeps = {
    store,
    clock: { now: () => NOW } as Clock,
    queued: { onQueued: () => void woken++ },
    mailDomain: '',
  };
  return {
    deps,
    inserted,
    woken: () => woken,
    sender: (input: RunInput = plainInput) => new MessageSender(deps, AGENT, 'run_1', input),
  };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('not refused'),
    (e: unknown) => e as Error,
  );

describe('message sender', () => {
  it('queues an email on its own: an allowed recipient, redacted, a thread of its own, the initiative mark', async () => {
    const { sender, inserted, woken } = setup();
    expect(
      await sender().send('EMAIL', { to: ' Bob@X.test ', subject: 'A secret plan', text: 'the secret' }),
    ).to.deep.equal({ queued: inserted[0]!.id, to: 'bob@x.test', from: 'a@mail.test' });
    const m = inserted[0]!;
    expect(m).to.deep.include({
      to: 'bob@x.test',
      from: 'a@mail.test',
      channelId: 'chn_a',
      subject: 'A [redacted] plan',
      body: 'the [redacted]',
      runId: 'run_1',
      inReplyTo: null,
      status: 'queued',
      threadId: m.messageId,
    });
    expect(m.provider).to.deep.equal({
      email: { references: [], headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' } },
    });
    expect(woken()).to.equal(1);
    await sender().send('EMAIL', { to: 'x@team.test', text: 'no subject' });
    expect(inserted[1]!.subject).to.equal('');
  });

  it('queues a text message in the conversation with that number', async () => {
    const { sender, inserted } = setup();
    expect(await sender().send('SMS', { to: '+1 415 555 0199', text: 'Hi' })).to.deep.include({
      to: '+14155550199',
      from: '+14155550100',
    });
    expect(inserted[0]).to.deep.include({
      channel: 'sms',
      threadId: 'chn_t:+14155550199',
      inReplyTo: null,
      subject: null,
    });
  });

  it('answers into the thread of the message the run answers: from its channel, to its sender, threaded and marked as a reply', async () => {
    const inbound = messageOf({
      agentId: 'agt_1',
      messageId: '<in@x.test>',
      provider: { email: { references: ['<root@x.test>'] } },
    });
    const { sender, inserted } = setup([mailA, mailB], [inbound]);
    await sender(answering()).send('EMAIL', { to: 'carol@x.test', subject: 'Re', text: 'ok' });
    expect(inserted[0]).to.deep.include({
      channelId: 'chn_b',
      to: 'carol@x.test',
      threadId: '<root@x.test>',
      inReplyTo: '<in@x.test>',
    });
    expect(inserted[0]!.provider).to.deep.equal({
      email: {
        references: ['<root@x.test>', '<in@x.test>'],
        headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
      },
    });
    // The answered message no longer stored: its own Message-ID is the only reference.
    const gone = setup([mailA, mailB]);
    await gone.sender(answering()).send('EMAIL', { to: 'carol@x.test', subject: 'Re', text: 'ok' });
    expect(gone.inserted[0]!.provider).to.deep.include({
      email: {
        references: ['<in@x.test>'],
        headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
      },
    });
    const noId = setup([mailA, mailB]);
    await noId
      .sender(answering({ body: { from: 'carol@x.test', threadId: 't', messageId: 7 } as never }))
      .send('EMAIL', { to: 'carol@x.test', subject: 'Re', text: 'ok' });
    expect(noId.inserted[0]).to.deep.include({ inReplyTo: null, threadId: 't' });
    expect(noId.inserted[0]!.provider).to.deep.include({
      email: { references: [], headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' } },
    });
  });

  it('answers a text message from the channel it came to, in its thread; a sender that is no number is compared as given', async () => {
    const other = channelOf({ id: 'chn_u', kind: 'SMS', address: '+14155550111' });
    const { sender, inserted } = setup([text, other]);
    const sms = answering({
      surface: 'SMS',
      params: { channel: 'chn_u' },
      body: { from: '+1 415 555 0123', threadId: 'chn_u:+14155550123', messageId: 'SM1' } as never,
    });
    await sender(sms).send('SMS', { to: '+14155550123', text: 'Hi' });
    expect(inserted[0]).to.deep.include({
      from: '+14155550111',
      to: '+14155550123',
      threadId: 'chn_u:+14155550123',
      inReplyTo: 'SM1',
    });
    const odd = setup([text]);
    const e = await refusal(
      odd
        .sender(
          answering({
            surface: 'SMS',
            params: { channel: 'chn_t' },
            body: { from: 'SHORTCODE', threadId: 't' } as never,
          }),
        )
        .send('SMS', { to: '+14155550123', text: 'Hi' }),
    );
    expect(e).to.be.instanceOf(Forbidden);
  });

  it('joins the thread only for the answered sender on the answered channel', async () => {
    const cases: [RunInput, string, string | undefined][] = [
      [answering(), 'dave@x.test', undefined],
      [answering(), 'carol@x.test', 'a@mail.test'],
      [answering({ surface: 'SMS' }), 'carol@x.test', undefined],
      [
        answering({ surface: 'SMS', body: { from: 'carol@x.test', threadId: 't' } as never }),
        'carol@x.test',
        undefined,
      ],
      [answering({ params: {} }), 'carol@x.test', 'b@mail.test'],
      [answering({ body: { from: '', threadId: 't' } as never }), 'carol@x.test', 'b@mail.test'],
      [answering({ body: { from: 'carol@x.test', threadId: 7 } as never }), 'carol@x.test', 'b@mail.test'],
      [answering({ body: { threadId: 't' } as never }), 'carol@x.test', 'b@mail.test'],
      [answering({ body: ['carol@x.test'] as never }), 'carol@x.test', 'b@mail.test'],
      [answering({ body: null as never }), 'carol@x.test', 'b@mail.test'],
      [answering({ surface: 'HTTP_API' as never }), 'carol@x.test', 'b@mail.test'],
    ];
    for (const [input, to, from] of cases) {
      const { sender, inserted } = setup([mailA, mailB]);
      const e = await refusal(sender(input).send('EMAIL', { to, subject: 's', text: 't', from }));
      expect(e, JSON.stringify(input)).to.be.instanceOf(Forbidden);
      expect(inserted).to.have.length(0);
    }
  });

  it('compares the answered sender trimmed', async () => {
    const { sender, inserted } = setup([mailA, mailB]);
    await sender(answering({ body: { from: ' carol@x.test ', threadId: 't' } as never })).send('EMAIL', {
      to: 'carol@x.test',
      subject: 's',
      text: 't',
    });
    expect(inserted[0]).to.deep.include({ channelId: 'chn_b', threadId: 't' });
  });

  it('sends from the named channel, the answered one, else the first; refuses an address of no channel', async () => {
    const { sender, inserted } = setup();
    // A run input whose sender is not a string answers nothing: the default is the first channel.
    await sender(answering({ body: { from: 7, threadId: 't' } as never })).send('EMAIL', {
      to: 'bob@x.test',
      subject: 's',
      text: 't',
    });
    expect(inserted.pop()!.channelId).to.equal('chn_a');
    await sender().send('EMAIL', { to: 'bob@x.test', subject: 's', text: 't', from: ' A@Mail.Test ' });
    await sender(answering({ params: { channel: 'chn_a' } })).send('EMAIL', {
      to: 'bob@x.test',
      subject: 's',
      text: 't',
      from: ' ',
    });
    expect(inserted.map((m) => m.channelId)).to.deep.equal(['chn_a', 'chn_a']);
    const e = await refusal(sender().send('EMAIL', { to: 'bob@x.test', subject: 's', text: 't', from: 'c@mail.test' }));
    expect(e).to.be.instanceOf(Invalid).and.to.have.property('field', 'from');
    expect(e.message).to.equal(
      "from: c@mail.test is not one of this agent's email addresses (a@mail.test, b@mail.test)",
    );
    const s = await refusal(sender().send('SMS', { to: '+14155550199', text: 't', from: '+14155550101' }));
    expect(s.message).to.equal("from: +14155550101 is not one of this agent's SMS numbers (+14155550100)");
    expect((await refusal(sender().send('SMS', { to: '+14155550199', text: 't', from: 'nope' }))).message).to.match(
      /^from: must be a phone number/,
    );
  });

  it('refuses an agent without a channel of the kind, and a recipient the channel does not allow, storing nothing', async () => {
    const none = setup([mailA]);
    expect((await refusal(none.sender().send('SMS', { to: '+14155550199', text: 't' }))).message).to.equal(
      'This agent has no SMS number to send from; a member adds one (addChannel) first. Nothing was sent',
    );
    expect(
      (await refusal(setup([text]).sender().send('EMAIL', { to: 'bob@x.test', subject: 's', text: 't' }))).message,
    ).to.equal('This agent has no email address to send from; a member adds one (addChannel) first. Nothing was sent');
    const { sender, inserted, woken } = setup();
    expect((await refusal(sender().send('EMAIL', { to: 'eve@x.test', subject: 's', text: 't' }))).message).to.equal(
      "to: eve@x.test may not be written to from a@mail.test: it is not on the channel's allowed senders. Nothing was sent",
    );
    expect(
      (await refusal(sender().send('EMAIL', { to: 'eve@x.test', subject: 's', text: 't', from: 'b@mail.test' })))
        .message,
    ).to.equal(
      'to: eve@x.test may not be written to from b@mail.test: the channel lists no allowed senders, so it writes only to the sender of a message it answers. Nothing was sent',
    );
    expect((await refusal(sender().send('EMAIL', { to: 'not an address', subject: 's', text: 't' }))).message).to.match(
      /^to: must be an email address/,
    );
    expect(inserted).to.have.length(0);
    expect(woken()).to.equal(0);
  });

  it(`sends at most ${MAX_MESSAGES_PER_RUN} messages per run; a refused one does not count`, async () => {
    const { sender } = setup();
    const s = sender();
    for (let i = 0; i < 3; i++) await refusal(s.send('EMAIL', { to: 'eve@x.test', subject: 's', text: 't' }));
    const sends = Array.from({ length: MAX_MESSAGES_PER_RUN + 2 }, () =>
      s.send('EMAIL', { to: 'bob@x.test', subject: 's', text: 't' }).then(
        () => 'sent',
        (e: Error) => e.message,
      ),
    );
    const results = await Promise.all(sends);
    expect(results.filter((r) => r === 'sent')).to.have.length(MAX_MESSAGES_PER_RUN);
    expect(results.at(-1)).to.equal(
      `This run already sent ${MAX_MESSAGES_PER_RUN} messages, the most one run may send; this one was not sent`,
    );
    const another = setup().sender();
    for (let i = 0; i < MAX_MESSAGES_PER_RUN; i++) await another.send('SMS', { to: '+14155550199', text: 't' });
    expect(await refusal(another.send('SMS', { to: '+14155550199', text: 't' }))).to.be.instanceOf(Forbidden);
  });
});

describe('messaging tools', () => {
  const tools = (run: { runId: string; input: RunInput } | null = { runId: 'run_1', input: plainInput }) => {
    const s = setup();
    const [email, sms] = messagingTools(s.deps, AGENT, run);
    return { email: email!, sms: sms!, ...s };
  };

  it('offers send_email and send_sms with their required arguments', () => {
    const { email, sms } = tools();
    expect([email.name, sms.name]).to.deep.equal(['send_email', 'send_sms']);
    expect(email.inputSchema).to.deep.include({ type: 'object', required: ['to', 'subject', 'text'] });
    expect(sms.inputSchema).to.deep.include({ required: ['to', 'text'] });
    expect(email.description).to.contain(`At most ${MAX_MESSAGES_PER_RUN} messages per run`);
    expect(sms.description).to.match(
      /^Send a text message from this agent's SMS number \(queued; sent shortly\)\. It goes only to a recipient .* At most 10 messages per run\.$/,
    );
    const fromText = (what: string) =>
      `Which of this agent's ${what} sends it; default: the one the answered message came to, else the first`;
    expect(email.inputSchema).to.deep.equal({
      type: 'object',
      properties: {
        to: { type: 'string', description: 'The recipient: one email address' },
        subject: { type: 'string', description: `One line, at most ${MAX_SUBJECT_CHARS} characters` },
        text: { type: 'string', description: 'The plain-text body, at most 100000 characters' },
        from: { type: 'string', description: fromText('email addresses') },
      },
      required: ['to', 'subject', 'text'],
    });
    expect(sms.inputSchema).to.deep.equal({
      type: 'object',
      properties: {
        to: { type: 'string', description: 'The recipient: one phone number in E.164 form, such as +14155550100' },
        text: { type: 'string', description: 'The message, at most 1600 characters' },
        from: { type: 'string', description: fromText('SMS numbers') },
      },
      required: ['to', 'text'],
    });
  });

  it('sends through the run, and refuses to run without one', async () => {
    const { email, sms, inserted } = tools();
    await email.execute!({ to: 'bob@x.test', subject: 'Hi', text: 'There' }, {} as never);
    await sms.execute!({ to: '+14155550199', text: 'There', from: '+14155550100' }, {} as never);
    expect(inserted.map((m) => m.channel)).to.deep.equal(['email', 'sms']);
    const { email: idle } = tools(null);
    expect(
      await refusal(
        Promise.resolve().then(() => idle.execute!({ to: 'bob@x.test', subject: 'Hi', text: 'There' }, {} as never)),
      ),
    ).to.have.property('message', 'messaging tools run only inside a run');
  });

  it('refuses arguments that cannot be stored or sent, naming the field', async () => {
    const { email, sms } = tools();
    const bad: [typeof email, Record<string, unknown>, RegExp][] = [
      [
        email,
        { to: 'bob@x.test', subject: 'a\r\nBcc: x', text: 't' },
        /^subject: must be one line without control characters$/,
      ],
      [email, { to: 'bob@x.test', subject: ' ', text: 't' }, /^subject: must not be empty$/],
      [
        email,
        { to: 'bob@x.test', subject: 'x'.repeat(MAX_SUBJECT_CHARS + 1), text: 't' },
        new RegExp(`^subject: must be at most ${MAX_SUBJECT_CHARS} characters; shorten it$`),
      ],
      [email, { to: 'bob@x.test', subject: 's', text: 'a\u0000' }, /^text: must not contain U\+0000 \(NUL\)$/],
      [email, { to: 'bob@x.test', subject: 's', text: 'a\uD800' }, /^text: must be valid Unicode text/],
      [email, { to: 'bob@x.test', subject: 's', text: '\uDC00a' }, /^text: must be valid Unicode text/],
      [email, { to: 'bob@x.test', subject: 's\u007f', text: 'ok' }, /^subject: must be one line/],
      [email, { to: 'bob@x.test', subject: 's', text: '\n' }, /^text: must not be empty$/],
      [email, { to: '', subject: 's', text: 't' }, /^to: must not be empty$/],
      [email, { to: 'x'.repeat(321), subject: 's', text: 't' }, /^to: must be at most 320 characters; shorten it$/],
      [
        sms,
        { to: '+14155550199', text: 'x'.repeat(1601) },
        /^text: must be at most 1600 characters \(what one text message may carry\); shorten it$/,
      ],
      [sms, { to: '+14155550199', text: 't', from: 'a\tb' }, /^from: must be one line/],
    ];
    for (const [tool, args, message] of bad) {
      const e = await refusal(Promise.resolve().then(() => tool.execute!(args, {} as never)));
      expect(e, JSON.stringify(args)).to.be.instanceOf(Invalid);
      expect(e.message, JSON.stringify(args)).to.match(message);
    }
    // What is allowed: a whole surrogate pair, a tab or line break in the text.
    await email.execute!({ to: 'bob@x.test', subject: '🎉 ok', text: 'a\tb\n🎉' }, {} as never);
  });
});
