import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerError } from 'smtp-server';
import { composeReply } from '../../src/domain/email/reply.js';
import { parseInbound } from '../../src/surfaces/email/parse-inbound.js';
import { sendMail, SmtpSendFailure } from '../../src/infra/email/send-mail.js';
import { inboundMail } from '../helpers/inbound-mail.js';

/** An `smtp-server` sink playing the smarthost: each message gets the next of `answers` (a code, or 250 to take it). */
async function smarthost(answers: number[]) {
  const taken: Buffer[] = [];
  let attempt = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const code = answers[attempt++] ?? 250;
        if (code === 250) {
          taken.push(Buffer.concat(chunks));
          return callback(null, 'Queued as A1');
        }
        const err: SMTPServerError = new Error(code < 500 ? 'Greylisted, come back later' : 'Mailbox unavailable');
        err.responseCode = code;
        callback(err);
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, taken, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function failure(p: Promise<unknown>): Promise<SmtpSendFailure> {
  const e = await p.then(
    () => expect.fail('expected a failure'),
    (err: unknown) => err,
  );
  expect(e).to.be.instanceOf(SmtpSendFailure);
  return e as SmtpSendFailure;
}

describe('email sending through a smarthost (nodemailer → smtp-server on loopback)', () => {
  it('reports 451 as transient, 550 as permanent, then delivers the threaded reply', async () => {
    const sink = await smarthost([451, 550, 250]);
    try {
      const inbound = inboundMail({
        subject: 'RE: Aw: Order 42',
        messageId: '<m2@example.com>',
        references: ['<m1@example.com>'],
      });
      const reply = composeReply(inbound, { from: 'Agent <agent@mail.test>', text: 'It shipped.' });

      const first = await failure(sendMail(sink.url, reply));
      expect([first.code, first.transient]).to.deep.equal([451, true]);
      expect(first.text).to.match(/^451 .*Greylisted/);
      const second = await failure(sendMail(sink.url, reply));
      expect([second.code, second.transient]).to.deep.equal([550, false]);
      expect(second.text).to.match(/^550 .*Mailbox unavailable/);

      const sent = await sendMail(sink.url, reply);
      expect(sent.accepted).to.deep.equal(['alice@example.com']);
      expect(sent.response).to.match(/^250 .*Queued as A1/);
      expect(sink.taken).to.have.length(1);

      // What the smarthost received, read back by the same parser the listener's messages go through.
      const received = await parseInbound(sink.taken[0]!);
      expect(received).to.deep.include({
        subject: 'Re: Order 42',
        messageId: reply.messageId,
        inReplyTo: '<m2@example.com>',
        references: ['<m1@example.com>', '<m2@example.com>'],
        threadId: '<m1@example.com>',
      });
      expect(received.loop.autoSubmitted).to.equal('auto-replied');
      expect(received.loop.autoResponseSuppress).to.equal('All');
      expect(received.from).to.deep.equal({ address: 'agent@mail.test', name: 'Agent' });
      expect(received.text.trim()).to.equal('It shipped.');
    } finally {
      await sink.close();
    }
  });

  it('reports an unreachable smarthost as transient with no code', async () => {
    const sink = await smarthost([]);
    await sink.close();
    const reply = composeReply(inboundMail(), { from: 'agent@mail.test', text: 'x' });
    const err = await failure(sendMail(sink.url, reply));
    expect([err.code, err.transient]).to.deep.equal([null, true]);
    expect(err.text).to.match(/ECONNREFUSED/);
  });
});
