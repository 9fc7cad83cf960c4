import { expect } from 'chai';
import type { ReceiptLog } from '../../src/domain/activity/activity-log.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Channel } from '../../src/domain/entries/channel.entities.js';
import {
  keepsAttachmentBytes,
  quotaExceeded,
  storeCopy,
  storedAttachments,
  storedBytes,
  utcDay,
  type IntakeQuota,
} from '../../src/domain/channels/email-intake-quota.js';
import { EmailReceiptService } from '../../src/domain/channels/email-receipt.service.js';
import type { Clock } from '../../src/domain/clock.js';
import type { InboundAttachment } from '../../src/domain/email/inbound-mail.js';
import type { SenderVerdict } from '../../src/domain/email/sender-rules.js';
import { LimitExceeded, Unavailable } from '../../src/domain/errors.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import type { MessageAttachment } from '../../src/domain/messages/message.ports.js';
import type { Store } from '../../src/domain/ports.js';
import { channelOf, messageOf } from '../helpers/channel-fixtures.js';
import { inboundMail } from '../helpers/inbound-mail.js';
import { Tracer, type Span } from '../../src/domain/tracing/call-trace.js';

// The inbound mail quota per channel and day and the attachment allowance (docs/security.md,
// "Round four: inbound mail quota and retention"), over in-memory fakes.

const NOW = new Date('2026-11-27T10:00:00Z');
const QUOTA: IntakeQuota = { messagesPerDay: 3, bytesPerDay: 100 };
const files: InboundAttachment[] = [
  { filename: 'a.txt', contentType: 'text/plain', size: 3, content: Buffer.from('abc') },
  { filename: null, contentType: 'image/png', size: 9 },
];

describe('email intake quota: the rules', () => {
  it('keeps attachment bytes only for mail the loop and budget rules let be answered', () => {
    expect(keepsAttachmentBytes('ok')).to.equal(true);
    for (const r of ['precedence', 'mailing-list', 'auto-submitted', 'rate-limited', 'null-sender'] as const)
      expect(keepsAttachmentBytes(r), r).to.equal(false);
  });

  it('stores the bytes of the attachments marked kept, metadata of all', () => {
    const mail = inboundMail({ attachments: files });
    expect(storedAttachments(mail, [{ kept: true }, { kept: true }])).to.deep.equal([
      { filename: 'a.txt', contentType: 'text/plain', size: 3, content: Buffer.from('abc') },
      { filename: null, contentType: 'image/png', size: 9, content: null },
    ]);
    expect(storedAttachments(mail, [{ kept: false }]).map((a) => a.content)).to.deep.equal([null, null]);
    expect(storedAttachments(inboundMail(), [])).to.deep.equal([]);
  });

  it('counts stored bytes: subject, text, HTML (UTF-8) and the attachment bytes kept', () => {
    const kept: MessageAttachment[] = [
      { filename: null, contentType: 'x', size: 5, content: Buffer.from('12345') },
      { filename: null, contentType: 'x', size: 900, content: null },
    ];
    expect(storedBytes({ subject: 'é', body: 'ab' }, '<p>', kept)).to.equal(2 + 2 + 3 + 5);
    expect(storedBytes({ subject: null, body: '' }, null, [])).to.equal(0);
  });

  it('counts by UTC day', () => {
    expect(utcDay(new Date('2026-11-27T23:59:59.999Z'))).to.equal('2026-11-27');
    expect(utcDay(new Date('2026-11-28T00:00:00.000Z'))).to.equal('2026-11-28');
  });

  it('refuses past the quota until the next UTC midnight', () => {
    const e = quotaExceeded('desk@mail.test', QUOTA, NOW);
    expect(e).to.be.instanceOf(LimitExceeded);
    expect(e.reason).to.equal('channel_daily_quota');
    expect(e.retryAfterSeconds).to.equal(14 * 3600);
    expect(e.message).to.equal(
      'The channel desk@mail.test has taken its most inbound mail for today (3 messages, 100 bytes); send it again after 2026-11-28T00:00:00.000Z',
    );
    expect(quotaExceeded('d', QUOTA, new Date('2026-11-27T23:59:59.900Z')).retryAfterSeconds).to.equal(1);
    expect(quotaExceeded('d', QUOTA, new Date('2026-11-27T23:59:58.500Z')).retryAfterSeconds).to.equal(2);
  });
});

