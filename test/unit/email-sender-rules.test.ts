import { expect } from 'chai';
import type { ReceiptLog } from '../../src/domain/activity/activity-log.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Channel } from '../../src/domain/entries/channel.entities.js';
import { EmailReceiptService, type EmailDelivery } from '../../src/domain/channels/email-receipt.service.js';
import { answerTo } from '../../src/domain/channels/outbound-message.js';
import type { Clock } from '../../src/domain/clock.js';
import { answerRecipient, channelBudget, UNVERIFIED, type SenderVerdict } from '../../src/domain/email/sender-rules.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import type { Store } from '../../src/domain/ports.js';
import { channelOf } from '../helpers/channel-fixtures.js';
import { inboundMail } from '../helpers/inbound-mail.js';
import { Tracer } from '../../src/domain/tracing/call-trace.js';

// Who an email is from and who its answer goes to (issue 49, items 3 and 6): only an authenticated
// From: is answered, Reply-To only when the channel's allowed senders name it, and the hourly
// budgets count the address answered and the channel's total.

const PASS: SenderVerdict = { authenticated: true, method: 'dmarc', summary: 'dkim=pass dmarc=pass' };
const FAIL: SenderVerdict = {
  authenticated: false,
  method: 'none',
  summary: 'spf=fail dkim=none dmarc=none (from company.example)',
};
const NOW = new Date('2026-11-28T10:00:00Z');
const box = (address: string) => ({ address, name: '' });

describe('email sender rules', () => {
  const open = { open: true, allows: () => true };
  const company = { open: false, allows: (a: string) => a.endsWith('@company.example') };

  it('answers only an authenticated From:, whatever the headers claim', () => {
    const forged = inboundMail({ from: box('boss@company.example'), replyTo: [box('attacker@evil.example')] });
    expect(answerRecipient(forged, FAIL, company)).to.deep.equal({ answer: false, reason: 'unauthenticated' });
    expect(answerRecipient(forged, FAIL, open)).to.deep.equal({ answer: false, reason: 'unauthenticated' });
    expect(answerRecipient(forged, UNVERIFIED, open)).to.deep.equal({ answer: false, reason: 'unauthenticated' });
    expect(answerRecipient(inboundMail({ from: null }), PASS, open)).to.deep.equal({
      answer: false,
      reason: 'unauthenticated',
    });
    expect(answerRecipient(inboundMail({ from: box('  ') }), PASS, open)).to.deep.equal({
      answer: false,
      reason: 'unauthenticated',
    });
  });

  it('answers an authenticated sender the channel allows, to its From: unless Reply-To is allowed too', () => {
    const signed = inboundMail({ from: box(' Boss@Company.Example '), replyTo: [box('attacker@evil.example')] });
    expect(answerRecipient(signed, PASS, company)).to.deep.equal({ answer: true, to: 'boss@company.example' });
    expect(
      answerRecipient(
        inboundMail({ from: box('boss@company.example'), replyTo: [box('Desk@Company.Example')] }),
        PASS,
        company,
      ),
    ).to.deep.equal({ answer: true, to: 'desk@company.example' });
    // Two Reply-To addresses: the answer goes to the one authenticated address only.
    expect(
      answerRecipient(
        inboundMail({
          from: box('boss@company.example'),
          replyTo: [box('a@company.example'), box('b@company.example')],
        }),
        PASS,
        company,
      ),
    ).to.deep.equal({ answer: true, to: 'boss@company.example' });
    expect(answerRecipient(inboundMail({ from: box('eve@evil.example') }), PASS, company)).to.deep.equal({
      answer: false,
      reason: 'not-allowed-sender',
    });
    // An open channel allows anyone, so its Reply-To vouches for nothing: never used.
    expect(answerRecipient(signed, PASS, open)).to.deep.equal({ answer: true, to: 'boss@company.example' });
    expect(
      answerRecipient(inboundMail({ from: box('boss@company.example'), replyTo: [box('')] }), PASS, company),
    ).to.deep.equal({ answer: true, to: 'boss@company.example' });
  });

  it('budgets answers per recipient and per channel and hour', () => {
    const limits = { perRecipient: 3, perChannel: 5 };
    expect(channelBudget(0, 0, limits)).to.equal('ok');
    expect(channelBudget(2, 4, limits)).to.equal('ok');
    expect(channelBudget(3, 0, limits)).to.equal('rate-limited');
    expect(channelBudget(3, 5, limits)).to.equal('rate-limited');
    expect(channelBudget(0, 5, limits)).to.equal('channel-rate-limited');
    expect(channelBudget(NaN, NaN, limits)).to.equal('ok');
    expect(channelBudget(0, 0, { perRecipient: 0, perChannel: 5 })).to.equal('rate-limited');
    expect(channelBudget(0, 0, { perRecipient: 5, perChannel: 0 })).to.equal('channel-rate-limited');
  });
});

