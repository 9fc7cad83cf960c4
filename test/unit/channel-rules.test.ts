import { expect } from 'chai';
import { messageSettlementOf, type ChannelOutcome } from '../../src/domain/channels/channel-outcome.js';
import { allowedSendersOf, channelAddress, senderAllowed } from '../../src/domain/entries/channel.schemas.js';
import {
  KEPT_PROVIDER_EVENTS,
  messageRunInput,
  replySubjectOf,
  replyText,
  withProviderEvent,
} from '../../src/domain/channels/channel-message.task.js';
import {
  answerTo,
  emailDetailsOf,
  MAX_EMAIL_CHARS,
  MAX_SMS_CHARS,
  outboundMessage,
} from '../../src/domain/channels/outbound-message.js';
import { Invalid } from '../../src/domain/errors.js';
import type { Json } from '../../src/domain/json.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import { channelOf, messageOf } from '../helpers/channel-fixtures.js';

// The channels' pure rules (docs/decisions.md §30–33): how an attempt's outcome settles a message,
// what an outbound message and an answer look like, addresses and allowed senders.

const NOW = new Date('2026-11-27T10:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe('channel outcomes settle a message', () => {
  const delay = (failures: number) => (failures < 5 ? failures * 1000 : null);
  const settle = (m: Message, o: ChannelOutcome) => messageSettlementOf(m, o, NOW, delay, 60_000);

  it('done: the status, no error, the run (else the one before), the provider details and Message-ID when given', () => {
    expect(settle(messageOf(), { kind: 'done', status: 'answered', runId: 'run_new' })).to.deep.equal({
      outcome: 'done',
      settlement: { status: 'answered', failures: 2, nextAttemptAt: null, lastError: null, runId: 'run_new' },
    });
    expect(
      settle(messageOf(), { kind: 'done', status: 'sent', runId: null, provider: { a: 1 }, messageId: 'SM1' })
        .settlement,
    ).to.deep.equal({
      status: 'sent',
      failures: 2,
      nextAttemptAt: null,
      lastError: null,
      runId: 'run_old',
      provider: { a: 1 },
      messageId: 'SM1',
    });
  });

  it('deferred: waits the Retry-After but at most deferMaxMs, keeps the failures, keeps the refusal with the provider details', () => {
    expect(settle(messageOf(), { kind: 'deferred', error: 'limit', retryAfterSeconds: 30 })).to.deep.equal({
      outcome: 'deferred',
      settlement: {
        status: 'deferred',
        failures: 2,
        nextAttemptAt: later(30_000),
        lastError: 'limit',
        runId: 'run_old',
      },
    });
    const held = settle(messageOf({ provider: { email: { references: [] } } }), {
      kind: 'deferred',
      error: 'daily',
      retryAfterSeconds: 86_400,
      refusal: { code: 'LIMIT_EXCEEDED', reason: 'DAILY_CREDITS' },
    });
    expect(held.settlement.nextAttemptAt).to.deep.equal(later(60_000));
    expect(held.settlement.provider).to.deep.equal({
      email: { references: [] },
      refusal: { code: 'LIMIT_EXCEEDED', reason: 'DAILY_CREDITS' },
    });
    // Provider details that are not an object are replaced; a refusal without reason has none.
    for (const provider of [null, [1, 2], 'text'] as Json[]) {
      expect(
        settle(messageOf({ provider }), {
          kind: 'deferred',
          error: 'x',
          retryAfterSeconds: 1,
          refusal: { code: 'UNAVAILABLE' },
        }).settlement.provider,
      ).to.deep.equal({ refusal: { code: 'UNAVAILABLE' } });
    }
  });

  it('retry: one more failure, waiting again (received inbound, queued outbound) on the schedule, failed at its end', () => {
    expect(settle(messageOf(), { kind: 'retry', error: 'boom', runId: null })).to.deep.equal({
      outcome: 'retry',
      settlement: { status: 'received', failures: 3, nextAttemptAt: later(3000), lastError: 'boom', runId: 'run_old' },
    });
    // Provider details given as undefined leave the stored ones alone (no `provider` in the settlement).
    expect(
      settle(messageOf(), { kind: 'retry', error: 'boom', runId: null, provider: undefined }).settlement,
    ).to.not.have.property('provider');
    expect(
      settle(messageOf(), { kind: 'failed', error: 'boom', runId: null, provider: undefined }).settlement,
    ).to.not.have.property('provider');
    expect(
      settle(messageOf({ direction: 'outbound' }), { kind: 'retry', error: 'boom', runId: 'run_x', provider: { p: 1 } })
        .settlement,
    ).to.deep.equal({
      status: 'queued',
      failures: 3,
      nextAttemptAt: later(3000),
      lastError: 'boom',
      runId: 'run_x',
      provider: { p: 1 },
    });
    expect(
      settle(messageOf({ failures: 4 }), { kind: 'retry', error: 'boom', runId: null, provider: { p: 2 } }),
    ).to.deep.equal({
      outcome: 'failed',
      settlement: {
        status: 'failed',
        failures: 5,
        nextAttemptAt: null,
        lastError: 'boom',
        runId: 'run_old',
        provider: { p: 2 },
      },
    });
  });

  it("failed: one more failure, the refusal kept over the attempt's provider details (else the message's)", () => {
    expect(settle(messageOf(), { kind: 'failed', error: 'gone', runId: null })).to.deep.equal({
      outcome: 'failed',
      settlement: { status: 'failed', failures: 3, nextAttemptAt: null, lastError: 'gone', runId: 'run_old' },
    });
    expect(
      settle(messageOf(), { kind: 'failed', error: 'no', runId: 'run_y', provider: { p: 1 } }).settlement,
    ).to.deep.include({ runId: 'run_y', provider: { p: 1 } });
    expect(
      settle(messageOf({ provider: { m: 1 } }), {
        kind: 'failed',
        error: 'no',
        runId: null,
        provider: { p: 1 },
        refusal: { code: 'FORBIDDEN' },
      }).settlement.provider,
    ).to.deep.equal({ p: 1, refusal: { code: 'FORBIDDEN' } });
    expect(
      settle(messageOf({ provider: { m: 1 } }), {
        kind: 'failed',
        error: 'no',
        runId: null,
        refusal: { code: 'FORBIDDEN', reason: 'r' },
      }).settlement.provider,
    ).to.deep.equal({ m: 1, refusal: { code: 'FORBIDDEN', reason: 'r' } });
  });
});

