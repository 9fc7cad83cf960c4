import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  segment,
  segments,
  queryString,
  anyMethod,
  contentType,
  extraHeaders,
  applyExtra,
  junkBody,
  mixed,
} from './arbitraries.js';
import { isObj, parseJson, type Reply, type Req } from './fuzz-answers.js';
import { SIGNING, describeFuzz, json } from './fuzz-service.js';
import type { Written } from './fuzz-tables.js';

// The fuzz of the webhook receiver (the rules every surface's fuzz checks: fuzz-service.ts).

describeFuzz('faults: fuzzing the webhook receiver', (target) => {
  const { ledger, agentOf } = target;
  // ---- webhooks -----------------------------------------------------------------------------------
  const hookBody = fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 3 }).map(json) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          { type: 'url_verification', challenge: 'c-123' },
          { object: 'event', id: 'evt_fuzz_1', type: 'x' },
          { event_id: 'Ev-fuzz-2' },
          { object: 'event', id: 'x'.repeat(300) },
        )
        .map(json),
    },
    { weight: 1, arbitrary: fc.constantFrom('a=1&b=two&a=3', '<xml>not json</xml>', '').map((s) => Buffer.from(s)) },
    { weight: 2, arbitrary: junkBody },
  );
  const hookRequest = fc.record({
    method: fc.oneof(
      { weight: 6, arbitrary: fc.constant('POST') },
      { weight: 3, arbitrary: fc.constantFrom('PUT', 'PATCH', 'GET') },
      { weight: 1, arbitrary: anyMethod },
    ),
    agent: fc.oneof(
      { weight: 14, arbitrary: fc.constant('P') },
      { weight: 1, arbitrary: fc.constant('Q') },
      { weight: 2, arbitrary: segment },
    ),
    integration: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('open', 'signed') },
      { weight: 1, arbitrary: fc.constantFrom('Open', 'open%00', 'open%2F', '%6fpen', 'open.', 'signed..') },
      { weight: 1, arbitrary: segment },
    ),
    tail: fc.oneof(
      { weight: 8, arbitrary: fc.constant('') },
      { weight: 1, arbitrary: segments.map((s) => `/${s.join('/')}`) },
    ),
    query: queryString,
    signature: fc.oneof(
      { weight: 5, arbitrary: fc.constant('valid') },
      { weight: 1, arbitrary: fc.constantFrom('none', 'wrong', 'malformed', 'other-body', 'upper') },
    ),
    senderId: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constantFrom('x-github-delivery', 'webhook-id', 'x-request-id'),
          fc.constantFrom('d-1', 'd-2', 'd-3', 'd-4', ' ', 'x'.repeat(300)),
        ),
      },
    ),
    slack: fc.boolean(),
    type: fc.oneof({ weight: 3, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: contentType }),
    extra: extraHeaders,
    body: fc.option(hookBody, { nil: undefined, freq: 6 }),
  });
  function hookReq(x: any): Req {
    const h: Record<string, string | string[]> = {};
    if (x.body !== undefined) h['content-type'] = x.type;
    const raw = x.body ?? Buffer.alloc(0);
    const sig = createHmac('sha256', SIGNING)
      .update(x.signature === 'other-body' ? Buffer.concat([raw, Buffer.from(' ')]) : raw)
      .digest('hex');
    if (x.signature === 'valid' || x.signature === 'other-body') h['x-signature-256'] = `sha256=${sig}`;
    else if (x.signature === 'wrong') h['x-signature-256'] = `sha256=${'0'.repeat(64)}`;
    else if (x.signature === 'malformed') h['x-signature-256'] = sig.slice(0, 20);
    else if (x.signature === 'upper') h['x-signature-256'] = `SHA256=${sig.toUpperCase()}`;
    if (x.senderId) h[x.senderId[0]] = x.senderId[1];
    if (x.slack) h['x-slack-request-timestamp'] = String(Math.floor(Date.now() / 1000));
    applyExtra(h, x.extra);
    return {
      method: x.method,
      path: `/agents/${agentOf(x.agent)}/webhook/${x.integration}${x.tail}${x.query}`,
      headers: h,
      body: x.body,
    };
  }
  function hookWritten(req: Req) {
    return (r: Reply): Written => {
      const body = parseJson(r.text) as any;
      if (!isObj(body) || body.received !== true || typeof body.deliveryId !== 'string') return {};
      if (body.duplicate === true) {
        ledger.duplicatesAnswered++;
        return ledger.deliveries.has(body.deliveryId)
          ? {}
          : { problem: `a redelivery answered with delivery ${body.deliveryId}, which no answer reported` };
      }
      ledger.deliveries.set(body.deliveryId, { integration: req.path.split('/')[4] ?? '' });
      return { delivery: body.deliveryId };
    };
  }
  const cleanHook = fc.tuple(hookRequest, fc.jsonValue({ maxDepth: 2 })).map(([x, b]) => ({
    ...x,
    agent: 'P',
    integration: x.integration === 'signed' ? 'signed' : 'open',
    tail: '',
    method: 'POST',
    signature: 'valid',
    type: 'application/json',
    extra: {},
    body: json(b),
  }));

  return {
    surface: 'webhook',
    arb: mixed(hookRequest, cleanHook),
    build: hookReq,
    written: hookWritten,
    valid: () => {
      const raw = json({ after: 'the fuzz' });
      return {
        method: 'POST',
        path: `/agents/${target.ids.P}/webhook/signed`,
        headers: {
          'content-type': 'application/json',
          'x-signature-256': `sha256=${createHmac('sha256', SIGNING).update(raw).digest('hex')}`,
        },
        body: raw,
      };
    },
    reaches: ['deliveries'],
  };
});
