import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Webhook } from '../../src/domain/entries/entry.entities.js';
import { Unavailable } from '../../src/domain/errors.js';
import type { Store } from '../../src/domain/ports.js';
import { MAX_VERIFIED_BYTES } from '../../src/domain/webhooks/receipt-body.js';
import type { WebhookDelivery } from '../../src/domain/webhooks/webhook.entities.js';
import {
  DeliveryNotStored,
  WebhookReceiptService,
  type Receipt,
  type WebhookRequest,
} from '../../src/domain/webhooks/webhook-receipt.service.js';

// The webhook receipt as a domain use case, without HTTP: the documented order of its refusals
// (404 → 405 → 401 → 403 → 413 → store), how much of a body it reads, and its policy for a
// delivery that could not be stored.

const SECRET = 'receipt-unit-secret';
const NOW = new Date('2030-01-01T00:00:00Z');

function agentWith(webhooksOn: boolean): Agent {
  return {
    id: 'agt_1',
    workspaceId: 'ws_1',
    surfaces: { WEBHOOKS: { enabled: webhooksOn, activityLogging: true } },
  } as unknown as Agent;
}

const hook = (integration: string, over: Partial<Webhook> = {}): Webhook =>
  ({
    id: `wh_${integration}`,
    agentId: 'agt_1',
    integration,
    signature: null,
    maxBodyBytes: null,
    handler: { kind: 'SCRIPT', body: 'return 1;' },
    modelOverride: null,
    ...over,
  }) as Webhook;
const HOOKS = [
  hook('open'),
  hook('signed', { signature: { scheme: 'GITHUB', secretName: 'gh' } }),
  hook('small', { maxBodyBytes: 10 }),
];

interface World {
  agent: Agent;
  agentLookups: number;
  stored: WebhookDelivery[];
  queued: number;
  agentsDown?: boolean;
  storeDown?: boolean;
}

function receiptService(w: World): WebhookReceiptService {
  const repos = {
    agents: {
      get: async (id: string) => {
        w.agentLookups++;
        if (w.agentsDown) throw new Unavailable('The database is unavailable; try again shortly');
        return id === w.agent.id ? w.agent : null;
      },
    },
    webhooks: { listByAgents: async () => HOOKS },
    deliveries: {
      accept: async (d: WebhookDelivery) => {
        if (w.storeDown) throw new Error('insert failed');
        const first =
          d.dedupeKey === null
            ? undefined
            : w.stored.find((s) => s.webhookId === d.webhookId && s.dedupeKey === d.dedupeKey);
        if (first) return { delivery: { ...first, bodyBytes: first.rawBody.length }, duplicate: true };
        w.stored.push(d);
        return { delivery: { ...d, bodyBytes: d.rawBody.length }, duplicate: false };
      },
    },
  };
  const store = {
    repos,
    transaction: (fn: (r: unknown) => unknown) => fn(repos),
    ping: async () => true,
  } as unknown as Store;
  const secrets = { reveal: async () => ({ kind: 'WEBHOOK_SIGNING_SECRET' as const, value: SECRET }) };
  return new WebhookReceiptService(store, { now: () => NOW }, secrets, { onQueued: () => void w.queued++ });
}

/** A body sent in chunks, counting the chunks the receiver pulled. */
function sentBody(chunks: Buffer[]): AsyncIterable<Buffer> & { pulled: number } {
  const body = {
    pulled: 0,
    async *[Symbol.asyncIterator]() {
      for (const c of chunks) {
        body.pulled++;
        yield c;
      }
    },
  };
  return body;
}

function request(
  opts: { method?: string; headers?: Record<string, string>; chunks?: Buffer[]; contentLength?: number } = {},
): WebhookRequest & { body: { pulled: number } } {
  const chunks = opts.chunks ?? [Buffer.from('{"event":"ping"}')];
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  return {
    method: opts.method ?? 'POST',
    path: '/agents/agt_1/webhook/x',
    query: {},
    headers,
    header: (name) => headers[name.toLowerCase()],
    contentLength: opts.contentLength ?? chunks.reduce((n, c) => n + c.length, 0),
    body: sentBody(chunks),
  };
}

const github = (body: Buffer, secret = SECRET) => ({
  'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
});