describe('outbound messages and answers', () => {
  it('an SMS: one recipient, no subject, no Message-ID, text cut to MAX_SMS_CHARS', () => {
    const m = outboundMessage(
      {
        channel: channelOf({ kind: 'SMS', address: '+14155550100' }),
        workspaceId: 'wsp_1',
        to: ['+14155550123', '+1999'],
        text: 'x'.repeat(MAX_SMS_CHARS + 5),
        threadId: 't',
        runId: 'run_1',
      },
      NOW,
      'mail.test',
    );
    expect(m).to.deep.include({
      direction: 'outbound',
      channel: 'sms',
      from: '+14155550100',
      to: '+14155550123',
      subject: null,
      messageId: null,
      provider: null,
      status: 'queued',
      nextAttemptAt: NOW,
      inReplyTo: null,
      runId: 'run_1',
      threadId: 't',
      agentId: 'agt_1',
      channelId: 'chn_1',
    });
    expect(m.body).to.have.length(MAX_SMS_CHARS);
    expect(m.id).to.match(/^msg_/);
    expect(
      outboundMessage(
        { channel: channelOf({ kind: 'SMS' }), workspaceId: 'w', to: [], text: 'hi', threadId: null, runId: null },
        NOW,
        '',
      ).to,
    ).to.equal('');
  });

  it("an email: recipients joined, a subject, threading details, a Message-ID on MAIL_DOMAIN else the channel's domain", () => {
    const d = {
      channel: channelOf(),
      workspaceId: 'wsp_1',
      to: ['a@x.test', 'b@x.test'],
      text: 'Hi',
      threadId: null,
      runId: null,
      references: ['<r@x>'],
      headers: { 'Auto-Submitted': 'auto-generated' },
    };
    const m = outboundMessage(d, NOW, 'out.example');
    expect(m).to.deep.include({ channel: 'email', to: 'a@x.test, b@x.test', subject: '', body: 'Hi' });
    expect(m.messageId).to.match(/@out\.example>$/);
    expect(m.provider).to.deep.equal({
      email: { references: ['<r@x>'], headers: { 'Auto-Submitted': 'auto-generated' } },
    });
    expect(outboundMessage({ ...d, subject: 'S' }, NOW, '').messageId).to.match(/@mail\.test>$/);
    expect(outboundMessage({ ...d, subject: 'S' }, NOW, '').subject).to.equal('S');
    expect(
      outboundMessage(
        { channel: channelOf(), workspaceId: 'w', to: ['a@x.test'], text: 'y', threadId: null, runId: null },
        NOW,
        '',
      ).provider,
    ).to.deep.equal({ email: { references: [], headers: {} } });
    // A long email is cut without splitting a character.
    const long = outboundMessage({ ...d, text: 'x'.repeat(MAX_EMAIL_CHARS - 1) + '🎉' }, NOW, '').body;
    expect(long).to.equal('x'.repeat(MAX_EMAIL_CHARS - 1));
    expect(outboundMessage({ ...d, text: 'x'.repeat(MAX_EMAIL_CHARS - 2) + '🎉' }, NOW, '').body).to.have.length(
      MAX_EMAIL_CHARS,
    );
    expect(outboundMessage({ ...d, text: '🎉' }, NOW, '').body).to.equal('🎉');
  });

  it('reads the email details of a stored message, keeping only strings', () => {
    expect(emailDetailsOf(messageOf({ provider: null }))).to.deep.equal({ references: [] });
    expect(emailDetailsOf(messageOf({ provider: [1] }))).to.deep.equal({ references: [] });
    expect(emailDetailsOf(messageOf({ provider: { email: [1] } }))).to.deep.equal({ references: [] });
    expect(emailDetailsOf(messageOf({ provider: { email: 'x' } }))).to.deep.equal({ references: [] });
    expect(
      emailDetailsOf(
        messageOf({ provider: { email: { references: ['<a@x>', 3], headers: { A: 'b', C: 1 }, replyTo: 'x' } } }),
      ),
    ).to.deep.equal({ references: ['<a@x>'], headers: { A: 'b' }, replyTo: [] });
    expect(
      emailDetailsOf(messageOf({ provider: { email: { headers: ['A'], replyTo: ['r@x', null] } } })),
    ).to.deep.equal({ references: [], headers: {}, replyTo: ['r@x'] });
    expect(emailDetailsOf(messageOf({ provider: { email: { headers: 'ab' } } }))).to.deep.equal({
      references: [],
      headers: {},
      replyTo: [],
    });
  });

  it('answers an SMS to its sender, in its thread', () => {
    const inbound = messageOf({
      channel: 'sms',
      from: '+14155550123',
      to: '+14155550100',
      subject: null,
      messageId: 'SM1',
      threadId: 'chn_1:+14155550123',
    });
    const m = answerTo(
      inbound,
      channelOf({ kind: 'SMS', address: '+14155550100' }),
      { text: 'Hi', subject: 'ignored' },
      'run_1',
      NOW,
      '',
    );
    expect(m).to.deep.include({
      to: '+14155550123',
      from: '+14155550100',
      body: 'Hi',
      subject: null,
      threadId: 'chn_1:+14155550123',
      inReplyTo: 'SM1',
      runId: 'run_1',
      workspaceId: 'wsp_1',
    });
    // No email rules for a text message: a sender the email rules would refuse is answered as stored.
    expect(
      answerTo(
        { ...inbound, from: '' },
        channelOf({ kind: 'SMS', address: '+14155550100' }),
        { text: 'Hi' },
        null,
        NOW,
        '',
      ).to,
    ).to.equal('');
  });

  it('answers an email to the address decided on receipt (never a stored Reply-To), else From, threaded, with a Re: subject unless one is given', () => {
    const inbound = messageOf({
      provider: { email: { references: ['<r0@example.com>'], replyTo: ['team@example.com'] } },
      answerTo: 'team@example.com',
    });
    // A Reply-To nobody checked is never where the answer goes.
    expect(
      answerTo({ ...inbound, answerTo: undefined }, channelOf(), { text: 'Done' }, 'run_1', NOW, 'out.example').to,
    ).to.equal('alice@example.com');
    const m = answerTo(inbound, channelOf(), { text: 'Done' }, 'run_1', NOW, 'out.example');
    expect(m).to.deep.include({
      to: 'team@example.com',
      from: 'agent@mail.test',
      subject: 'Re: Question',
      inReplyTo: '<m1@example.com>',
      threadId: '<t@example.com>',
      body: 'Done',
    });
    expect(m.provider).to.deep.equal({
      email: {
        references: ['<r0@example.com>', '<m1@example.com>'],
        headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
      },
    });
    expect(m.messageId).to.match(/@out\.example>$/);
    const plain = answerTo(messageOf({ subject: null }), channelOf(), { text: 'Done', subject: 'Own' }, null, NOW, '');
    expect(plain).to.deep.include({ to: 'alice@example.com', subject: 'Own' });
    expect(answerTo(messageOf({ subject: null }), channelOf(), { text: 'Done' }, null, NOW, '').subject).to.equal(
      'Re:',
    );
    expect(() => answerTo(messageOf({ from: '' }), channelOf(), { text: 'x' }, null, NOW, '')).to.throw(Invalid);
  });
});

