import { expect } from 'chai';
import { sign as githubSign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../../src/domain/entries/entry.entities.js';
import { isCredentialHeader } from '../../src/domain/core/credentials.js';
import { SIGNATURE_HEADERS, startSignatureCheck } from '../../src/domain/webhooks/signatures.js';

// Signatures come from each sender's own library or published vector, never from the code under test.

/** A body whose UTF-8 has multi-byte characters, so chunks can be split inside one. */
const BODY = JSON.stringify({ event: 'order.paid', note: 'café — 日本語 🎉', amount: 4200 });

/** The body's bytes in three chunks, the first cut in the middle of the 4-byte 🎉. */
function splitInsideCharacter(body: string): Uint8Array[] {
  const bytes = Buffer.from(body, 'utf8');
  const emoji = bytes.indexOf(Buffer.from('🎉', 'utf8'));
  expect(emoji).to.be.greaterThan(0);
  return [bytes.subarray(0, emoji + 2), bytes.subarray(emoji + 2, emoji + 5), bytes.subarray(emoji + 5)];
}

/** Runs one request's check: the refusal text, or whether verification passed. */
function check(
  scheme: SignatureScheme,
  secret: string,
  headers: Record<string, string>,
  now: Date,
  body: string | Uint8Array[],
): boolean | string {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const started = startSignatureCheck(scheme, secret, (name) => lower.get(name), now);
  if ('refused' in started) return started.refused;
  for (const chunk of typeof body === 'string' ? [Buffer.from(body, 'utf8')] : body) started.update(chunk);
  return started.verify();
}

const at = (unixSeconds: number) => new Date(unixSeconds * 1000);
const T = 1_763_900_000;

describe('webhook signatures: HMAC_SHA256 (X-Signature-256, our default)', () => {
  // RFC 4231 test case 2.
  const rfcKey = 'Jefe';
  const rfcData = 'what do ya want for nothing?';
  const rfcMac = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';

  it('passes the RFC 4231 HMAC-SHA256 vector presented as sha256=<hex> over the raw body', () => {
    expect(check('HMAC_SHA256', rfcKey, { 'X-Signature-256': `sha256=${rfcMac}` }, at(T), rfcData)).to.equal(true);
  });

  it('passes a body fed in chunks split inside a multi-byte UTF-8 character', async () => {
    const header = await githubSign('our-secret', BODY);
    expect(
      check('HMAC_SHA256', 'our-secret', { 'x-signature-256': header }, at(T), splitInsideCharacter(BODY)),
    ).to.equal(true);
  });

  it('fails a tampered body', () => {
    expect(check('HMAC_SHA256', rfcKey, { 'x-signature-256': `sha256=${rfcMac}` }, at(T), `${rfcData} `)).to.equal(
      false,
    );
  });

  it('fails under another secret', () => {
    expect(check('HMAC_SHA256', 'Jeff', { 'x-signature-256': `sha256=${rfcMac}` }, at(T), rfcData)).to.equal(false);
  });

  it('refuses a request without X-Signature-256', () => {
    expect(check('HMAC_SHA256', rfcKey, { 'x-hub-signature-256': `sha256=${rfcMac}` }, at(T), rfcData)).to.equal(
      'missing X-Signature-256 header',
    );
  });

  it('refuses a header that is not sha256=<hex>', () => {
    expect(check('HMAC_SHA256', rfcKey, { 'x-signature-256': rfcMac }, at(T), rfcData)).to.equal(
      'the X-Signature-256 header is not sha256=<hex>',
    );
  });

  it('fails, without throwing, a signature that is not 64 hex digits', () => {
    const notHex = `sha256=${rfcMac.slice(0, 62)}zz`;
    expect(check('HMAC_SHA256', rfcKey, { 'x-signature-256': notHex }, at(T), rfcData)).to.equal(false);
    expect(check('HMAC_SHA256', rfcKey, { 'x-signature-256': `sha256=${rfcMac}00` }, at(T), rfcData)).to.equal(false);
  });

  it('refuses an empty signing secret', () => {
    expect(check('HMAC_SHA256', '', { 'x-signature-256': `sha256=${rfcMac}` }, at(T), rfcData)).to.equal(
      'the signing secret is empty',
    );
  });
});

describe('webhook signatures: GITHUB (X-Hub-Signature-256, as @octokit/webhooks-methods signs)', () => {
  const secret = "It's a Secret to Everybody";

  it('passes a signature made by @octokit/webhooks-methods sign', async () => {
    const header = await githubSign(secret, BODY);
    expect(check('GITHUB', secret, { 'X-Hub-Signature-256': header }, at(T), BODY)).to.equal(true);
  });

  it('passes a body fed in chunks split inside a multi-byte UTF-8 character', async () => {
    const header = await githubSign(secret, BODY);
    expect(check('GITHUB', secret, { 'x-hub-signature-256': header }, at(T), splitInsideCharacter(BODY))).to.equal(
      true,
    );
  });

  it('fails a tampered body', async () => {
    const header = await githubSign(secret, BODY);
    expect(check('GITHUB', secret, { 'x-hub-signature-256': header }, at(T), BODY.replace('4200', '4201'))).to.equal(
      false,
    );
  });

  it('fails under another secret', async () => {
    const header = await githubSign('another secret', BODY);
    expect(check('GITHUB', secret, { 'x-hub-signature-256': header }, at(T), BODY)).to.equal(false);
  });

  it('refuses a request without X-Hub-Signature-256 (the SHA-1 X-Hub-Signature does not count)', async () => {
    const header = await githubSign(secret, BODY);
    expect(check('GITHUB', secret, { 'x-hub-signature': header }, at(T), BODY)).to.equal(
      'missing X-Hub-Signature-256 header',
    );
  });

  it('fails, without throwing, a header of 10,000 comma-joined signatures', async () => {
    const header = await githubSign(secret, BODY);
    const joined = Array.from({ length: 10_000 }, () => header).join(', ');
    expect(check('GITHUB', secret, { 'x-hub-signature-256': joined }, at(T), BODY)).to.equal(false);
  });
});

describe('webhook signatures: STRIPE (Stripe-Signature, as the stripe library signs)', () => {
  const stripe = new Stripe('sk_test_x');
  const secret = 'whsec_test_secret_for_stripe';
  const signed = (payload: string, s: string, timestamp: number) =>
    stripe.webhooks.generateTestHeaderString({ payload, secret: s, timestamp });
  /** The v1 signature of a generated header. */
  const v1Of = (header: string) => header.split(',').find((p) => p.startsWith('v1='))!;

  it('passes a header generated by stripe.webhooks.generateTestHeaderString', () => {
    expect(check('STRIPE', secret, { 'Stripe-Signature': signed(BODY, secret, T) }, at(T), BODY)).to.equal(true);
  });

  it('passes a body fed in chunks split inside a multi-byte UTF-8 character', () => {
    expect(
      check('STRIPE', secret, { 'stripe-signature': signed(BODY, secret, T) }, at(T), splitInsideCharacter(BODY)),
    ).to.equal(true);
  });

  it('fails a tampered body', () => {
    expect(
      check('STRIPE', secret, { 'stripe-signature': signed(BODY, secret, T) }, at(T), BODY.replace('paid', 'void')),
    ).to.equal(false);
  });

  it('fails under another secret', () => {
    expect(check('STRIPE', secret, { 'stripe-signature': signed(BODY, 'whsec_other', T) }, at(T), BODY)).to.equal(
      false,
    );
  });

  it('fails when the timestamp was changed after signing (the timestamp is signed)', () => {
    const header = signed(BODY, secret, T).replace(`t=${T}`, `t=${T + 1}`);
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T), BODY)).to.equal(false);
  });

  it('refuses a request without Stripe-Signature', () => {
    expect(check('STRIPE', secret, {}, at(T), BODY)).to.equal('missing Stripe-Signature header');
  });

  it('refuses a timestamp 6 minutes old and accepts one 4 minutes old', () => {
    const header = signed(BODY, secret, T);
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T + 360), BODY)).to.equal(
      'the Stripe-Signature timestamp is more than 5 minutes old',
    );
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T + 240), BODY)).to.equal(true);
  });

  it('accepts a timestamp exactly 5 minutes old or ahead and refuses one second more (the tolerance is inclusive)', () => {
    const header = signed(BODY, secret, T);
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T + 300), BODY)).to.equal(true);
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T - 300), BODY)).to.equal(true);
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T + 301), BODY)).to.equal(
      'the Stripe-Signature timestamp is more than 5 minutes old',
    );
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T - 301), BODY)).to.equal(
      'the Stripe-Signature timestamp is more than 5 minutes in the future',
    );
  });

  it('refuses a timestamp 6 minutes in the future and accepts one 4 minutes ahead', () => {
    const header = signed(BODY, secret, T);
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T - 360), BODY)).to.equal(
      'the Stripe-Signature timestamp is more than 5 minutes in the future',
    );
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T - 240), BODY)).to.equal(true);
  });

  it('refuses a header without a timestamp, or with one that is not whole seconds', () => {
    const header = signed(BODY, secret, T);
    expect(check('STRIPE', secret, { 'stripe-signature': v1Of(header) }, at(T), BODY)).to.equal(
      'no timestamp in Stripe-Signature',
    );
    expect(check('STRIPE', secret, { 'stripe-signature': header.replace(`t=${T}`, `t=${T}.5`) }, at(T), BODY)).to.equal(
      'the Stripe-Signature timestamp is not a whole number of seconds',
    );
  });

  it('refuses a header with no v1 signature, ignoring the v0 scheme', () => {
    const v0 = stripe.webhooks.generateTestHeaderString({ payload: BODY, secret, timestamp: T, scheme: 'v0' });
    expect(check('STRIPE', secret, { 'stripe-signature': v0 }, at(T), BODY)).to.equal(
      'no v1 signature in Stripe-Signature',
    );
  });

  it('passes during secret rotation when any one of several v1 signatures matches', () => {
    const header = `t=${T},${v1Of(signed(BODY, 'whsec_old', T))},${v1Of(signed(BODY, secret, T))},v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39`;
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T), BODY)).to.equal(true);
    expect(check('STRIPE', 'whsec_old', { 'stripe-signature': header }, at(T), BODY)).to.equal(true);
    expect(check('STRIPE', 'whsec_neither', { 'stripe-signature': header }, at(T), BODY)).to.equal(false);
  });

  it('handles a header of 10,000 v1 entries: the matching one first passes', () => {
    const wrong = v1Of(signed(BODY, 'whsec_other', T));
    const header = [signed(BODY, secret, T), ...Array.from({ length: 10_000 }, () => wrong)].join(',');
    expect(check('STRIPE', secret, { 'stripe-signature': header }, at(T), BODY)).to.equal(true);
  });

  it('compares only the first 10 v1 signatures of a header (the 11th is ignored)', () => {
    const wrong = v1Of(signed(BODY, 'whsec_other', T));
    const right = v1Of(signed(BODY, secret, T));
    const tenthRight = [`t=${T}`, ...Array.from({ length: 9 }, () => wrong), right].join(',');
    const eleventhRight = [`t=${T}`, ...Array.from({ length: 10 }, () => wrong), right].join(',');
    expect(check('STRIPE', secret, { 'stripe-signature': tenthRight }, at(T), BODY)).to.equal(true);
    expect(check('STRIPE', secret, { 'stripe-signature': eleventhRight }, at(T), BODY)).to.equal(false);
    const eleventhRightTimestampLast = [...Array.from({ length: 10 }, () => wrong), right, `t=${T}`].join(',');
    expect(check('STRIPE', secret, { 'stripe-signature': eleventhRightTimestampLast }, at(T), BODY)).to.equal(false);
  });

  it('takes the first t= of Stripe-Signature as the signed timestamp and ignores a later one', () => {
    const header = signed(BODY, secret, T);
    expect(check('STRIPE', secret, { 'stripe-signature': `${header},t=${T + 1}` }, at(T), BODY)).to.equal(true);
    expect(check('STRIPE', secret, { 'stripe-signature': `t=${T + 1},${header}` }, at(T), BODY)).to.equal(false);
  });

  it('reads Stripe-Signature items with spaces around them, as a proxy joining repeated headers writes them', () => {
    const header = signed(BODY, secret, T).replace(',', ', ');
    expect(check('STRIPE', secret, { 'stripe-signature': ` ${header} ` }, at(T), BODY)).to.equal(true);
  });
});

