import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { MAX_JSON_DEPTH } from '../../src/domain/json-depth.js';
import {
  MAX_SENDER_ID_LENGTH,
  parsePayload,
  senderDeliveryId,
  slackChallenge,
  storableSenderId,
} from '../../src/domain/webhooks/payload.js';
import type { SignatureScheme } from '../../src/domain/entries/entry.entities.js';
import type { Json } from '../../src/domain/json.js';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS, retryDelayMs } from '../../src/domain/core/retry-schedule.js';

// What a webhook handler is given as its payload, which sender id de-duplicates a redelivery, and
// when a failed delivery is tried again. Pure functions: every sender input is hostile and none of
// them may be refused for its shape (the delivery is stored, the handler decides).

const body = (s: string) => Buffer.from(s, 'utf8');
const typed = (contentType: string) => ({ 'content-type': contentType });
/** Bounds a hang only: the parse below takes well under a second, the quadratic one took tens of minutes. */
const HANG_DEADLINE_MS = 60_000;

/** Parses a body with parsePayload in a worker thread: the names of the form it gives and the length of each list. */
async function parseInWorker(
  headers: Record<string, string>,
  text: string,
): Promise<{ keys: string[]; lengths: number[] }> {
  const worker = new Worker(new URL('../helpers/parse-payload.worker.mjs', import.meta.url), {
    workerData: { headers, text },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`parsePayload did not finish within ${HANG_DEADLINE_MS} ms`)),
        HANG_DEADLINE_MS,
      );
      worker.once('error', reject);
      worker.once('message', resolve);
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}