/** A message repo that accepts each id once and counts against a running total. */
function memoryMessages(quota: IntakeQuota) {
  const accepted: { message: Message; attachments: readonly MessageAttachment[] | undefined }[] = [];
  const counts: [string, string, number][] = [];
  let n = 0;
  let bytes = 0;
  return {
    accepted,
    counts,
    repo: {
      accept: async (message: Message, attachments?: readonly MessageAttachment[]) => {
        const seen = accepted.find(
          (a) => a.message.channelId === message.channelId && a.message.messageId === message.messageId,
        );
        if (seen) return { message: seen.message, duplicate: true };
        accepted.push({ message, attachments });
        return { message, duplicate: false };
      },
      countIntake: async (channelId: string, day: string, b: number, q: IntakeQuota) => {
        expect(q).to.deep.equal(quota);
        counts.push([channelId, day, b]);
        if (n + 1 > q.messagesPerDay || bytes + b > q.bytesPerDay) return false;
        n++;
        bytes += b;
        return true;
      },
    },
  };
}

describe('email intake quota: storing a copy', () => {
  const copy = (id: string, body = 'hello') => ({
    message: messageOf({ id, messageId: `<${id}@x>`, channelId: 'chn_1', to: 'desk@mail.test', subject: 'Hi', body }),
    html: null,
    kept: [],
  });

  it('stores and counts each new message with its stored bytes, on its UTC day', async () => {
    const mem = memoryMessages(QUOTA);
    const r = await storeCopy(mem.repo, copy('m1'), inboundMail(), QUOTA, NOW);
    expect(r.duplicate).to.equal(false);
    expect(mem.counts).to.deep.equal([['chn_1', '2026-11-27', 7]]);
  });

  it('counts a duplicate not at all, and nothing without a quota', async () => {
    const mem = memoryMessages(QUOTA);
    await storeCopy(mem.repo, copy('m1'), inboundMail(), QUOTA, NOW);
    expect((await storeCopy(mem.repo, copy('m1'), inboundMail(), QUOTA, NOW)).duplicate).to.equal(true);
    expect((await storeCopy(mem.repo, copy('m2'), inboundMail(), undefined, NOW)).duplicate).to.equal(false);
    expect(mem.counts).to.have.length(1);
  });

  it('throws past the message count, past the bytes, and for one message over the whole day’s bytes without counting it', async () => {
    const mem = memoryMessages(QUOTA);
    for (const id of ['m1', 'm2', 'm3']) await storeCopy(mem.repo, copy(id), inboundMail(), QUOTA, NOW);
    const err = await storeCopy(mem.repo, copy('m4'), inboundMail(), QUOTA, NOW).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(LimitExceeded);

    const bytes = memoryMessages(QUOTA);
    await storeCopy(bytes.repo, copy('b1', 'x'.repeat(60)), inboundMail(), QUOTA, NOW);
    expect(
      await storeCopy(bytes.repo, copy('b2', 'x'.repeat(40)), inboundMail(), QUOTA, NOW).catch((e: unknown) => e),
    ).to.be.instanceOf(LimitExceeded);
    expect(
      (await storeCopy(bytes.repo, copy('b3', 'x'.repeat(36)), inboundMail(), QUOTA, NOW)).duplicate,
      'exactly at the bytes',
    ).to.equal(false);

    const huge = memoryMessages(QUOTA);
    expect(
      await storeCopy(huge.repo, copy('h1', 'x'.repeat(99)), inboundMail(), QUOTA, NOW).catch((e: unknown) => e),
    ).to.be.instanceOf(LimitExceeded);
    expect(huge.counts, 'never counted').to.deep.equal([]);
    expect(
      (await storeCopy(huge.repo, copy('h2', 'x'.repeat(98)), inboundMail(), QUOTA, NOW)).duplicate,
      'exactly the day’s bytes',
    ).to.equal(false);
  });
});