describe('webhook signatures: SLACK (X-Slack-Signature, Slack’s documented example)', () => {
  // https://api.slack.com/authentication/verifying-requests-from-slack
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const timestamp = 1531420618;
  const body =
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
  const headers = {
    'X-Slack-Signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    'X-Slack-Request-Timestamp': String(timestamp),
  };

  it('passes Slack’s documented example (v0:timestamp:body)', () => {
    expect(check('SLACK', secret, headers, at(timestamp), body)).to.equal(true);
  });

  it('passes the example fed in chunks', () => {
    const bytes = Buffer.from(body, 'utf8');
    expect(
      check('SLACK', secret, headers, at(timestamp), [
        bytes.subarray(0, 7),
        bytes.subarray(7, 200),
        bytes.subarray(200),
      ]),
    ).to.equal(true);
  });

  it('fails a tampered body', () => {
    expect(check('SLACK', secret, headers, at(timestamp), body.replace('roadrunner', 'coyote'))).to.equal(false);
  });

  it('fails under another secret', () => {
    expect(check('SLACK', secret.replace('8f', '9f'), headers, at(timestamp), body)).to.equal(false);
  });

  it('fails when the timestamp header was changed (the timestamp is signed)', () => {
    const moved = { ...headers, 'X-Slack-Request-Timestamp': String(timestamp + 1) };
    expect(check('SLACK', secret, moved, at(timestamp), body)).to.equal(false);
  });

  it('refuses a request without X-Slack-Signature or without X-Slack-Request-Timestamp', () => {
    expect(check('SLACK', secret, { 'X-Slack-Request-Timestamp': String(timestamp) }, at(timestamp), body)).to.equal(
      'missing X-Slack-Signature header',
    );
    expect(check('SLACK', secret, { 'X-Slack-Signature': headers['X-Slack-Signature'] }, at(timestamp), body)).to.equal(
      'missing X-Slack-Request-Timestamp header',
    );
  });

  it('refuses a timestamp 6 minutes old and accepts one 4 minutes old', () => {
    expect(check('SLACK', secret, headers, at(timestamp + 360), body)).to.equal(
      'the X-Slack-Request-Timestamp is more than 5 minutes old',
    );
    expect(check('SLACK', secret, headers, at(timestamp + 240), body)).to.equal(true);
  });

  it('refuses a timestamp 6 minutes in the future', () => {
    expect(check('SLACK', secret, headers, at(timestamp - 360), body)).to.equal(
      'the X-Slack-Request-Timestamp is more than 5 minutes in the future',
    );
  });

  it('refuses a timestamp that is not whole seconds', () => {
    const malformed = { ...headers, 'X-Slack-Request-Timestamp': '1531420618e0' };
    expect(check('SLACK', secret, malformed, at(timestamp), body)).to.equal(
      'the X-Slack-Request-Timestamp is not a whole number of seconds',
    );
  });

  it('refuses a signature of another version than v0', () => {
    const v1 = { ...headers, 'X-Slack-Signature': headers['X-Slack-Signature'].replace('v0=', 'v1=') };
    expect(check('SLACK', secret, v1, at(timestamp), body)).to.equal('no v0 signature in X-Slack-Signature');
  });
});

