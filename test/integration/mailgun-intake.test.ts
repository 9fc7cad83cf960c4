import { expect } from 'chai';
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { EmailReceiptService } from '../../src/domain/channels/email-receipt.service.js';
import { NotFound, Unauthenticated, Unavailable } from '../../src/domain/errors.js';
import { mailgunIntake } from '../../src/surfaces/email/mailgun-intake.js';
import { checkMailgunSignature } from '../../src/surfaces/email/mailgun-signature.js';
import { mailgunTokens } from '../../src/infra/email/mailgun-tokens.js';
import { createLogger } from '../../src/infra/logger.js';
import { errorMapper } from '../../src/rest/errors.js';
import { mailgunRoutes } from '../../src/surfaces/email/mailgun.routes.js';
import { h } from '../helpers/harness.js';
import { NO_DNS } from '../helpers/mail-auth.js';

// The Mailgun intake's rules without a whole service (docs/decisions.md §31): the signature window,
// the token memory in the database, and the answers when storing fails (503, the token given back so
// that Mailgun's retry of the same post is taken) or refuses for good (406, the token kept).

const KEY = 'intake-test-key';
const sign = (timestamp: number, token = randomBytes(25).toString('hex'), key = KEY) => ({
  timestamp: String(timestamp),
  token,
  signature: createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex'),
});
const MIME = Buffer.from(
  'From: a@example.org\r\nTo: help@mail.example.test\r\nMessage-ID: <x@example.org>\r\n\r\nhi\r\n',
);

describe('Mailgun intake', () => {
  const now = new Date('2026-11-26T10:00:00Z');
  const t = now.getTime() / 1000;

  it('takes a signature up to five minutes from the clock either way, and nothing past that', () => {
    for (const ts of [t, t - 300, t + 300])
      expect(checkMailgunSignature(KEY, sign(ts), now).rememberUntil.getTime()).to.equal((ts + 300) * 1000);
    for (const ts of [t - 301, t + 301])
      expect(() => checkMailgunSignature(KEY, sign(ts), now)).to.throw(Unauthenticated, /5 minutes/);
    expect(() => checkMailgunSignature(undefined, sign(t), now)).to.throw(
      Unauthenticated,
      /MAILGUN_WEBHOOK_SIGNING_KEY is not set/,
    );
    expect(() => checkMailgunSignature(KEY, sign(t, 'tok', 'other'), now)).to.throw(Unauthenticated, /does not match/);
    expect(() => checkMailgunSignature(KEY, { ...sign(t), timestamp: `${t}.0` }, now)).to.throw(
      Unauthenticated,
      /not signed/,
    );
  });

  it('remembers a token once across claims, forgets it when released, and drops expired ones', async () => {
    const tokens = mailgunTokens(h().db);
    const token = `tok-${randomBytes(8).toString('hex')}`;
    const until = new Date(now.getTime() + 300_000);
    expect(await Promise.all([tokens.claim(token, until, now), tokens.claim(token, until, now)])).to.have.members([
      true,
      false,
    ]);
    await tokens.release(token);
    expect(await tokens.claim(token, until, now)).to.equal(true);
    // Past its expiry the token is deleted by the next claim (the timestamp check refuses its post by then).
    const later = new Date(until.getTime() + 1);
    expect(await tokens.claim(`other-${token}`, new Date(later.getTime() + 300_000), later)).to.equal(true);
    expect(await h().db('mailgun_tokens').where({ id: token }).first()).to.equal(undefined);
  });

  describe('answers', () => {
    let server: http.Server;
    let url: string;
    let failWith: Error | undefined;
    const calls: string[][] = [];
    const receipt = {
      async receive(_mail: unknown, delivery: { recipients: string[] }) {
        calls.push(delivery.recipients);
        if (failWith) throw failWith;
        return [];
      },
    } as unknown as EmailReceiptService;

    before(async () => {
      const logger = createLogger('silent');
      const intake = mailgunIntake(
        receipt,
        mailgunTokens(h().db),
        { now: () => new Date() },
        {
          signingKey: KEY,
          maxBytes: 64 * 1024,
          senderAuth: { resolver: NO_DNS, mta: 'mail.example.test' },
          trustSpfHeader: false,
        },
        logger,
      );
      const app = new Koa();
      app.use(errorMapper(logger));
      app.use(mailgunRoutes(intake));
      server = http.createServer(app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/email/mailgun/mime`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const send = (sig: Record<string, string>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ recipient: 'help@mail.example.test, other@mail.example.test', ...sig }))
        form.append(k, v);
      form.append('body-mime', new Blob([MIME]), 'message.eml');
      return fetch(url, { method: 'POST', body: form });
    };

    it('503 with Retry-After when storing fails, and the same post is taken when it comes again', async () => {
      const sig = sign(Math.floor(Date.now() / 1000));
      failWith = new Unavailable('The message could not be stored; send it again later (down)', 60);
      const first = await send(sig);
      expect(first.status).to.equal(503);
      expect(first.headers.get('retry-after')).to.equal('60');
      expect(await first.json()).to.deep.equal({
        error: 'The message could not be stored; send it again later (down)',
      });
      failWith = undefined;
      const retry = await send(sig);
      expect(retry.status).to.equal(200);
      expect(calls.at(-1)).to.deep.equal(['help@mail.example.test', 'other@mail.example.test']);
      expect((await send(sig)).status).to.equal(401);
    });

    it('406 when refused for good, and the token stays taken', async () => {
      const sig = sign(Math.floor(Date.now() / 1000));
      failWith = new NotFound('Email channel', 'help@mail.example.test');
      const first = await send(sig);
      expect(first.status).to.equal(406);
      expect(await first.json()).to.have.keys('error');
      failWith = undefined;
      expect((await send(sig)).status).to.equal(401);
    });
  });
});