describe('email receipt with a quota', () => {
  // Mail whose From: authenticated: only such mail is answered (docs/security.md, round four).
  const PASS: SenderVerdict = { authenticated: true, method: 'dkim', summary: 'dkim=pass' };
  const channel: Channel = channelOf({ id: 'chn_1', address: 'desk@mail.test' });
  const agent = { id: 'agt_1', workspaceId: 'wsp_1', surfaces: { EMAIL: { enabled: true } } } as unknown as Agent;

  function service(quota: IntakeQuota) {
    const mem = memoryMessages(quota);
    const repos = {
      agents: { get: async () => agent },
      channels: {
        findByAddress: async (_k: string, a: string) => (a === channel.address ? channel : null),
        listByAgents: async () => [channel],
      },
      messages: { ...mem.repo, countAnswerable: async () => 0 },
    };
    const store = {
      repos,
      transaction: async <T>(fn: (r: typeof repos) => Promise<T>) => fn(repos),
    } as unknown as Store;
    const recorded: unknown[] = [];
    let woken = 0;
    const svc = new EmailReceiptService(
      store,
      { now: () => NOW } as Clock,
      {
        receipt: (_n: string, _a: unknown, work: (span: Span) => Promise<unknown>) =>
          work(new Tracer().begin('receive email', null)),
        received: (_a: unknown, r: unknown) => void recorded.push(r),
      } as unknown as ReceiptLog,
      { onQueued: () => void woken++ },
      { repliesPerSenderPerHour: 10, repliesPerChannelPerHour: 100, quota },
    );
    return { svc, mem, recorded, woken: () => woken };
  }

  it('passes the quota refusal on as it is (not as a storage failure), recording and waking nothing', async () => {
    const s = service({ messagesPerDay: 1, bytesPerDay: 1000 });
    await s.svc.receive(inboundMail({ messageId: '<a@x>' }), {
      recipients: ['desk@mail.test'],
      via: 'smtp',
      sender: PASS,
    });
    const err = await s.svc
      .receive(inboundMail({ messageId: '<b@x>' }), { recipients: ['desk@mail.test'], via: 'smtp', sender: PASS })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(LimitExceeded).and.not.instanceOf(Unavailable);
    expect(s.recorded).to.have.length(1);
    expect(s.woken()).to.equal(1);
  });

  it("stores a bulk message's attachments without bytes and says so; an answerable one's with them", async () => {
    const s = service({ messagesPerDay: 10, bytesPerDay: 1000 });
    const [bulk] = await s.svc.receive(
      inboundMail({ messageId: '<bulk@x>', attachments: files }, { precedence: 'bulk' }),
      { recipients: ['desk@mail.test'], via: 'smtp', sender: PASS },
    );
    const [person] = await s.svc.receive(inboundMail({ messageId: '<p@x>', attachments: files }), {
      recipients: ['desk@mail.test'],
      via: 'smtp',
      sender: PASS,
    });
    expect(s.mem.accepted[0]!.attachments!.map((a) => a.content)).to.deep.equal([null, null]);
    expect((bulk!.message.provider as any).email.attachments.map((a: { kept: boolean }) => a.kept)).to.deep.equal([
      false,
      false,
    ]);
    expect(s.mem.accepted[1]!.attachments!.map((a) => a.content)).to.deep.equal([Buffer.from('abc'), null]);
    expect((person!.message.provider as any).email.attachments.map((a: { kept: boolean }) => a.kept)).to.deep.equal([
      true,
      false,
    ]);
    // The bulk message's stored bytes leave its attachments out: subject and text only.
    expect(s.mem.counts.map((c) => c[2])).to.deep.equal([13, 16]);
  });
});
