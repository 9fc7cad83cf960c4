import { expect } from 'chai';
import { createHmac, randomBytes } from 'node:crypto';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// Inbound mail's daily quota per channel and its attachment allowance (docs/security.md, "Round
// four: inbound mail quota and retention"), over real SMTP and the Mailgun route, with small
// settings: 10 messages and 20,000 stored bytes per channel and UTC day. Past either the sender
// gets a temporary refusal (SMTP 452, Mailgun 429 with Retry-After) and nothing is stored. Mail
// the loop rules will not answer (bulk here) keeps its attachments' metadata, not their bytes.
// Both databases.

const DOMAIN = 'quota.example.test';
const KEY = 'quota-mailgun-signing-key';

interface SmtpError extends Error {
  responseCode?: number;
  response?: string;
}

describe('e2e: inbound mail quota per channel and day', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let channels = 0;

  /** An agent with the EMAIL surface on and a channel that answers nothing (the test looks at what is stored). */
  async function channel(): Promise<{ agentId: string; address: string }> {
    const agentId = (await svc.gql('mutation { createAgent(input: {name: "Quota", instructions: "x"}) { id } }'))
      .createAgent.id as string;
    await svc.gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', {
      a: agentId,
    });
    const address = `desk${++channels}@${DOMAIN}`;
    await svc.gql('mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: { kind: 'EMAIL', address, handler: { script: 'return null;' }, autoReply: false },
    });
    return { agentId, address };
  }

  /** Delivers over SMTP; resolves with the final reply code. */
  async function deliver(message: SendMailOptions, port = svc.smtpPort!): Promise<{ code: number; response: string }> {
    const client = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    try {
      const info = await client.sendMail({ from: 'ada@customer.example', subject: 'Hello', text: 'hi', ...message });
      return { code: Number(info.response.slice(0, 3)), response: info.response };
    } catch (err) {
      return { code: (err as SmtpError).responseCode ?? 0, response: (err as SmtpError).response ?? String(err) };
    } finally {
      client.close();
    }
  }

  const inbound = (agentId: string) =>
    svc.service.db('messages').where({ agent_id: agentId, direction: 'inbound' }).orderBy('created_at');
  const attachmentsOf = (ids: string[]) =>
    svc.service.db('message_attachments').whereIn('message_id', ids).orderBy(['message_id', 'position']);

  before(async () => {
    svc = await startE2eService('email_quota', {
      env: {
        SMTP_PORT: '0',
        MAIL_DOMAIN: DOMAIN,
        EMAIL_DAILY_MESSAGES_PER_CHANNEL: '10',
        EMAIL_DAILY_BYTES_PER_CHANNEL: '20000',
        MAILGUN_WEBHOOK_SIGNING_KEY: KEY,
      },
    });
  });
  after(async () => svc?.stop());

  it('takes 10 messages for a channel, refuses the 11th with 452 and stores nothing of it; another channel still takes mail', async () => {
    const a = await channel();
    for (let i = 1; i <= 10; i++)
      expect((await deliver({ to: a.address, messageId: `<q${i}@customer.example>` })).code, `message ${i}`).to.equal(
        250,
      );
    const eleventh = await deliver({
      to: a.address,
      messageId: '<q11@customer.example>',
      attachments: [{ filename: 'big.bin', content: Buffer.alloc(2048, 1) }],
    });
    expect(eleventh.code).to.equal(452);
    expect(eleventh.response).to.match(
      /^452 4\.2\.2 The channel desk\d+@quota\.example\.test has taken its most inbound mail for today \(10 messages, 20000 bytes\); send it again after \d{4}-\d\d-\d\dT00:00:00\.000Z$/,
    );
    const rows = await inbound(a.agentId);
    expect(rows).to.have.length(10);
    expect(rows.map((r: { message_id: string }) => r.message_id)).to.not.include('<q11@customer.example>');
    expect(await attachmentsOf(rows.map((r: { id: string }) => r.id))).to.deep.equal([]);
    // A message id the channel has is a duplicate, not a new message: taken (250) and not counted.
    expect((await deliver({ to: a.address, messageId: '<q3@customer.example>' })).code).to.equal(250);

    const b = await channel();
    expect((await deliver({ to: b.address, messageId: '<other@customer.example>' })).code).to.equal(250);
  });

  it('holds one quota across two instances on one PostgreSQL: 14 messages at once, 10 taken, 4 refused with 452', async function () {
    if (!process.env.TEST_DATABASE_URL) return this.skip();
    const other = await svc.another();
    const q = await channel();
    const codes = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        deliver({ to: q.address, messageId: `<both${i}@customer.example>` }, i % 2 ? other.smtpPort! : svc.smtpPort!),
      ),
    );
    expect(codes.map((c) => c.code).sort()).to.deep.equal([...Array(10).fill(250), ...Array(4).fill(452)]);
    expect(await inbound(q.agentId)).to.have.length(10);
  });

  it('counts stored bytes: past 20,000 in a day a message is refused with 452, a smaller one still fits', async () => {
    const c = await channel();
    expect((await deliver({ to: c.address, text: 'a'.repeat(15_000) })).code).to.equal(250);
    expect((await deliver({ to: c.address, text: 'b'.repeat(6_000) })).code).to.equal(452);
    expect((await deliver({ to: c.address, text: 'small' })).code).to.equal(250);
    expect((await inbound(c.agentId)).map((r: { body: string }) => r.body.trim().length)).to.deep.equal([15_000, 5]);
  });

  it("answers Mailgun's route 429 with Retry-After past the quota (Mailgun retries it later), storing nothing", async () => {
    const d = await channel();
    const timestamp = Math.floor(Date.now() / 1000);
    const token = randomBytes(25).toString('hex');
    const form = new FormData();
    for (const [k, v] of Object.entries({
      recipient: d.address,
      sender: 'ada@customer.example',
      timestamp: String(timestamp),
      token,
      signature: createHmac('sha256', KEY).update(`${timestamp}${token}`).digest('hex'),
    }))
      form.append(k, v);
    const mime = [
      `From: ada@customer.example`,
      `To: ${d.address}`,
      'Subject: Big',
      'Message-ID: <big@customer.example>',
      'Content-Type: text/plain',
      '',
      'c'.repeat(21_000),
      '',
    ].join('\r\n');
    form.append('body-mime', new Blob([mime]), 'message.eml');
    const res = await fetch(`${svc.url}/email/mailgun/mime`, { method: 'POST', body: form });
    expect(res.status).to.equal(429);
    expect(Number(res.headers.get('retry-after'))).to.be.within(1, 86_400);
    const body = (await res.json()) as { error: string; reason: string };
    expect(body.reason).to.equal('channel_daily_quota');
    expect(body.error).to.match(/has taken its most inbound mail for today/);
    expect(await inbound(d.agentId)).to.deep.equal([]);
  });

  it('keeps only the metadata of a bulk message’s attachments, and the bytes of a message that may be answered', async () => {
    const e = await channel();
    const files = [
      { filename: 'one.bin', content: Buffer.alloc(1500, 1) },
      { filename: 'two.bin', content: Buffer.alloc(1200, 2) },
    ];
    expect(
      (
        await deliver({
          to: e.address,
          messageId: '<bulk@list.example>',
          headers: { Precedence: 'bulk' },
          attachments: files,
        })
      ).code,
    ).to.equal(250);
    expect(
      (await deliver({ to: e.address, messageId: '<person@customer.example>', attachments: [files[0]!] })).code,
    ).to.equal(250);
    const [bulk, person] = await inbound(e.agentId);
    expect(bulk.message_id).to.equal('<bulk@list.example>');
    expect(bulk.provider.email.answer).to.equal('precedence');
    expect(bulk.provider.email.attachments.map((a: { kept: boolean }) => a.kept)).to.deep.equal([false, false]);
    const bulkFiles = await attachmentsOf([bulk.id]);
    expect(
      bulkFiles.map((a: { filename: string; size: number; content: unknown }) => [a.filename, a.size, a.content]),
    ).to.deep.equal([
      ['one.bin', 1500, null],
      ['two.bin', 1200, null],
    ]);
    const personFiles = await attachmentsOf([person.id]);
    expect(personFiles).to.have.length(1);
    expect(Buffer.from(personFiles[0].content).equals(files[0]!.content)).to.equal(true);
    expect(person.provider.email.attachments[0].kept).to.equal(true);
  });
});
