import { expect } from 'chai';
import nodemailer from 'nodemailer';
import net from 'node:net';
import { parseInbound } from '../../src/surfaces/email/parse-inbound.js';
import {
  startSmtpListener,
  type SmtpEnvelope,
  type SmtpListener,
  type SmtpListenerOptions,
} from '../../src/surfaces/email/smtp-listener.js';
import { selfSignedCert } from '../helpers/cimd-server.js';

const DOMAIN = 'mail.test';
const KNOWN = new Set(['agent@mail.test']);

interface Received {
  raw: Buffer;
  envelope: SmtpEnvelope;
}

/** A listener on loopback that stores what it is given; `over` replaces options. */
async function listener(
  over: Partial<SmtpListenerOptions> = {},
): Promise<{ smtp: SmtpListener; received: Received[] }> {
  const received: Received[] = [];
  const smtp = await startSmtpListener({
    port: 0,
    host: '127.0.0.1',
    domain: DOMAIN,
    maxBytes: 64 * 1024,
    isKnownRecipient: async (a) => KNOWN.has(a.toLowerCase()),
    onMessage: async (raw, envelope) => void received.push({ raw, envelope }),
    ...over,
  });
  return { smtp, received };
}

/** A real SMTP client (nodemailer), talking to the listener on loopback. */
function client(port: number, tls: { requireTLS?: boolean; ca?: string } = {}) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ...(tls.requireTLS ? { requireTLS: true, tls: { ca: tls.ca!, servername: 'localhost' } } : { ignoreTLS: true }),
  });
}

/** A raw SMTP conversation: the greeting, then the whole reply (all its lines) to each command. */
async function converse(port: number, commands: string[]): Promise<string[]> {
  const socket = net.connect(port, '127.0.0.1');
  const replies: string[] = [];
  let buffer = '';
  let current = '';
  let waiting: (() => void) | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\r\n'); nl >= 0; nl = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 2);
      current += `${line}\n`;
      // The last line of a reply has a space after the code (RFC 5321 §4.2.1).
      if (/^\d{3}( |$)/.test(line)) {
        replies.push(current);
        current = '';
        waiting?.();
      }
    }
  });
  const reply = (n: number) =>
    new Promise<void>((resolve) =>
      replies.length >= n ? resolve() : (waiting = () => replies.length >= n && resolve()),
    );
  await reply(1);
  for (const [i, command] of commands.entries()) {
    socket.write(`${command}\r\n`);
    await reply(i + 2);
  }
  socket.destroy();
  return replies;
}

async function failureOf(
  p: Promise<unknown>,
): Promise<Error & { responseCode?: number; response?: string; command?: string }> {
  return p.then(
    () => expect.fail('expected a refusal'),
    (e: Error) => e,
  );
}