function refusal(r: Receipt): { code: string; endConnection: boolean } {
  if (!('refused' in r)) throw new Error('expected a refusal, got an answer');
  return { code: r.refused.code, endConnection: r.endConnection };
}

describe('unit: webhook receipt (the domain use case)', () => {
  let w: World;
  let receipt: WebhookReceiptService;
  beforeEach(() => {
    w = { agent: agentWith(true), agentLookups: 0, stored: [], queued: 0 };
    receipt = receiptService(w);
  });

  it('404 for an unknown agent (no agent for the activity log) and for an unknown integration (with its agent), before the method', async () => {
    const unknownAgent = await receipt.receive('agt_other', 'open', request({ method: 'DELETE' }));
    expect(refusal(unknownAgent).code).to.equal('NOT_FOUND');
    expect(unknownAgent.agent).to.equal(null);
    const unknownHook = await receipt.receive('agt_1', 'nope', request({ method: 'DELETE' }));
    expect(refusal(unknownHook).code).to.equal('NOT_FOUND');
    expect(unknownHook.agent?.id).to.equal('agt_1');
  });

  it('an agent id holding U+0000 is not looked up: 404 naming it with U+FFFD', async () => {
    const r = await receipt.receive('agt\u0000x', 'open', request());
    expect('refused' in r && r.refused.message).to.equal("Agent 'agt\uFFFDx' not found");
    expect(w.agentLookups).to.equal(0);
  });

  it('405 before 401: a wrong method is refused before the signature is checked or the body read', async () => {
    const req = request({ method: 'DELETE', headers: { 'x-hub-signature-256': 'sha256=00' } });
    expect(refusal(await receipt.receive('agt_1', 'signed', req))).to.deep.equal({
      code: 'METHOD_NOT_ALLOWED',
      endConnection: false,
    });
    expect(req.body.pulled).to.equal(0);
  });

  it('401 before 403: a bad signature on an agent whose webhook surface is off is Unauthenticated', async () => {
    w.agent = agentWith(false);
    const body = Buffer.from('{"a":1}');
    const r = await receipt.receive(
      'agt_1',
      'signed',
      request({ chunks: [body], headers: github(body, 'another-secret') }),
    );
    expect(refusal(r)).to.deep.equal({ code: 'UNAUTHENTICATED', endConnection: false });
    const missing = await receipt.receive('agt_1', 'signed', request({ chunks: [body] }));
    expect(refusal(missing).code, 'no signature header').to.equal('UNAUTHENTICATED');
  });

  it('403 before 413: a body over the limit to an agent whose surface is off is Forbidden, the body left unread', async () => {
    w.agent = agentWith(false);
    const req = request({ chunks: [Buffer.alloc(64 * 1024 + 1)] });
    expect(refusal(await receipt.receive('agt_1', 'open', req))).to.deep.equal({
      code: 'FORBIDDEN',
      endConnection: true,
    });
    expect(req.body.pulled, 'the declared length was enough').to.equal(0);
  });

  it('413 after 401: a signed body over its limit is read whole for its signature, then refused; a bad signature over the limit is 401', async () => {
    const body = Buffer.alloc(1024 * 1024 + 1, 'a');
    const good = request({ chunks: [body.subarray(0, 1024), body.subarray(1024)], headers: github(body) });
    expect(refusal(await receipt.receive('agt_1', 'signed', good))).to.deep.equal({
      code: 'PAYLOAD_TOO_LARGE',
      endConnection: true,
    });
    expect(good.body.pulled, 'every chunk hashed').to.equal(2);
    const bad = request({ chunks: [body], headers: github(body, 'another-secret') });
    expect(refusal(await receipt.receive('agt_1', 'signed', bad))).to.deep.equal({
      code: 'UNAUTHENTICATED',
      endConnection: false,
    });
    expect(w.stored).to.deep.equal([]);
  });

  it('a body over the hard limit is refused unread (413), before the signature is checked', async () => {
    const declared = request({
      chunks: [Buffer.from('{}')],
      contentLength: MAX_VERIFIED_BYTES + 1,
      headers: { 'x-hub-signature-256': 'sha256=00' },
    });
    expect(refusal(await receipt.receive('agt_1', 'signed', declared))).to.deep.equal({
      code: 'PAYLOAD_TOO_LARGE',
      endConnection: true,
    });
    expect(declared.body.pulled).to.equal(0);

    // Without a Content-Length: reading stops at the first chunk past the bound.
    const mib = Buffer.alloc(1024 * 1024);
    const streamed = request({
      chunks: Array.from({ length: 20 }, () => mib),
      contentLength: 0,
      headers: { 'x-hub-signature-256': 'sha256=00' },
    });
    expect(refusal(await receipt.receive('agt_1', 'signed', streamed)).code).to.equal('PAYLOAD_TOO_LARGE');
    expect(streamed.body.pulled).to.equal(9);

    // Unsigned: the integration's own limit is the bound.
    const small = request({
      chunks: [Buffer.from('0123456789'), Buffer.from('x'), Buffer.from('never read')],
      contentLength: 0,
    });
    expect(refusal(await receipt.receive('agt_1', 'small', small))).to.deep.equal({
      code: 'PAYLOAD_TOO_LARGE',
      endConnection: true,
    });
    expect(small.body.pulled).to.equal(2);
  });

  it('stores a verified delivery once (a redelivery is a duplicate), rings the queue for a new one only, and returns the parsed payload', async () => {
    const body = Buffer.from('{"action":"opened"}');
    const sent = () =>
      request({
        chunks: [body],
        headers: { ...github(body), 'x-github-delivery': 'gh-1', authorization: 'Bearer s3cret' },
      });
    const first = await receipt.receive('agt_1', 'signed', sent());
    if ('refused' in first) throw first.refused;
    expect(first.payload).to.deep.equal({ action: 'opened' });
    expect(first.answer).to.include({ duplicate: false });
    const again = await receipt.receive('agt_1', 'signed', sent());
    expect('answer' in again && again.answer).to.include({ duplicate: true });
    expect(w.stored).to.have.length(1);
    expect(w.stored[0]!.rawBody.equals(body)).to.equal(true);
    expect(w.stored[0]!.headers, 'credentials and signatures are not stored').to.not.have.any.keys(
      'authorization',
      'x-hub-signature-256',
    );
    expect(w.queued).to.equal(1);
  });

  it("answers Slack's url_verification with its challenge and stores nothing", async () => {
    const r = await receipt.receive(
      'agt_1',
      'open',
      request({
        chunks: [Buffer.from('{"type":"url_verification","challenge":"c-1"}')],
        headers: { 'x-slack-request-timestamp': '1' },
      }),
    );
    expect('answer' in r && r.answer).to.deep.equal({ challenge: 'c-1' });
    expect(w.stored).to.deep.equal([]);
  });

  it('a delivery not stored — the insert, a lookup before it, the body cut off — is DeliveryNotStored (503, Retry-After 30) with its cause', async () => {
    w.storeDown = true;
    const insert = await receipt.receive('agt_1', 'open', request());
    if (!('refused' in insert)) throw new Error('stored');
    expect(insert.refused).to.be.instanceOf(DeliveryNotStored);
    expect(insert.refused).to.include({
      code: 'UNAVAILABLE',
      retryAfterSeconds: 30,
      message: 'The delivery could not be stored; send it again later',
    });
    expect((insert.refused as DeliveryNotStored).reason).to.be.instanceOf(Error);
    expect(insert.agent?.id, 'the activity log still has its agent').to.equal('agt_1');

    w.storeDown = false;
    w.agentsDown = true;
    const lookup = await receipt.receive('agt_1', 'open', request());
    expect('refused' in lookup && (lookup.refused as DeliveryNotStored).reason).to.be.instanceOf(Unavailable);
    expect(lookup.agent).to.equal(null);

    w.agentsDown = false;
    const cut: WebhookRequest = {
      ...request(),
      body: {
        async *[Symbol.asyncIterator]() {
          yield Buffer.from('{"a":');
          throw new Error('aborted');
        },
      },
    };
    const aborted = await receipt.receive('agt_1', 'open', cut);
    expect('refused' in aborted && aborted.refused).to.be.instanceOf(DeliveryNotStored);
    expect(w.stored).to.deep.equal([]);
    expect(w.queued).to.equal(0);
  });
});