describe('email receipt: sender authentication and answer budgets', () => {
  function service(channel: Channel, counts: { recipient?: number; channel?: number } = {}) {
    const agent = { id: 'agt_1', workspaceId: 'wsp_1', surfaces: { EMAIL: { enabled: true } } } as unknown as Agent;
    const counted: unknown[][] = [];
    const repos = {
      agents: { get: async () => agent },
      channels: { findByAddress: async () => channel, listByAgents: async () => [channel] },
      messages: {
        accept: async (m: Message) => ({ message: m, duplicate: false }),
        countAnswerable: async (...args: unknown[]) => (
          counted.push(args),
          args[1] === null ? (counts.channel ?? 0) : (counts.recipient ?? 0)
        ),
      },
    };
    const store = {
      repos,
      transaction: async <T>(fn: (r: typeof repos) => Promise<T>) => fn(repos),
    } as unknown as Store;
    const svc = new EmailReceiptService(
      store,
      { now: () => NOW } as Clock,
      {
        receipt: (_n, _a, work) => work(new Tracer().begin('receive email', null)),
        received: () => undefined,
      } as ReceiptLog,
      { onQueued: () => undefined },
      { repliesPerSenderPerHour: 3, repliesPerChannelPerHour: 5 },
    );
    return { svc, counted };
  }
  const delivery = (sender?: SenderVerdict): EmailDelivery => ({
    recipients: ['desk@agents.test'],
    via: 'smtp',
    ...(sender ? { sender } : {}),
  });
  const forged = inboundMail(
    { from: { address: 'boss@company.example', name: 'The Boss' }, replyTo: [box('attacker@evil.example')] },
    { returnPath: 'attacker@evil.example' },
  );
  const guarded = channelOf({ id: 'chn_d', address: 'desk@agents.test', allowedSenders: ['@company.example'] });

  it('stores a forged From: unanswered, with the reason and what the checks found', async () => {
    const { svc, counted } = service(guarded);
    const [r] = await svc.receive(forged, delivery(FAIL));
    expect(r!.message).to.deep.include({
      status: 'ignored',
      nextAttemptAt: null,
      answerTo: null,
      from: 'boss@company.example',
    });
    expect(r!.message.lastError).to.equal(
      'Not answered: not from an allowed sender — its From: address is not authenticated (SPF/DKIM/DMARC): spf=fail dkim=none dmarc=none (from company.example)',
    );
    expect((r!.message.provider as any).email).to.deep.include({
      answer: 'unauthenticated',
      auth: { authenticated: false, method: 'none', summary: FAIL.summary },
    });
    expect((r!.message.provider as any).email).to.not.have.property('answerTo');
    expect(counted).to.deep.equal([]);
    // Unchecked mail (no verdict) is never answered either.
    const [u] = await service(channelOf({ address: 'desk@agents.test' })).svc.receive(forged, delivery());
    expect(u!.message.lastError).to.match(/not authenticated .*: not checked$/);
  });

  it('answers the authenticated sender at its From:, and that is where the answer is sent', async () => {
    const { svc, counted } = service(guarded);
    const [r] = await svc.receive(forged, delivery(PASS));
    expect(r!.message).to.deep.include({ status: 'received', answerTo: 'boss@company.example', lastError: null });
    expect(counted.map((c) => c[1])).to.deep.equal(['boss@company.example', null]);
    const reply = answerTo(r!.message, guarded, { text: 'Hi' }, 'run_1', NOW, 'agents.test');
    expect(reply.to).to.equal('boss@company.example');
    // A message stored before answerTo existed is answered at its From:, never its Reply-To.
    const legacy = { ...r!.message, answerTo: undefined };
    expect(answerTo(legacy, guarded, { text: 'Hi' }, 'run_1', NOW, 'agents.test').to).to.equal('boss@company.example');
  });

  it("answers at a Reply-To the channel's allowed senders name, and keeps a long verdict's note bounded", async () => {
    const [r] = await service(guarded).svc.receive(
      inboundMail({ from: box('boss@company.example'), replyTo: [box('desk@company.example')] }),
      delivery(PASS),
    );
    expect(r!.message.answerTo).to.equal('desk@company.example');
    const [long] = await service(guarded).svc.receive(forged, delivery({ ...FAIL, summary: 'x'.repeat(2000) }));
    expect(long!.message.lastError).to.have.length(500);
  });

  it('keeps the channel rules: autoReply off and senders not allowed say so', async () => {
    const [off] = await service(channelOf({ address: 'desk@agents.test', autoReply: false })).svc.receive(
      forged,
      delivery(FAIL),
    );
    expect(off!.message.lastError).to.equal('The channel does not answer automatically');
    const [other] = await service(
      channelOf({ address: 'desk@agents.test', allowedSenders: ['@other.example'] }),
    ).svc.receive(forged, delivery(PASS));
    expect(other!.message).to.deep.include({
      status: 'ignored',
      lastError: "Not answered: the sender is not one of the channel's allowed senders",
    });
    expect((other!.message.provider as any).email.answer).to.equal('not-allowed-sender');
  });

  it('stops at the recipient budget, and at the channel budget whoever the recipient', async () => {
    const [full] = await service(guarded, { recipient: 3 }).svc.receive(forged, delivery(PASS));
    expect(full!.message).to.deep.include({
      status: 'ignored',
      lastError: 'Not answered: this sender had the most automatic answers allowed in the last hour',
    });
    const [channel] = await service(guarded, { recipient: 0, channel: 5 }).svc.receive(forged, delivery(PASS));
    expect(channel!.message).to.deep.include({
      status: 'ignored',
      lastError: 'Not answered: the channel sent the most automatic answers allowed in the last hour',
    });
    expect((channel!.message.provider as any).email.answer).to.equal('channel-rate-limited');
    const [under] = await service(guarded, { recipient: 2, channel: 4 }).svc.receive(forged, delivery(PASS));
    expect(under!.message.status).to.equal('received');
  });
});