/** JSON text nesting `levels` arrays. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('unit: webhook payload', () => {
  describe('parsePayload', () => {
    it('gives an application/json body (any charset, any case) to the handler as its parsed value', () => {
      expect(parsePayload(typed('application/json'), body('{"a":1,"b":[true,null,"x"]}'))).to.deep.equal({
        a: 1,
        b: [true, null, 'x'],
      });
      expect(parsePayload(typed('Application/JSON; charset=utf-8'), body('{"note":"café 🎉"}'))).to.deep.equal({
        note: 'café 🎉',
      });
      expect(parsePayload(typed('application/json'), body('[1,2]'))).to.deep.equal([1, 2]);
      expect(parsePayload(typed('application/json'), body('42'))).to.equal(42);
      expect(parsePayload(typed('application/json'), body('null'))).to.equal(null);
      expect(parsePayload(typed('application/json'), body('"just a string"'))).to.equal('just a string');
    });

    it('parses a +json media type (application/vnd.github+json, application/cloudevents+json) as JSON', () => {
      expect(parsePayload(typed('application/vnd.github+json'), body('{"action":"opened"}'))).to.deep.equal({
        action: 'opened',
      });
      expect(parsePayload(typed('application/cloudevents+json; charset=utf-8'), body('{"type":"t"}'))).to.deep.equal({
        type: 't',
      });
    });

    it('gives malformed JSON to the handler as its text rather than refusing it', () => {
      for (const text of ['{"a":', '{a:1}', "{'a':1}", '[1,2,]', '{"a":1}}', 'undefined']) {
        expect(parsePayload(typed('application/json'), body(text)), text).to.equal(text);
      }
    });

    it(`parses JSON nested ${MAX_JSON_DEPTH} levels deep, and gives deeper JSON as text without parsing it`, () => {
      expect(parsePayload(typed('application/json'), body(nested(MAX_JSON_DEPTH)))).to.be.an('array');
      expect(parsePayload(typed('application/json'), body(nested(MAX_JSON_DEPTH + 1)))).to.equal(
        nested(MAX_JSON_DEPTH + 1),
      );
      const deepObjects = '{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1);
      expect(parsePayload(typed('application/vnd.x+json'), body(deepObjects))).to.equal(deepObjects);
      // 100,000 levels: measured without recursion, given back as text, never parsed.
      const huge = nested(100_000);
      expect(parsePayload(typed('application/json'), body(huge))).to.equal(huge);
    });

    it('counts only real nesting: brackets inside JSON strings do not make a body too deep', () => {
      const text = JSON.stringify({ s: '['.repeat(MAX_JSON_DEPTH * 2), q: 'say \\"[[[[\\"' });
      expect(parsePayload(typed('application/json'), body(text))).to.deep.equal(JSON.parse(text));
    });

    it('gives a form body as an object, a repeated name as a list of its values in order', () => {
      const form = parsePayload(typed('application/x-www-form-urlencoded'), body('a=1&b=2&a=3&c=x%20y+z&a=4&empty='));
      expect(form).to.deep.equal({ a: ['1', '3', '4'], b: '2', c: 'x y z', empty: '' });
      expect(
        parsePayload(typed('application/x-www-form-urlencoded; charset=utf-8'), body('payload=%7B%22k%22%3A1%7D')),
      ).to.deep.equal({ payload: '{"k":1}' });
    });

    it('gives form fields named like Object.prototype members (__proto__, constructor, toString) as plain fields', () => {
      const form = parsePayload(
        typed('application/x-www-form-urlencoded'),
        body('toString=a&constructor=b&constructor=c&__proto__=d&__proto__=e'),
      ) as object;
      expect(Object.getPrototypeOf(form), 'the prototype is untouched').to.equal(Object.prototype);
      expect(JSON.stringify(form)).to.equal('{"toString":"a","constructor":["b","c"],"__proto__":["d","e"]}');
    });

    it('parses the largest form the receiver takes (1 MiB, one name repeated 524,288 times) into one list, without blocking for minutes', async function () {
      this.timeout(HANG_DEADLINE_MS + 30_000);
      // Before the fix each repeat copied the list (quadratic): this body blocked the receiver's event
      // loop for tens of minutes. It runs in a worker so that a regression fails instead of hanging.
      const repeats = (1024 * 1024) / 2;
      const form = await parseInWorker(typed('application/x-www-form-urlencoded'), 'a&'.repeat(repeats));
      expect(form).to.deep.equal({ keys: ['a'], lengths: [repeats] });
    });

    it('gives any other media type, and a body without content-type, as text', () => {
      const xml = '<event id="1"/>';
      expect(parsePayload(typed('application/xml'), body(xml))).to.equal(xml);
      expect(parsePayload(typed('text/plain'), body('{"looks":"like json"}'))).to.equal('{"looks":"like json"}');
      expect(parsePayload(typed('application/jsonp'), body('{"a":1}'))).to.equal('{"a":1}');
      expect(parsePayload(typed('multipart/form-data; boundary=x'), body('a=1'))).to.equal('a=1');
      expect(parsePayload({}, body('{"a":1}'))).to.equal('{"a":1}');
      expect(parsePayload({}, body('a=1&b=2'))).to.equal('a=1&b=2');
    });

    it('gives an empty body as empty text (JSON, text) or an empty object (form)', () => {
      expect(parsePayload(typed('application/json'), body(''))).to.equal('');
      expect(parsePayload(typed('application/json'), body('  \n'))).to.equal('  \n');
      expect(parsePayload(typed('text/plain'), body(''))).to.equal('');
      expect(parsePayload({}, Buffer.alloc(0))).to.equal('');
      expect(parsePayload(typed('application/x-www-form-urlencoded'), body(''))).to.deep.equal({});
    });
  });

  describe('senderDeliveryId', () => {
    const stripeEvent = { object: 'event', id: 'evt_1', type: 'charge.succeeded' };
    /** The id of a delivery to an integration without a signature (HMAC_SHA256 reads the same sources). */
    const unsigned = (headers: Record<string, string>, payload: Json) =>
      senderDeliveryId(null, headers, Buffer.from(JSON.stringify(payload)), payload);

    it("takes the sender's id from X-GitHub-Delivery, webhook-id, svix-id or Idempotency-Key", () => {
      expect(unsigned({ 'x-github-delivery': 'gh-1' }, null)).to.equal('gh-1');
      expect(unsigned({ 'webhook-id': 'msg_1' }, null)).to.equal('msg_1');
      expect(unsigned({ 'svix-id': 'svix_1' }, null)).to.equal('svix_1');
      expect(unsigned({ 'idempotency-key': 'idem-1' }, null)).to.equal('idem-1');
      expect(unsigned({ 'x-github-delivery': '  gh-2 \t' }, null), 'trimmed').to.equal('gh-2');
    });

    it('prefers X-GitHub-Delivery, then webhook-id, then svix-id, then Idempotency-Key, then the body', () => {
      const all = { 'x-github-delivery': 'gh', 'webhook-id': 'wh', 'svix-id': 'svix', 'idempotency-key': 'idem' };
      expect(unsigned(all, stripeEvent)).to.equal('gh');
      const { 'x-github-delivery': _gh, ...noGithub } = all;
      expect(unsigned(noGithub, stripeEvent)).to.equal('wh');
      const { 'webhook-id': _wh, ...noWebhookId } = noGithub;
      expect(unsigned(noWebhookId, stripeEvent)).to.equal('svix');
      const { 'svix-id': _svix, ...onlyIdempotency } = noWebhookId;
      expect(unsigned(onlyIdempotency, stripeEvent)).to.equal('idem');
      expect(unsigned({}, stripeEvent)).to.equal('evt_1');
    });

    it('skips an empty or blank header and looks at the next source', () => {
      expect(unsigned({ 'x-github-delivery': '', 'webhook-id': 'wh' }, null)).to.equal('wh');
      expect(unsigned({ 'x-github-delivery': '   ', 'idempotency-key': 'idem' }, null)).to.equal('idem');
      expect(unsigned({ 'idempotency-key': ' ' }, stripeEvent)).to.equal('evt_1');
    });

    it("takes a Stripe event's id only from an object marked object: 'event' whose id is a string", () => {
      expect(unsigned({}, stripeEvent)).to.equal('evt_1');
      expect(unsigned({}, { object: 'charge', id: 'ch_1' })).to.equal(null);
      expect(unsigned({}, { id: 'x_1' })).to.equal(null);
      expect(unsigned({}, { object: 'event', id: 17 })).to.equal(null);
      expect(unsigned({}, [{ object: 'event', id: 'evt_in_array' }])).to.equal(null);
    });

    it("takes a Slack event's event_id when it is a string", () => {
      expect(unsigned({}, { type: 'event_callback', event_id: 'Ev123' })).to.equal('Ev123');
      expect(unsigned({}, { type: 'event_callback', event_id: 123 })).to.equal(null);
      expect(unsigned({}, { type: 'event_callback', event: { event_id: 'nested' } })).to.equal(null);
    });

    it(`keeps an id of ${MAX_SENDER_ID_LENGTH} characters as sent and a longer one as its SHA-256, which still de-duplicates`, () => {
      const max = 'x'.repeat(MAX_SENDER_ID_LENGTH);
      const long = max + 'y';
      const digest = `sha256:${createHash('sha256').update(long).digest('hex')}`;
      expect(MAX_SENDER_ID_LENGTH).to.equal(200);
      expect(unsigned({ 'x-github-delivery': max }, null)).to.equal(max);
      expect(unsigned({ 'x-github-delivery': long }, null)).to.equal(digest);
      expect(unsigned({ 'idempotency-key': 'x'.repeat(201) }, null))
        .to.equal(storableSenderId('x'.repeat(201)))
        .and.to.match(/^sha256:[0-9a-f]{64}$/);
      expect(unsigned({}, { object: 'event', id: long })).to.equal(digest);
      expect(unsigned({}, { event_id: long })).to.equal(digest);
      expect(unsigned({}, { event_id: max })).to.equal(max);
      expect(unsigned({ 'x-github-delivery': 'z'.repeat(100_000) }, null)).to.have.length('sha256:'.length + 64);
    });

    it('keeps an id holding control characters or an unpaired surrogate as its SHA-256 (U+0000 cannot be stored), never as nothing', () => {
      for (const bad of ['a\u0000b', 'tab\there', 'bell\u0007', 'c1\u0085', '\ud800x', 'x\udc00']) {
        const id = unsigned({}, { object: 'event', id: bad });
        expect(id, JSON.stringify(bad)).to.equal(`sha256:${createHash('sha256').update(bad).digest('hex')}`);
      }
      expect(unsigned({}, { object: 'event', id: 'evt_ünïcode_✓_😀' }), 'printable text is kept').to.equal(
        'evt_ünïcode_✓_😀',
      );
    });

    it('is null when the sender sends no id (text, form, or an object without one)', () => {
      expect(unsigned({}, null)).to.equal(null);
      expect(unsigned({}, 'evt_1')).to.equal(null);
      expect(unsigned({ 'content-type': 'application/json', 'x-request-id': 'r-1' }, { hello: 'world' })).to.equal(
        null,
      );
      expect(unsigned({}, { a: ['1', '2'] })).to.equal(null);
    });
  });

  describe('senderDeliveryId of a signed integration: only what the signature covers', () => {
    const json = { 'content-type': 'application/json' };
    const id = (scheme: SignatureScheme, headers: Record<string, string>, body: unknown) => {
      const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      return senderDeliveryId(scheme, headers, raw, parsePayload(headers, raw));
    };
    /** Every header a sender might add to a captured request to make it look like another delivery. */
    const forged = {
      'x-github-delivery': 'anything-1',
      'webhook-id': 'forged-wh',
      'svix-id': 'forged-svix',
      'idempotency-key': 'x'.repeat(201),
    };

    it("STRIPE: the event's id in the signed body, whatever headers are added or Content-Type says", () => {
      const event = { id: 'evt_123', object: 'event', type: 'payment_intent.succeeded' };
      expect(id('STRIPE', json, event)).to.equal('evt_123');
      expect(id('STRIPE', { ...json, ...forged }, event)).to.equal('evt_123');
      expect(id('STRIPE', { ...forged, 'content-type': 'text/plain' }, event), 'Content-Type is not signed').to.equal(
        'evt_123',
      );
      expect(id('STRIPE', { 'content-type': 'application/x-www-form-urlencoded' }, event)).to.equal('evt_123');
      expect(id('STRIPE', json, { id: 'evt_thin', object: 'v2.core.event' }), 'a thin (v2) event').to.equal('evt_thin');
      expect(
        id('STRIPE', { ...json, ...forged }, { object: 'event' }),
        'no id in the body: none, not a header',
      ).to.equal(null);
      expect(id('STRIPE', forged, 'not json')).to.equal(null);
      expect(id('STRIPE', json, { id: 'e'.repeat(201), object: 'event' })).to.match(/^sha256:[0-9a-f]{64}$/);
    });

    it('SLACK: the event_id in the signed body; a slash command (a form) has none, whatever headers are added', () => {
      const callback = { type: 'event_callback', event_id: 'Ev123', event: { type: 'message' } };
      expect(id('SLACK', json, callback)).to.equal('Ev123');
      expect(id('SLACK', { ...json, ...forged }, callback)).to.equal('Ev123');
      expect(
        id('SLACK', { ...forged, 'content-type': 'application/x-www-form-urlencoded' }, callback),
        'Content-Type is not signed',
      ).to.equal('Ev123');
      expect(
        id(
          'SLACK',
          { ...forged, 'content-type': 'application/x-www-form-urlencoded' },
          'token=t&command=%2Fdo&text=hi',
        ),
      ).to.equal(null);
      expect(id('SLACK', json, { id: 'evt_1', object: 'event' }), "a Stripe-shaped body is not Slack's").to.equal(null);
    });

    it('STANDARD_WEBHOOKS: the webhook-id the signature covers, or svix-id when the sender used only Svix names', () => {
      expect(id('STANDARD_WEBHOOKS', { ...json, 'webhook-id': 'msg_1', 'webhook-timestamp': '1' }, {})).to.equal(
        'msg_1',
      );
      expect(
        id(
          'STANDARD_WEBHOOKS',
          {
            ...json,
            'webhook-id': 'msg_1',
            'webhook-timestamp': '1',
            'x-github-delivery': 'anything-1',
            'idempotency-key': 'k',
            'svix-id': 's',
          },
          {},
        ),
      ).to.equal('msg_1');
      expect(
        id(
          'STANDARD_WEBHOOKS',
          { ...json, 'svix-id': 'msg_svix', 'svix-timestamp': '1', 'x-github-delivery': 'anything-1' },
          {},
        ),
      ).to.equal('msg_svix');
      // An empty webhook-* header counts as absent for the signature check, so it does too here.
      expect(
        id('STANDARD_WEBHOOKS', { ...json, 'svix-id': 'msg_svix', 'svix-timestamp': '1', 'webhook-timestamp': '' }, {}),
      ).to.equal('msg_svix');
      expect(
        id('STANDARD_WEBHOOKS', { ...json, 'webhook-id': 'w'.repeat(300), 'webhook-timestamp': '1' }, {}),
      ).to.match(/^sha256:/);
      expect(id('STANDARD_WEBHOOKS', json, { object: 'event', id: 'evt_1' }), 'never the body').to.equal(null);
    });

    it('GITHUB: X-GitHub-Delivery only (not signed by GitHub: replay protection rests on it)', () => {
      expect(id('GITHUB', { ...json, 'x-github-delivery': 'gh-1', 'idempotency-key': 'k' }, {})).to.equal('gh-1');
      expect(
        id('GITHUB', { ...json, 'webhook-id': 'wh', 'idempotency-key': 'k' }, { object: 'event', id: 'evt_1' }),
      ).to.equal(null);
    });

    it('HMAC_SHA256 reads the headers, then the body, as an unsigned integration does', () => {
      expect(id('HMAC_SHA256', { ...json, 'webhook-id': 'wh', 'idempotency-key': 'k' }, {})).to.equal('wh');
      expect(id('HMAC_SHA256', { ...json, 'idempotency-key': 'k' }, { object: 'event', id: 'evt_1' })).to.equal('k');
      expect(id('HMAC_SHA256', json, { object: 'event', id: 'evt_1' })).to.equal('evt_1');
    });
  });

  describe('slackChallenge', () => {
    it("returns the challenge of Slack's url_verification handshake", () => {
      expect(slackChallenge({ token: 't', challenge: 'abc123', type: 'url_verification' })).to.equal('abc123');
      expect(slackChallenge({ challenge: '', type: 'url_verification' })).to.equal('');
    });

    it('is null for anything else: another type, a non-string challenge, a non-object payload', () => {
      expect(slackChallenge({ type: 'event_callback', challenge: 'abc' })).to.equal(null);
      expect(slackChallenge({ challenge: 'abc' })).to.equal(null);
      expect(slackChallenge({ type: 'url_verification', challenge: 42 })).to.equal(null);
      expect(slackChallenge({ type: 'url_verification' })).to.equal(null);
      expect(slackChallenge([{ type: 'url_verification', challenge: 'abc' }])).to.equal(null);
      expect(slackChallenge('url_verification')).to.equal(null);
      expect(slackChallenge(null)).to.equal(null);
    });
  });

  describe('retryDelayMs', () => {
    const half = () => 0.5;

    it('tries a delivery 8 times in all', () => {
      expect(MAX_DELIVERY_ATTEMPTS).to.equal(8);
    });

    it('waits 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h after failures 1 to 7 (no jitter at random 0.5)', () => {
      const delays = Array.from({ length: MAX_DELIVERY_ATTEMPTS - 1 }, (_, i) => retryDelayMs(i + 1, half));
      expect(delays).to.deep.equal([10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000]);
      expect(RETRY_DELAYS_SECONDS).to.have.length(MAX_DELIVERY_ATTEMPTS - 1);
    });

    it('spreads each delay by at most ±20 %: 0.8× at random 0, 1.2× at random 1', () => {
      for (const [i, seconds] of RETRY_DELAYS_SECONDS.entries()) {
        expect(
          retryDelayMs(i + 1, () => 0),
          `failure ${i + 1}`,
        ).to.equal(seconds * 800);
        expect(
          retryDelayMs(i + 1, () => 1),
          `failure ${i + 1}`,
        ).to.equal(seconds * 1200);
      }
      expect(retryDelayMs(1, () => 0.25)).to.equal(9_000);
      expect(retryDelayMs(1, () => 0.75)).to.equal(11_000);
    });

    it('stays within the jitter bounds with the default random source', () => {
      for (let n = 0; n < 200; n++) {
        const d = retryDelayMs(1)!;
        expect(d).to.be.within(8_000, 12_000);
      }
    });

    it(`gives up (null) after ${MAX_DELIVERY_ATTEMPTS} failures: the delivery is marked FAILED`, () => {
      expect(retryDelayMs(MAX_DELIVERY_ATTEMPTS - 1, half)).to.be.a('number');
      expect(retryDelayMs(MAX_DELIVERY_ATTEMPTS, half)).to.equal(null);
      expect(retryDelayMs(MAX_DELIVERY_ATTEMPTS + 1, half)).to.equal(null);
      expect(retryDelayMs(1000, half)).to.equal(null);
    });

    it('waits nothing before the first attempt (0 failures)', () => {
      expect(retryDelayMs(0, half)).to.equal(0);
      expect(retryDelayMs(0, () => 1)).to.equal(0);
    });
  });
});