describe('email SMTP listener (real sockets on loopback)', () => {
  let open: SmtpListener[] = [];
  afterEach(async () => {
    await Promise.all(open.map((s) => s.close()));
    open = [];
  });
  const started = async (over: Partial<SmtpListenerOptions> = {}) => {
    const l = await listener(over);
    open.push(l.smtp);
    return l;
  };

  it('greets with MAIL_DOMAIN, advertises SIZE, offers no AUTH and no STARTTLS without a certificate', async () => {
    const { smtp } = await started();
    const [greeting, ehlo, auth] = await converse(smtp.port, [
      'EHLO client.example.com',
      'AUTH PLAIN AGFAYg==',
      'QUIT',
    ]);
    expect(greeting).to.match(new RegExp(`^220 ${DOMAIN} ESMTP`));
    expect(ehlo)
      .to.match(/^250-mail\.test/)
      .and.match(/^250[- ]SIZE 65536$/m)
      .and.not.match(/STARTTLS|AUTH/);
    expect(auth).to.match(/^50[02] /);
  });

  it('offers STARTTLS (and still no AUTH) with a certificate', async function () {
    const cert = selfSignedCert();
    if (!cert) this.skip();
    const { smtp } = await started({ tls: cert });
    const [, ehlo] = await converse(smtp.port, ['EHLO client.example.com', 'QUIT']);
    expect(ehlo).to.include('STARTTLS').and.not.include('AUTH');
  });

  it('accepts a message for a known recipient and hands over the raw bytes and the envelope before the 250', async () => {
    let stored = false;
    const { smtp, received } = await started({
      onMessage: async (raw, envelope) => {
        await new Promise((r) => setTimeout(r, 50));
        stored = true;
        received.push({ raw, envelope });
      },
    });
    const info = await client(smtp.port).sendMail({
      from: 'alice@example.com',
      to: 'agent@mail.test',
      subject: 'Hi',
      text: 'Hello agent',
      messageId: '<m1@example.com>',
    });
    expect(stored, 'the 250 came before the message was stored').to.equal(true);
    expect(info.response).to.match(/^250 /);
    expect(received).to.have.length(1);
    expect(received[0]!.envelope).to.deep.include({
      mailFrom: 'alice@example.com',
      rcptTo: ['agent@mail.test'],
      remoteAddress: '127.0.0.1',
      secure: false,
    });
    const mail = await parseInbound(received[0]!.raw, {}, received[0]!.envelope);
    expect(mail).to.deep.include({ subject: 'Hi', messageId: '<m1@example.com>' });
    expect(mail.text.trim()).to.equal('Hello agent');
  });

  it('refuses an unknown recipient at RCPT TO with 550, before any data', async () => {
    const { smtp, received } = await started();
    const err = await failureOf(
      client(smtp.port).sendMail({ from: 'alice@example.com', to: 'nobody@mail.test', subject: 's', text: 't' }),
    );
    expect(err.responseCode).to.equal(550);
    expect(err.command).to.match(/RCPT TO/);
    expect(received).to.have.length(0);
  });

  it('answers 451 at RCPT TO when the recipient check fails', async () => {
    const { smtp } = await started({ isKnownRecipient: async () => Promise.reject(new Error('db down')) });
    const err = await failureOf(
      client(smtp.port).sendMail({ from: 'alice@example.com', to: 'agent@mail.test', subject: 's', text: 't' }),
    );
    expect([err.responseCode, err.command]).to.deep.equal([451, 'RCPT TO']);
  });

  it('refuses an oversized message with 552 and delivers nothing', async () => {
    const { smtp, received } = await started({ maxBytes: 2048 });
    const big = { from: 'alice@example.com', to: 'agent@mail.test', subject: 'big', text: 'x'.repeat(10_000) };
    const err = await failureOf(client(smtp.port).sendMail(big));
    expect(err.responseCode).to.equal(552);
    // A client that does not declare SIZE is stopped after DATA instead of at MAIL FROM.
    const raw = await new (await import('nodemailer/lib/mail-composer')).default(big).compile().build();
    const undeclared = await failureOf(
      client(smtp.port).sendMail({
        envelope: { from: 'alice@example.com', to: ['agent@mail.test'] },
        raw: raw.toString(),
      }),
    );
    expect(undeclared.responseCode).to.equal(552);
    expect(received).to.have.length(0);
  });

  it('answers 451 when storing the message fails, so the sender retries', async () => {
    const { smtp } = await started({ onMessage: async () => Promise.reject(new Error('disk full')) });
    const err = await failureOf(
      client(smtp.port).sendMail({ from: 'alice@example.com', to: 'agent@mail.test', subject: 's', text: 't' }),
    );
    expect(err.responseCode).to.equal(451);
    expect(err.response).to.match(/try again later/);
  });

  it('upgrades with STARTTLS when given a certificate', async function () {
    const cert = selfSignedCert();
    if (!cert) this.skip();
    const { smtp, received } = await started({ tls: cert });
    const info = await client(smtp.port, { requireTLS: true, ca: cert.cert }).sendMail({
      from: 'alice@example.com',
      to: 'agent@mail.test',
      subject: 'tls',
      text: 'secret',
    });
    expect(info.response).to.match(/^250 /);
    expect(received[0]!.envelope.secure).to.equal(true);
  });

  it('stops listening on close', async () => {
    const { smtp } = await listener();
    await smtp.close();
    const err = await failureOf(
      client(smtp.port).sendMail({ from: 'a@example.com', to: 'agent@mail.test', text: 't' }),
    );
    expect((err as NodeJS.ErrnoException).code).to.equal('ESOCKET');
  });
});