describe('channel addresses and allowed senders', () => {
  it('stores SMS numbers in E.164 form and email addresses in lower case, naming the field otherwise', () => {
    expect(channelAddress('SMS', '+1 (415) 555-01.00')).to.equal('+14155550100');
    for (const bad of ['14155550100', '+0123', '+1', '+1234567890123456', 'x+14155550100']) {
      expect(() => channelAddress('SMS', bad, 'to')).to.throw(Invalid, /^to: must be a phone number in E\.164 form/);
    }
    expect(channelAddress('SMS', '+12')).to.equal('+12');
    expect(channelAddress('SMS', '+123456789012345')).to.equal('+123456789012345');
    expect(channelAddress('EMAIL', 'Help@Mail.Example.COM')).to.equal('help@mail.example.com');
    for (const bad of [
      'help',
      'help@local',
      'a b@x.y',
      'a@b@c.d',
      '<a@x.y>',
      'a@x.y\n',
      'x@y.',
      '@x.y',
      'a@\ud800x.y',
    ]) {
      expect(() => channelAddress('EMAIL', bad), bad).to.throw(Invalid, /^input\.address: must be an email address/);
    }
  });

  it('keeps allowed senders normalised and once; @domain for a whole domain of email', () => {
    expect(allowedSendersOf('EMAIL', ['A@X.test', '@Example.COM', 'a@x.test'])).to.deep.equal([
      'a@x.test',
      '@example.com',
    ]);
    expect(allowedSendersOf('SMS', ['+1 415 555 0100', '+14155550100'])).to.deep.equal(['+14155550100']);
    expect(() => allowedSendersOf('EMAIL', ['ok@x.test', '@nodot'])).to.throw(Invalid, /^input\.allowedSenders\.1: /);
    expect(() => allowedSendersOf('SMS', ['@x.test'])).to.throw(Invalid, /^input\.allowedSenders\.0: /);
  });

  it('allows anyone on an empty list, else the listed senders and (email) the listed domains', () => {
    expect(senderAllowed('EMAIL', [], 'anyone@x.test')).to.equal(true);
    expect(senderAllowed('EMAIL', ['a@x.test'], 'A@X.test')).to.equal(true);
    expect(senderAllowed('EMAIL', ['a@x.test'], 'b@x.test')).to.equal(false);
    expect(senderAllowed('EMAIL', ['@x.test'], 'B@X.TEST')).to.equal(true);
    expect(senderAllowed('EMAIL', ['@x.test'], 'b@y.test')).to.equal(false);
    expect(senderAllowed('SMS', ['+14155550100'], '+14155550100')).to.equal(true);
    expect(senderAllowed('SMS', ['+14155550100'], '+14155550101')).to.equal(false);
    expect(senderAllowed('SMS', ['@0100'], '+14155550100')).to.equal(false);
    // A listed address is not a suffix rule; only `@domain` is, and only for email.
    expect(senderAllowed('EMAIL', ['a@x.test'], 'ba@x.test')).to.equal(false);
    expect(senderAllowed('SMS', ['+14155550100'], '+1+14155550100')).to.equal(false);
    expect(senderAllowed('SMS', ['@x.test'], 'a@x.test')).to.equal(false);
    // A text sender is compared as given (an alphanumeric sender id keeps its case).
    expect(senderAllowed('SMS', ['ACME'], 'ACME')).to.equal(true);
  });
});

