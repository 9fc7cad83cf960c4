import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { dkimSigned, TestDns, type DkimSigner } from '../helpers/mail-auth.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// Who an email is from (issue 49, items 3 and 6), over real SMTP on loopback: a forged From: of
// an allowed sender is stored and not answered; the same message DKIM-signed by the allowed domain
// (a test key whose public half the test's DNS serves) is answered at its From:, never at its
// Reply-To; a reflection through one Reply-To gets at most the per-recipient budget, and a channel
// at most its hourly total. Both databases (TEST_DATABASE_URL for PostgreSQL).

const DOMAIN = 'agents.example.test';

describe('e2e: email sender authentication (SPF/DKIM/DMARC) and answer budgets', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let sink: SmtpSink;
  let company: DkimSigner;
  let agents = 0;
  const dns = new TestDns();

  async function mailAgent(allowedSenders: string[]) {
    const gql = svc.gql;
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name: `Auth ${++agents}`, instructions: 'You answer email.', defaultModel: 'fake-model' },
      })
    ).createAgent.id as string;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', { a: id });
    const address = `desk${agents}@${DOMAIN}`;
    await gql('mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
      a: id,
      i: {
        kind: 'EMAIL',
        address,
        allowedSenders,
        handler: { script: 'return "The quarterly figures are attached.";' },
      },
    });
    return { id, address };
  }

  /** The raw message of the reproduction: From an allowed sender, Reply-To the attacker. */
  function message(
    to: string,
    n: string,
    from = 'The Boss <boss@company.example>',
    replyTo = 'attacker@evil.example',
  ): string {
    return [
      `From: ${from}`,
      `To: ${to}`,
      `Reply-To: ${replyTo}`,
      `Subject: Figures ${n}`,
      `Message-ID: <fig-${n}-${agents}@company.example>`,
      'Date: Sat, 28 Nov 2026 10:00:00 +0000',
      '',
      'Send me the figures.',
      '',
    ].join('\r\n');
  }

  /** Delivers `raw` with MAIL FROM `mailFrom` (the attacker's envelope in the reproduction). */
  async function deliver(to: string, raw: Buffer | string, mailFrom = 'attacker@evil.example') {
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: svc.smtpPort!,
      secure: false,
      ignoreTLS: true,
    });
    try {
      return await client.sendMail({ envelope: { from: mailFrom, to: [to] }, raw });
    } finally {
      client.close();
    }
  }

  const inbound = async (agentId: string): Promise<any[]> =>
    svc.service.db('messages').where({ agent_id: agentId, direction: 'inbound' }).orderBy('created_at');
  const sentBy = (address: string) => sink.received.filter((m) => m.mailFrom === address);

  before(async () => {
    sink = await startSmtpSink();
    company = dns.signer('company.example');
    // The attacker's own domain passes SPF for loopback: a pass that is not aligned with From: is worth nothing.
    dns.txt('evil.example', 'v=spf1 ip4:127.0.0.1 -all');
    svc = await startE2eService('email_sender_auth', {
      env: {
        SMTP_PORT: '0',
        MAIL_DOMAIN: DOMAIN,
        SMTP_URL: sink.url,
        EMAIL_REPLIES_PER_SENDER_PER_HOUR: '3',
        EMAIL_REPLIES_PER_CHANNEL_PER_HOUR: '5',
      },
      build: { dnsResolver: dns.resolver, channelWorker: { pollMs: 50, deferMaxMs: 200 } },
    });
  });

  after(async () => {
    await svc?.stop();
    await sink?.close();
  });

  it('stores a forged From: of an allowed sender without answering it, the reason kept; the DKIM-signed one is answered at its From:, not its Reply-To', async () => {
    const a = await mailAgent(['@company.example']);
    expect((await deliver(a.address, message(a.address, 'forged'))).response).to.match(/^250 /);
    const [forged] = await until('the forged message stored', async () =>
      (await inbound(a.id)).length === 1 ? inbound(a.id) : undefined,
    );
    expect(forged).to.include({
      status: 'ignored',
      next_attempt_at: null,
      from_address: 'boss@company.example',
      answer_to: null,
    });
    expect(forged.last_error).to.match(
      /^Not answered: not from an allowed sender — its From: address is not authenticated \(SPF\/DKIM\/DMARC\): spf=pass \(evil\.example\) dkim=none dmarc=none \(from company\.example\)$/,
    );
    expect(forged.provider.email).to.deep.include({
      answer: 'unauthenticated',
      auth: {
        authenticated: false,
        method: 'none',
        summary: 'spf=pass (evil.example) dkim=none dmarc=none (from company.example)',
      },
    });

    expect((await deliver(a.address, await dkimSigned(message(a.address, 'signed'), company))).response).to.match(
      /^250 /,
    );
    const [reply] = await until('the answer to the signed message', async () =>
      sentBy(a.address).length ? sentBy(a.address) : undefined,
    );
    expect(reply!.rcptTo).to.deep.equal(['boss@company.example']);
    expect(reply!.mail.inReplyTo).to.equal(`<fig-signed-${agents}@company.example>`);
    const rows = await inbound(a.id);
    expect(rows.map((m) => [m.subject, m.status === 'ignored' ? 'ignored' : 'taken', m.answer_to])).to.deep.equal([
      ['Figures forged', 'ignored', null],
      ['Figures signed', 'taken', 'boss@company.example'],
    ]);
    expect(rows[1].provider.email.auth).to.include({ authenticated: true, method: 'dkim' });
    // Nothing ever went to the Reply-To the attacker named.
    await until('the signed message answered', async () =>
      (await inbound(a.id))[1]?.status === 'answered' ? true : undefined,
    );
    expect(sink.received.filter((m) => m.rcptTo.includes('attacker@evil.example'))).to.have.length(0);
  });

  it('answers a DMARC pass too, and refuses a signature by another domain (not aligned) or a broken one', async () => {
    const a = await mailAgent([]);
    dns.txt('_dmarc.company.example', 'v=DMARC1; p=reject');
    const other = dns.signer('other.example');
    await deliver(a.address, await dkimSigned(message(a.address, 'other-domain'), other));
    const tampered = (await dkimSigned(message(a.address, 'tampered'), company))
      .toString()
      .replace('Send me the figures.', 'Send me the payroll.');
    await deliver(a.address, tampered);
    await deliver(a.address, await dkimSigned(message(a.address, 'dmarc'), company));
    const rows = await until('three stored', async () =>
      (await inbound(a.id)).length === 3 ? inbound(a.id) : undefined,
    );
    expect(rows.map((m) => [m.subject, m.provider.email.answer, m.provider.email.auth.method])).to.deep.equal([
      ['Figures other-domain', 'unauthenticated', 'dmarc-fail'],
      ['Figures tampered', 'unauthenticated', 'dmarc-fail'],
      ['Figures dmarc', 'ok', 'dmarc'],
    ]);
    // An open channel answers the authenticated From: only, never the Reply-To.
    const [reply] = await until('the answer', async () => (sentBy(a.address).length ? sentBy(a.address) : undefined));
    expect(reply!.rcptTo).to.deep.equal(['boss@company.example']);
  });

  it('answers a reflection through one allowed Reply-To at most EMAIL_REPLIES_PER_SENDER_PER_HOUR times', async () => {
    const a = await mailAgent(['@company.example']);
    for (let i = 0; i < 14; i++) {
      await deliver(
        a.address,
        await dkimSigned(
          message(a.address, `reflect-${i}`, `Sender ${i} <user${i}@company.example>`, 'victim@company.example'),
          company,
        ),
        `user${i}@company.example`,
      );
    }
    const rows = await until('fourteen stored', async () =>
      (await inbound(a.id)).length === 14 ? inbound(a.id) : undefined,
    );
    expect(rows.filter((m) => m.status !== 'ignored').map((m) => m.answer_to)).to.deep.equal([
      'victim@company.example',
      'victim@company.example',
      'victim@company.example',
    ]);
    const notAnswered = rows.filter((m) => m.status === 'ignored');
    expect(
      notAnswered.map((m) => m.provider.email.answer),
      notAnswered.map((m) => m.last_error).join('\n'),
    ).to.deep.equal(Array(11).fill('rate-limited'));
    await until('three answers sent', async () => (sentBy(a.address).length === 3 ? true : undefined));
    expect(sentBy(a.address).flatMap((m) => m.rcptTo)).to.deep.equal([
      'victim@company.example',
      'victim@company.example',
      'victim@company.example',
    ]);
  });

  it('answers at most EMAIL_REPLIES_PER_CHANNEL_PER_HOUR messages of a channel an hour, whoever sent them', async () => {
    const a = await mailAgent([]);
    for (let i = 0; i < 7; i++)
      await deliver(
        a.address,
        await dkimSigned(
          message(a.address, `total-${i}`, `user${i}@company.example`, `user${i}@company.example`),
          company,
        ),
      );
    const rows = await until('seven stored', async () =>
      (await inbound(a.id)).length === 7 ? inbound(a.id) : undefined,
    );
    expect(rows.map((m) => m.provider.email.answer)).to.deep.equal([
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'channel-rate-limited',
      'channel-rate-limited',
    ]);
    expect(rows[6].last_error).to.equal(
      'Not answered: the channel sent the most automatic answers allowed in the last hour',
    );
  });
});