describe('webhook signatures: STANDARD_WEBHOOKS (webhook-signature, as the standardwebhooks library signs)', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const otherSecret = 'whsec_' + Buffer.from('another key of twenty-four').toString('base64');
  const msgId = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const sign = (s: string, timestamp: number, payload = BODY) => new Webhook(s).sign(msgId, at(timestamp), payload);
  const headersOf = (signature: string, timestamp = T) => ({
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  });

  it('passes a signature made by standardwebhooks Webhook.sign', () => {
    expect(check('STANDARD_WEBHOOKS', secret, headersOf(sign(secret, T)), at(T), BODY)).to.equal(true);
  });

  it('passes with the svix-id, svix-timestamp and svix-signature names Svix sends', () => {
    const svix = { 'svix-id': msgId, 'svix-timestamp': String(T), 'svix-signature': sign(secret, T) };
    expect(check('STANDARD_WEBHOOKS', secret, svix, at(T), BODY)).to.equal(true);
  });

  it('passes a body fed in chunks split inside a multi-byte UTF-8 character', () => {
    expect(check('STANDARD_WEBHOOKS', secret, headersOf(sign(secret, T)), at(T), splitInsideCharacter(BODY))).to.equal(
      true,
    );
  });

  it('fails a tampered body', () => {
    expect(
      check('STANDARD_WEBHOOKS', secret, headersOf(sign(secret, T)), at(T), BODY.replace('café', 'cafe')),
    ).to.equal(false);
  });

  it('fails under another secret', () => {
    expect(check('STANDARD_WEBHOOKS', secret, headersOf(sign(otherSecret, T)), at(T), BODY)).to.equal(false);
  });

  it('fails when the message id was changed (the id is signed)', () => {
    const headers = { ...headersOf(sign(secret, T)), 'webhook-id': 'msg_other' };
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T), BODY)).to.equal(false);
  });

  it('refuses a request missing webhook-signature, webhook-id or webhook-timestamp', () => {
    const { 'webhook-signature': _s, ...noSignature } = headersOf(sign(secret, T));
    const { 'webhook-id': _i, ...noId } = headersOf(sign(secret, T));
    const { 'webhook-timestamp': _t, ...noTimestamp } = headersOf(sign(secret, T));
    expect(check('STANDARD_WEBHOOKS', secret, noSignature, at(T), BODY)).to.equal('missing webhook-signature header');
    expect(check('STANDARD_WEBHOOKS', secret, noId, at(T), BODY)).to.equal('missing webhook-id header');
    expect(check('STANDARD_WEBHOOKS', secret, noTimestamp, at(T), BODY)).to.equal('missing webhook-timestamp header');
    expect(check('STANDARD_WEBHOOKS', secret, {}, at(T), BODY)).to.equal('missing webhook-signature header');
  });

  it('refuses a timestamp 6 minutes old and accepts one 4 minutes old', () => {
    const headers = headersOf(sign(secret, T));
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T + 360), BODY)).to.equal(
      'the webhook-timestamp is more than 5 minutes old',
    );
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T + 240), BODY)).to.equal(true);
  });

  it('refuses a timestamp 6 minutes in the future and accepts one 4 minutes ahead', () => {
    const headers = headersOf(sign(secret, T));
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T - 360), BODY)).to.equal(
      'the webhook-timestamp is more than 5 minutes in the future',
    );
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T - 240), BODY)).to.equal(true);
  });

  it('refuses a timestamp that is not whole seconds', () => {
    const headers = { ...headersOf(sign(secret, T)), 'webhook-timestamp': `${T}.0` };
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T), BODY)).to.equal(
      'the webhook-timestamp is not a whole number of seconds',
    );
  });

  it('passes during key rotation when any one of several space-separated v1 signatures matches', () => {
    const headers = headersOf(`${sign(otherSecret, T)} v1a,bm90IGFuIGVkMjU1MTkgc2lnbmF0dXJl ${sign(secret, T)}`);
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T), BODY)).to.equal(true);
    expect(check('STANDARD_WEBHOOKS', otherSecret, headers, at(T), BODY)).to.equal(true);
  });

  it('refuses a header with no v1 signature, ignoring other versions', () => {
    const headers = headersOf(sign(secret, T).replace('v1,', 'v1a,'));
    expect(check('STANDARD_WEBHOOKS', secret, headers, at(T), BODY)).to.equal('no v1 signature in webhook-signature');
  });

  it('reads a secret without the whsec_ prefix as base64, as the library does', () => {
    const bare = secret.slice('whsec_'.length);
    expect(check('STANDARD_WEBHOOKS', bare, headersOf(sign(bare, T)), at(T), BODY)).to.equal(true);
    expect(check('STANDARD_WEBHOOKS', bare, headersOf(sign(secret, T)), at(T), BODY)).to.equal(true);
  });

  it('refuses to check with a secret that is not base64, or empty', () => {
    const headers = headersOf(sign(secret, T));
    for (const unusable of ['whsec_not base64!', 'whsec_', 'plain-text-secret', '']) {
      expect(check('STANDARD_WEBHOOKS', unusable, headers, at(T), BODY), unusable).to.equal(
        'the signing secret is not a valid whsec_ secret',
      );
    }
  });

  it('fails, without throwing, a v1 signature that is not base64 of 32 bytes', () => {
    for (const bad of ['v1,!!!!', 'v1,', `v1,${Buffer.alloc(31).toString('base64')}`, `${sign(secret, T)}AAAA`]) {
      expect(check('STANDARD_WEBHOOKS', secret, headersOf(bad), at(T), BODY), bad).to.equal(false);
    }
  });

  it('handles a header of 10,000 entries: the matching one first passes, one past the first 10 v1 is ignored', () => {
    const wrong = sign(otherSecret, T);
    const right = sign(secret, T);
    const first = [right, ...Array.from({ length: 10_000 }, () => wrong)].join(' ');
    const last = [...Array.from({ length: 10_000 }, () => wrong), right].join(' ');
    const tenth = [...Array.from({ length: 9 }, () => wrong), right].join(' ');
    expect(check('STANDARD_WEBHOOKS', secret, headersOf(first), at(T), BODY)).to.equal(true);
    expect(check('STANDARD_WEBHOOKS', secret, headersOf(tenth), at(T), BODY)).to.equal(true);
    expect(check('STANDARD_WEBHOOKS', secret, headersOf(last), at(T), BODY)).to.equal(false);
  });
});

