import { expect } from 'chai';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { dkimSigned, nodemailerDkim, TestDns, type DkimSigner } from '../helpers/mail-auth.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// The email channel end to end (docs/decisions.md §32) over real SMTP on loopback: a nodemailer
// client delivers to the service's listener (SMTP_PORT), the agent answers, and the answer goes out
// through a local smtp-server playing the smarthost (SMTP_URL), threaded. The customer's mail is
// DKIM-signed for customer.example, whose key the test's DNS serves (only authenticated senders
// are answered). Both databases (TEST_DATABASE_URL for PostgreSQL).

const DOMAIN = 'agents.example.test';
const CUSTOMER = 'Ada Customer <ada@customer.example>';
const MAX_BYTES = 64 * 1024;

interface SmtpError extends Error {
  responseCode?: number;
  rejected?: string[];
}

describe('e2e: email channel (SMTP in, smarthost out)', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let sink: SmtpSink;
  let wsKey: string;
  let agents = 0;
  const dns = new TestDns();
  let customer: DkimSigner;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  /** An agent with the EMAIL surface on and one email channel on an address of its own. */
  async function mailAgent(handler: Record<string, string>, channel: Record<string, unknown> = {}) {
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name: `Mail ${++agents}`, instructions: 'You answer email.', defaultModel: 'fake-model' },
      })
    ).createAgent.id as string;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: true) { id } }', { a: id });
    const address = `agent${agents}@${DOMAIN}`;
    const d = await gql('mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id address } }', {
      a: id,
      i: { kind: 'EMAIL', address, handler, ...channel },
    });
    return { id, address, channelId: d.addChannel.id as string };
  }

  /** Delivers a message to the listener as the customer's mail server would: DKIM-signed, no TLS on loopback. */
  function deliver(message: SendMailOptions) {
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: svc.smtpPort!,
      secure: false,
      ignoreTLS: true,
      dkim: nodemailerDkim(customer),
    });
    return client.sendMail({ from: CUSTOMER, ...message }).finally(() => client.close());
  }

  async function stored(agentId: string): Promise<any[]> {
    return svc.service
      .db('messages')
      .where({ agent_id: agentId })
      .orderBy([{ column: 'created_at' }, { column: 'direction' }]);
  }

  const sentBy = (address: string) => sink.received.filter((m) => m.mailFrom === address);

  before(async () => {
    sink = await startSmtpSink();
    customer = dns.signer('customer.example');
    svc = await startE2eService('email_e2e', {
      env: {
        SMTP_PORT: '0',
        MAIL_DOMAIN: DOMAIN,
        SMTP_URL: sink.url,
        SMTP_MAX_MESSAGE_BYTES: String(MAX_BYTES),
        EMAIL_REPLIES_PER_SENDER_PER_HOUR: '3',
      },
      build: {
        dnsResolver: dns.resolver,
        channelWorker: { pollMs: 50, deferMaxMs: 200, retryDelay: (failures) => (failures < 8 ? 150 : null) },
      },
    });
    expect(svc.smtpPort).to.be.a('number');
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "ws", scopes: [WORKSPACE_READ]) { key } }'))
      .createWorkspaceApiKey.key;
  });

  after(async () => {
    await svc?.stop();
    await sink?.close();
  });

  it('takes a message for a channel address, runs the script handler, and sends its answer through the smarthost, threaded', async () => {
    const a = await mailAgent({
      script: 'return { reply: "Thanks for order " + input.text.trim() + ", " + input.from, subject: undefined };',
    });
    const info = await deliver({
      to: a.address,
      subject: 'Re: Order status',
      text: '42',
      messageId: '<first-42@customer.example>',
      references: '<root-1@customer.example>',
      inReplyTo: '<root-1@customer.example>',
    });
    expect(info.response).to.match(/^250 /);

    const [reply] = await until('the answer at the smarthost', async () =>
      sentBy(a.address).length ? sentBy(a.address) : undefined,
    );
    expect(reply!.rcptTo).to.deep.equal(['ada@customer.example']);
    expect(reply!.mail.text?.trim()).to.equal('Thanks for order 42, ada@customer.example');
    expect(reply!.mail.subject).to.equal('Re: Order status');
    expect(reply!.mail.inReplyTo).to.equal('<first-42@customer.example>');
    expect(reply!.header('references')).to.equal('<root-1@customer.example> <first-42@customer.example>');
    expect(reply!.header('auto-submitted')).to.equal('auto-replied');
    expect(reply!.mail.messageId).to.match(new RegExp(`@${DOMAIN.replace(/\./g, '\\.')}>$`));

    const out = await until('the answer stored as sent', async () =>
      (await stored(a.id)).find((m) => m.direction === 'outbound' && m.status === 'sent'),
    );
    const inbound = (await stored(a.id)).find((m) => m.direction === 'inbound');
    expect(inbound).to.include({
      status: 'answered',
      channel: 'email',
      message_id: '<first-42@customer.example>',
      thread_id: '<root-1@customer.example>',
      from_address: 'ada@customer.example',
      to_address: a.address,
      subject: 'Re: Order status',
    });
    expect(inbound.provider.email).to.include({ via: 'smtp', answer: 'ok', answerTo: 'ada@customer.example' });
    expect(inbound.provider.email.auth).to.include({ authenticated: true, method: 'dkim' });
    expect(out).to.include({
      in_reply_to: '<first-42@customer.example>',
      thread_id: inbound.thread_id,
      from_address: a.address,
      to_address: 'ada@customer.example',
      message_id: reply!.mail.messageId,
      run_id: inbound.run_id,
      attempts: 1,
    });
    expect(out.provider.sends).to.have.length(1);

    const list = async (query: string) => {
      const r = await fetch(`${svc.url}/workspaceapi/agents/${a.id}/messages${query}`, {
        headers: { authorization: `Bearer ${wsKey}` },
      });
      expect(r.status).to.equal(200);
      return (await r.json()) as any;
    };
    expect((await list('')).totalCount).to.equal(2);
    expect((await list('?channel=email')).totalCount).to.equal(2);
    expect((await list('?channel=sms')).totalCount).to.equal(0);
    expect((await list('?direction=inbound')).totalCount).to.equal(1);
    const sent = await list('?channel=email&direction=outbound');
    expect(sent.totalCount).to.equal(1);
    expect(sent.messages[0]).to.include({ from: a.address, to: 'ada@customer.example', subject: 'Re: Order status' });

    await svc.service.services.activityLog.flush();
    const act = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 20, surface: EMAIL) { nodes { kind status entry method } } } }',
      { a: a.id },
    );
    const nodes = act.agent.activity.nodes as { kind: string; status: number | null; entry: string; method: string }[];
    expect(nodes.map((n) => n.kind).sort()).to.deep.equal(['REQUEST', 'RUN']);
    expect(nodes.find((n) => n.kind === 'REQUEST')).to.include({ status: 250, method: 'SMTP', entry: a.address });
  });

  it('answers with a prompt handler through the model, the email text in the prompt', async () => {
    const a = await mailAgent({ prompt: 'Answer the customer in one sentence.' });
    svc.fake.enqueue({ text: 'We ship on Mondays.' });
    await deliver({ to: a.address, subject: 'Shipping', text: 'When do you ship?' });
    const [reply] = await until('the model answer at the smarthost', async () =>
      sentBy(a.address).length ? sentBy(a.address) : undefined,
    );
    expect(reply!.mail.text?.trim()).to.equal('We ship on Mondays.');
    expect(reply!.mail.subject).to.equal('Re: Shipping');
    expect(JSON.stringify(svc.fake.requests.at(-1)!.body.messages)).to.include('When do you ship?');
  });

  it('refuses an unknown recipient at RCPT TO and an address whose agent has the surface off; nothing is stored', async () => {
    const a = await mailAgent({ script: 'return "hi";' });
    const err = (await deliver({ to: `nobody@${DOMAIN}`, subject: 'x', text: 'x' }).then(
      () => null,
      (e: SmtpError) => e,
    ))!;
    expect(err, 'refused').to.not.equal(null);
    expect(err.responseCode).to.equal(550);
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: EMAIL, enabled: false) { id } }', { a: a.id });
    const off = (await deliver({ to: a.address, subject: 'x', text: 'x' }).then(
      () => null,
      (e: SmtpError) => e,
    ))!;
    expect(off.responseCode).to.equal(550);
    expect(await stored(a.id)).to.have.length(0);
  });

  it('refuses a message over SMTP_MAX_MESSAGE_BYTES with 552 and stores nothing', async () => {
    const a = await mailAgent({ script: 'return "hi";' });
    const err = (await deliver({ to: a.address, subject: 'big', text: 'x'.repeat(MAX_BYTES + 1000) }).then(
      () => null,
      (e: SmtpError) => e,
    ))!;
    expect(err.responseCode).to.equal(552);
    expect(await stored(a.id)).to.have.length(0);
  });

  it('stores an Auto-Submitted message without answering it, and runs a redelivered Message-ID once', async () => {
    const a = await mailAgent({ script: 'return "answer";' });
    await deliver({
      to: a.address,
      subject: 'Out of office',
      text: 'away',
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
    for (let i = 0; i < 2; i++)
      expect(
        (await deliver({ to: a.address, subject: 'Twice', text: 'same', messageId: '<twice-1@customer.example>' }))
          .response,
      ).to.match(/^250 /);
    await until('the one answer', async () => (sentBy(a.address).length === 1 ? true : undefined));
    await until('the answer stored as sent', async () =>
      (await stored(a.id)).some((m) => m.status === 'sent') ? true : undefined,
    );
    const rows = await stored(a.id);
    const auto = rows.find((m) => m.subject === 'Out of office');
    expect(auto).to.include({ status: 'ignored', next_attempt_at: null });
    expect(auto.last_error).to.match(/Auto-Submitted/);
    expect(rows.filter((m) => m.subject === 'Twice')).to.have.length(1);
    expect(rows.filter((m) => m.direction === 'outbound')).to.have.length(1);
  });

  it('keeps attachments: metadata always, bytes within the limits', async () => {
    const a = await mailAgent({ script: 'return null;' });
    await deliver({
      to: a.address,
      subject: 'Invoice',
      text: 'attached',
      attachments: [{ filename: 'invoice.txt', content: 'total: 42', contentType: 'text/plain' }],
    });
    const m = await until('the message', async () => (await stored(a.id))[0]);
    expect(m.provider.email.attachments).to.deep.equal([
      { filename: 'invoice.txt', contentType: 'text/plain', size: 9, kept: true },
    ]);
    const [att] = await svc.service.db('message_attachments').where({ message_id: m.id });
    expect(Buffer.from(att.content).toString('utf8')).to.equal('total: 42');
  });

  it('sends the answer on the third attempt when the smarthost refuses the first two (451), recording each attempt', async () => {
    const a = await mailAgent({ script: 'return "third time";' });
    sink.refuseNext(2);
    await deliver({ to: a.address, subject: 'Retry', text: 'please' });
    const out = await until('the answer sent', async () =>
      (await stored(a.id)).find((m) => m.direction === 'outbound' && m.status === 'sent'),
    );
    expect(out.attempts).to.equal(3);
    expect(out.failures).to.equal(2);
    expect(out.provider.sends.map((s: any) => (s.error ? s.answer.code : 'sent'))).to.deep.equal([451, 451, 'sent']);
    expect(sentBy(a.address)).to.have.length(1);
  });

  it('defers the answer while a daily limit of 0 refuses it (the sender got 250), and sends it once the limit is lifted', async () => {
    const a = await mailAgent({ script: 'return "after the limit";' });
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: a.id });
    expect((await deliver({ to: a.address, subject: 'Limited', text: 'hello' })).response).to.match(/^250 /);
    const held = await until('the answer deferred', async () =>
      (await stored(a.id)).find((m) => m.status === 'deferred'),
    );
    expect(held.last_error).to.match(/limit/i);
    expect(sentBy(a.address)).to.have.length(0);
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: null) { id } }', { a: a.id });
    const [reply] = await until('the deferred answer sent', async () =>
      sentBy(a.address).length ? sentBy(a.address) : undefined,
    );
    expect(reply!.mail.text?.trim()).to.equal('after the limit');
  });

  it('answers one sender at most EMAIL_REPLIES_PER_SENDER_PER_HOUR times an hour; the rest are stored, not answered', async () => {
    const a = await mailAgent({ script: 'return "ok";' });
    for (let i = 0; i < 5; i++) await deliver({ to: a.address, subject: `n${i}`, text: String(i) });
    await until('three answers', async () =>
      (await stored(a.id)).filter((m) => m.direction === 'outbound' && m.status === 'sent').length === 3
        ? true
        : undefined,
    );
    const inbound = (await stored(a.id)).filter((m) => m.direction === 'inbound');
    expect(inbound.map((m) => m.status).sort()).to.deep.equal([
      'answered',
      'answered',
      'answered',
      'ignored',
      'ignored',
    ]);
    expect(inbound.filter((m) => m.status === 'ignored').every((m) => /last hour/.test(m.last_error))).to.equal(true);
  });

  it('stores but never answers mail from its own address, a mailing list, or a bounce', async () => {
    const a = await mailAgent({ script: 'return "loop?";' });
    await deliver({ from: a.address, to: a.address, subject: 'self', text: 'x' });
    await deliver({ to: a.address, subject: 'list', text: 'x', headers: { 'List-Id': '<news.customer.example>' } });
    await deliver({ to: a.address, subject: 'bulk', text: 'x', headers: { Precedence: 'bulk' } });
    await deliver({ envelope: { from: '', to: [a.address] }, to: a.address, subject: 'bounce', text: 'x' });
    const rows = await until('four stored', async () => ((await stored(a.id)).length === 4 ? stored(a.id) : undefined));
    expect(rows.map((m) => [m.subject, m.status, m.provider.email.answer]).sort()).to.deep.equal([
      ['bounce', 'ignored', 'null-sender'],
      ['bulk', 'ignored', 'precedence'],
      ['list', 'ignored', 'mailing-list'],
      ['self', 'ignored', 'own-address'],
    ]);
  });

  it('stores hostile bytes (NUL, invalid UTF-8, lone surrogates, header injection in the subject) without a 5xx, and answers on one header line', async () => {
    const a = await mailAgent({ script: 'return { reply: "seen", subject: "ok\\r\\nBcc: victim@example.com" };' });
    const raw = Buffer.concat([
      Buffer.from(
        `From: =?utf-8?B?${Buffer.from('Ev\u0000il \ud800').toString('base64')}?= <eve@customer.example>\r\nTo: ${a.address}\r\nSubject: bad\u0000 `,
      ),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('\r\nMessage-ID: <hostile-1@customer.example>\r\n\r\nbody \u0000 '),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('\r\n'),
    ]);
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: svc.smtpPort!,
      secure: false,
      ignoreTLS: true,
    });
    const info = await client.sendMail({
      envelope: { from: 'eve@customer.example', to: [a.address] },
      raw: await dkimSigned(raw, customer),
    });
    client.close();
    expect(info.response).to.match(/^250 /);
    const [reply] = await until('the answer', async () => (sentBy(a.address).length ? sentBy(a.address) : undefined));
    expect(reply!.mail.subject).to.equal('ok Bcc: victim@example.com');
    expect(reply!.header('bcc')).to.equal(undefined);
    expect(reply!.rcptTo).to.deep.equal(['eve@customer.example']);
    const [m] = (await stored(a.id)).filter((r) => r.direction === 'inbound');
    expect(m.subject).to.not.include('\u0000');
    expect(m.body).to.not.include('\u0000');
  });

  it('refuses bytes that are not an email with 554 and stores nothing', async () => {
    const a = await mailAgent({ script: 'return "x";' });
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: svc.smtpPort!,
      secure: false,
      ignoreTLS: true,
    });
    const err = (await client
      .sendMail({
        envelope: { from: 'x@customer.example', to: [a.address] },
        raw: Buffer.from('\r\njust text, no header section\r\n'),
      })
      .then(
        () => null,
        (e: SmtpError) => e,
      ))!;
    client.close();
    expect(err.responseCode).to.equal(554);
    expect(await stored(a.id)).to.have.length(0);
  });

  it('sends what the agent wrote with send_email into the thread, and not its final text as a second answer', async () => {
    const a = await mailAgent({ prompt: 'Answer by email with the send_email tool.' });
    await gql('mutation($a: ID!) { setCapabilities(agentId: $a, input: { messaging: true }) { id } }', { a: a.id });
    svc.fake.enqueue(
      {
        toolCalls: [
          {
            name: 'send_email',
            arguments: { to: 'ada@customer.example', subject: 'Re: Help', text: 'Here is the help you asked for.' },
          },
        ],
      },
      { text: 'I have sent the answer.' },
    );
    await deliver({ to: a.address, subject: 'Help', text: 'Can you help?', messageId: '<help-1@customer.example>' });
    const [mail] = await until('the tool-sent answer', async () =>
      sentBy(a.address).length ? sentBy(a.address) : undefined,
    );
    expect(mail!.mail.text?.trim()).to.equal('Here is the help you asked for.');
    expect(mail!.mail.inReplyTo).to.equal('<help-1@customer.example>');
    await until('the message answered', async () =>
      (await stored(a.id)).find((m) => m.direction === 'inbound')?.status === 'answered' ? true : undefined,
    );
    const out = (await stored(a.id)).filter((m) => m.direction === 'outbound');
    expect(out.map((m) => m.body)).to.deep.equal(['Here is the help you asked for.']);
  });
});