describe('channel task helpers', () => {
  it('makes the run input of a received message', () => {
    expect(messageRunInput(messageOf(), channelOf())).to.deep.equal({
      surface: 'EMAIL',
      method: 'POST',
      path: 'agent@mail.test',
      params: { channel: 'chn_1' },
      query: {},
      headers: {},
      body: {
        from: 'alice@example.com',
        to: 'agent@mail.test',
        text: 'Hello',
        messageId: '<m1@example.com>',
        threadId: '<t@example.com>',
      },
    });
  });

  it('reads the answer of an output: a string, {reply}, else the output as JSON; nothing when blank', () => {
    expect(replyText('hi')).to.equal('hi');
    expect(replyText({ reply: 'yo', subject: 's' })).to.equal('yo');
    expect(replyText({ reply: { a: 1 } })).to.equal('{"a":1}');
    expect(replyText({ other: 1 })).to.equal('{"other":1}');
    expect(replyText([1])).to.equal('[1]');
    expect(replyText(42)).to.equal('42');
    for (const none of [null, '  ', { reply: null }, { reply: ' ' }, { reply: undefined } as unknown] as Json[])
      expect(replyText(none), JSON.stringify(none)).to.equal(null);
    expect(replySubjectOf({ subject: 'S' })).to.equal('S');
    for (const none of [{ subject: 1 }, ['S'], 'S', null] as Json[]) expect(replySubjectOf(none)).to.equal(undefined);
  });

  it('keeps the last KEPT_PROVIDER_EVENTS provider events', () => {
    expect(withProviderEvent(null, 'sends', { n: 1 })).to.deep.equal({ sends: [{ n: 1 }] });
    expect(withProviderEvent([1], 'sends', { n: 1 })).to.deep.equal({ sends: [{ n: 1 }] });
    expect(withProviderEvent('ab', 'sends', { n: 1 })).to.deep.equal({ sends: [{ n: 1 }] });
    expect(withProviderEvent({ x: 1, sends: 'no' }, 'sends', { n: 1 })).to.deep.equal({ x: 1, sends: [{ n: 1 }] });
    const full = { callbacks: Array.from({ length: KEPT_PROVIDER_EVENTS }, (_, n) => ({ n })) };
    const next = withProviderEvent(full, 'callbacks', { n: 99 }) as { callbacks: { n: number }[] };
    expect(next.callbacks).to.have.length(KEPT_PROVIDER_EVENTS);
    expect(next.callbacks[0]).to.deep.equal({ n: 1 });
    expect(next.callbacks.at(-1)).to.deep.equal({ n: 99 });
  });
});