describe('webhook signatures: the check itself', () => {
  it('verify() answers the same when asked twice, and a chunk after it is a programming error', async () => {
    const header = await githubSign('s', BODY);
    const started = startSignatureCheck(
      'GITHUB',
      's',
      (n) => (n === 'x-hub-signature-256' ? header : undefined),
      at(T),
    );
    if ('refused' in started) throw new Error(started.refused);
    started.update(Buffer.from(BODY));
    expect(started.verify()).to.equal(true);
    expect(started.verify()).to.equal(true);
    expect(() => started.update(Buffer.from('x'))).to.throw('already verified');
  });

  it('reads only headers listed in SIGNATURE_HEADERS, and every signature among them is redacted as a credential', () => {
    const svixOnly = (n: string) => (n.startsWith('svix-') ? String(T) : undefined);
    for (const scheme of SIGNATURE_SCHEMES) {
      const read = new Set<string>();
      for (const values of [() => undefined, () => String(T), svixOnly]) {
        startSignatureCheck(scheme, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', (n) => (read.add(n), values(n)), at(T));
      }
      expect(
        [...read].filter((n) => !SIGNATURE_HEADERS[scheme].includes(n)),
        scheme,
      ).to.deep.equal([]);
      for (const name of SIGNATURE_HEADERS[scheme]) {
        expect(isCredentialHeader(name), name).to.equal(name.endsWith('signature') || name.endsWith('signature-256'));
      }
    }
  });
});
