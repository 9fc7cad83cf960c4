import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { translatePgError } from '../../src/infra/store/pg-errors.js';
import { call } from '../helpers/surface-calls.js';

// The webhook receiver over real HTTP against the harness service (embedded database, or
// PostgreSQL with TEST_DATABASE_URL), whose queue worker runs in the same process: a delivery is
// answered once stored, and the run shows up later in the deliveries list and the activity log.
// Signatures are made with each sender's own library.

const hook = (agentId: string, integration: string, query = '') => `/agents/${agentId}/webhook/${integration}${query}`;

interface DeliveryNode {
  id: string;
  integration: string;
  status: string;
  attempts: number;
  failures: number;
  lastError: string | null;
  runId: string | null;
  senderDeliveryId: string | null;
  replayOf: string | null;
  method: string;
  headers: Record<string, string>;
  body: string;
  bodyBytes: number;
}

const DELIVERY_FIELDS =
  'id integration status attempts failures lastError runId senderDeliveryId replayOf method headers body bodyBytes';

describe('e2e: webhook receiver and queue', function () {
  this.timeout(120_000);
  let ws: TestWorkspace;
  let agent: string;

  const gql = (query: string, variables: Record<string, unknown> = {}) => gqlOk(ws.adminToken, query, variables);

  async function addWebhook(
    agentId: string,
    integration: string,
    handler: Record<string, string>,
    signature?: { scheme: string; secretName: string },
  ) {
    const d = await gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: { integration, handler, ...(signature ? { signature } : {}) },
    });
    return d.addWebhook.id as string;
  }

  async function deliveries(agentId: string, integration?: string): Promise<DeliveryNode[]> {
    const d = await gql(
      `query($a: ID!, $i: String) { webhookDeliveries(agentId: $a, integration: $i, first: 60) { nodes { ${DELIVERY_FIELDS} } } }`,
      {
        a: agentId,
        i: integration ?? null,
      },
    );
    return d.webhookDeliveries.nodes as DeliveryNode[];
  }

  /** Polls the delivery until `done(d)` holds (the queue works in the background), with a generous deadline. */
  async function waitFor(
    agentId: string,
    id: string,
    done: (d: DeliveryNode) => boolean,
    what = 'the delivery to settle',
  ): Promise<DeliveryNode> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const d = (await deliveries(agentId)).find((x) => x.id === id);
      if (d && done(d)) return d;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(d)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function runEntries(agentId: string): Promise<any[]> {
    await h().service.services.activityLog.flush();
    const d = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 100, surface: WEBHOOKS) { nodes { kind status entry runId error response requestHeaders requestBody } } } }',
      { a: agentId },
    );
    if (process.env.DBG) console.log(JSON.stringify(d).slice(0, 2000));
    return d.agent.activity.nodes;
  }

  before(async () => {
    ws = await newWorkspace();
    agent = await createAgent(ws.adminToken, { name: 'Hooks' });
    // Echoes what the handler sees, so each test can check the run input.
    await addWebhook(agent, 'echo', {
      script:
        'return { body: input, rawBody: request.rawBody, method: request.method, query: request.query, headers: request.headers, delivery: request.delivery };',
    });
  });

  describe('receiving', () => {
    it('answers 200 {received, deliveryId} once stored, then runs the handler with the parsed JSON body and the byte-exact raw body', async () => {
      const raw = '{"action":"opened",  "n": 1, "text":"h\\u00e9llo ✓"}';
      const r = await call('POST', hook(agent, 'echo', '?source=test'), {
        raw,
        headers: { 'x-custom': 'yes' },
        baseUrl: h().url,
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.json).to.deep.equal({ received: true, deliveryId: r.json.deliveryId });
      expect(r.json.deliveryId).to.match(/^whd_/);
      const d = await waitFor(agent, r.json.deliveryId, (x) => x.status === 'DONE');
      expect(d).to.include({
        attempts: 1,
        failures: 0,
        method: 'POST',
        integration: 'echo',
        lastError: null,
        bodyBytes: Buffer.byteLength(raw),
      });
      expect(d.body).to.equal(raw);
      const run = (await runEntries(agent)).find((e) => e.kind === 'RUN' && e.runId === d.runId);
      expect(run, 'the run entry of the attempt').to.exist;
      expect(run.response.output.body).to.deep.equal({ action: 'opened', n: 1, text: 'héllo ✓' });
      expect(run.response.output.rawBody).to.equal(raw);
      expect(run.response.output.query).to.deep.equal({ source: 'test' });
      expect(run.response.output.headers['x-custom']).to.equal('yes');
      expect(run.response.output.delivery).to.deep.equal({ id: d.id, attempt: 1, senderDeliveryId: null });
      const request = (await runEntries(agent)).find((e) => e.kind === 'REQUEST' && e.response?.deliveryId === d.id);
      expect(request, 'the request entry of the delivery').to.include({ status: 200, entry: 'echo' });
    });

    it('gives a form body to the handler as an object and any other body as text, for PUT, PATCH and GET too', async () => {
      const form = await call('PUT', hook(agent, 'echo'), {
        raw: 'a=1&b=two&a=3',
        type: 'application/x-www-form-urlencoded',
        baseUrl: h().url,
      });
      const text = await call('PATCH', hook(agent, 'echo'), {
        raw: '<xml>not json</xml>',
        type: 'application/xml',
        baseUrl: h().url,
      });
      const badJson = await call('POST', hook(agent, 'echo'), { raw: '{"unterminated": ', baseUrl: h().url });
      const get = await call('GET', hook(agent, 'echo', '?challenge=abc'), { baseUrl: h().url });
      for (const r of [form, text, badJson, get]) expect(r.status, r.text).to.equal(200);
      const output = async (id: string) => {
        const d = await waitFor(agent, id, (x) => x.status === 'DONE');
        return (await runEntries(agent)).find((e) => e.kind === 'RUN' && e.runId === d.runId).response.output;
      };
      expect((await output(form.json.deliveryId)).body).to.deep.equal({ a: ['1', '3'], b: 'two' });
      const t = await output(text.json.deliveryId);
      expect(t).to.include({ body: '<xml>not json</xml>', rawBody: '<xml>not json</xml>', method: 'PATCH' });
      expect((await output(badJson.json.deliveryId)).body).to.equal('{"unterminated": ');
      const g = await output(get.json.deliveryId);
      expect(g).to.include({ method: 'GET', body: '' });
      expect(g.query).to.deep.equal({ challenge: 'abc' });
    });

    it('stores a delivery whose query holds U+0000 (shown as U+FFFD) rather than answering 503 for ever', async () => {
      const r = await call('POST', hook(agent, 'echo', '?q=a%00b'), { json: { z: 1 }, baseUrl: h().url });
      expect(r.status, r.text).to.equal(200);
      const d = await waitFor(agent, r.json.deliveryId, (x) => x.status === 'DONE');
      const run = (await runEntries(agent)).find((e) => e.kind === 'RUN' && e.runId === d.runId);
      expect(run.response.output.query).to.deep.equal({ q: 'a\uFFFDb' });
    });

    it('answers "could not be stored" (503, Retry-After) when the database is away at a lookup before the insert, not only at the insert', async () => {
      // The integration lookup meets an unreachable database, as the repositories report it.
      const webhooks = h().service.services.webhookReceipt;
      const resolve = webhooks.resolve;
      webhooks.resolve = async () => {
        throw translatePgError(
          Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        );
      };
      try {
        const r = await call('POST', hook(agent, 'echo'), { json: { during: 'outage' }, baseUrl: h().url });
        expect(r.status, r.text).to.equal(503);
        expect(r.headers.get('retry-after')).to.equal('30');
        expect(r.json).to.deep.equal({ error: 'The delivery could not be stored; send it again later' });
      } finally {
        webhooks.resolve = resolve;
      }
    });

    it('answers 404 for an unknown agent or integration and 405 for other methods, storing nothing', async () => {
      const before = (await deliveries(agent)).length;
      const unknownAgent = await call('POST', hook('agt_doesnotexist', 'echo'), { json: {}, baseUrl: h().url });
      const unknownIntegration = await call('POST', hook(agent, 'nope'), { json: {}, baseUrl: h().url });
      const del = await call('DELETE', hook(agent, 'echo'), { baseUrl: h().url });
      expect(unknownAgent.status).to.equal(404);
      expect(unknownIntegration.status).to.equal(404);
      expect(unknownIntegration.json.error).to.match(/nope/);
      expect(del.status).to.equal(405);
      expect(del.headers.get('allow')).to.equal('POST, PUT, PATCH, GET');
      expect((await deliveries(agent)).length).to.equal(before);
      const logged = (await runEntries(agent)).filter((e) => e.kind === 'REQUEST' && e.entry === 'nope');
      expect(logged.map((e) => e.status)).to.deep.equal([404]);
    });

    it('answers 403 while the surface is off and 413 over the limit (64 KiB without a signature), after the integration is resolved', async () => {
      const off = await createAgent(ws.adminToken, { name: 'Off' });
      await addWebhook(off, 'in', { script: 'return 1;' });
      await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: WEBHOOKS, enabled: false) { id } }', { a: off });
      expect((await call('POST', hook(off, 'in'), { json: {}, baseUrl: h().url })).status).to.equal(403);
      expect((await call('POST', hook(off, 'missing'), { json: {}, baseUrl: h().url })).status).to.equal(404);
      // Off wins over a body that is too large: the surface comes before the size.
      expect(
        (await call('POST', hook(off, 'in'), { raw: Buffer.alloc(1024 * 1024 + 1, 'a'), baseUrl: h().url })).status,
      ).to.equal(403);
      const big = await call('POST', hook(agent, 'echo'), {
        raw: Buffer.alloc(1024 * 1024 + 1, 'a'),
        baseUrl: h().url,
      });
      expect(big.status).to.equal(413);
      expect(
        (
          await call('POST', hook(agent, 'echo'), {
            raw: Buffer.alloc(64 * 1024 + 1, 'a'),
            type: 'text/plain',
            baseUrl: h().url,
          })
        ).status,
      ).to.equal(413);
      const justFits = await call('POST', hook(agent, 'echo'), {
        raw: Buffer.alloc(64 * 1024, 'a'),
        type: 'text/plain',
        baseUrl: h().url,
      });
      expect(justFits.status, justFits.text).to.equal(200);
      expect((await deliveries(off)).length).to.equal(0);
    });

    it('de-duplicates a redelivery by the sender id: the same deliveryId, and the handler runs once', async () => {
      const headers = { 'x-github-delivery': `gh-${Date.now()}` };
      const first = await call('POST', hook(agent, 'echo'), { json: { n: 1 }, headers, baseUrl: h().url });
      const second = await call('POST', hook(agent, 'echo'), { json: { n: 1 }, headers, baseUrl: h().url });
      expect(first.status).to.equal(200);
      expect(second.status).to.equal(200);
      expect(second.json).to.include({ received: true, deliveryId: first.json.deliveryId, duplicate: true });
      const d = await waitFor(agent, first.json.deliveryId, (x) => x.status === 'DONE');
      expect(d.senderDeliveryId).to.equal(headers['x-github-delivery']);
      expect(
        (await deliveries(agent)).filter((x) => x.senderDeliveryId === headers['x-github-delivery']),
      ).to.have.length(1);
      // A Stripe event id in the body de-duplicates the same way.
      const evt = { id: `evt_${Date.now()}`, object: 'event', type: 'charge.succeeded' };
      const s1 = await call('POST', hook(agent, 'echo'), { json: evt, baseUrl: h().url });
      const s2 = await call('POST', hook(agent, 'echo'), { json: evt, baseUrl: h().url });
      expect(s2.json.deliveryId).to.equal(s1.json.deliveryId);
    });
  });

  describe('signatures', () => {
    let signed: string;

    before(async () => {
      signed = await createAgent(ws.adminToken, { name: 'Signed' });
      const secret = async (name: string, value: string) =>
        gql(
          'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
          { n: name, v: value },
        );
      await secret('gh', "It's a Secret to Everybody");
      await secret('stripe', 'whsec_stripe_test_secret');
      await secret('svix', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
      await secret('slack', '8f742231b10e8888abcd99yyyzzz85a5');
      await secret('plain', 'our-own-secret');
      const echo = { script: 'return { body: input };' };
      await addWebhook(signed, 'github', echo, { scheme: 'GITHUB', secretName: 'gh' });
      await addWebhook(signed, 'stripe', echo, { scheme: 'STRIPE', secretName: 'stripe' });
      await addWebhook(signed, 'svix', echo, { scheme: 'STANDARD_WEBHOOKS', secretName: 'svix' });
      await addWebhook(signed, 'slack', echo, { scheme: 'SLACK', secretName: 'slack' });
      await addWebhook(signed, 'plain', echo, { scheme: 'HMAC_SHA256', secretName: 'plain' });
    });

    const now = () => Math.floor(Date.now() / 1000);
    const slackHeaders = (body: string, ts = now(), secret = '8f742231b10e8888abcd99yyyzzz85a5') => ({
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`,
    });

    it('GitHub: a payload signed by @octokit/webhooks-methods is accepted; tampered, wrong secret or unsigned is 401', async () => {
      const body = JSON.stringify({ action: 'opened', zen: 'Keep it logically awesome.' });
      const ok = await call('POST', hook(signed, 'github'), {
        raw: body,
        headers: { 'x-hub-signature-256': await githubSign("It's a Secret to Everybody", body) },
        baseUrl: h().url,
      });
      expect(ok.status, ok.text).to.equal(200);
      const tampered = await call('POST', hook(signed, 'github'), {
        raw: body.replace('opened', 'closed'),
        headers: { 'x-hub-signature-256': await githubSign("It's a Secret to Everybody", body) },
        baseUrl: h().url,
      });
      const wrong = await call('POST', hook(signed, 'github'), {
        raw: body,
        headers: { 'x-hub-signature-256': await githubSign('another secret', body) },
        baseUrl: h().url,
      });
      const missing = await call('POST', hook(signed, 'github'), { raw: body, baseUrl: h().url });
      for (const r of [tampered, wrong, missing]) {
        expect(r.status, r.text).to.equal(401);
        expect(r.json.error).to.match(/signature/i);
      }
      const d = await waitFor(signed, ok.json.deliveryId, (x) => x.status === 'DONE');
      expect(d.headers, 'the signature header is not stored').not.to.have.property('x-hub-signature-256');
      const logged = (await runEntries(signed)).filter((e) => e.kind === 'REQUEST' && e.entry === 'github');
      expect(logged.map((e) => e.status).sort()).to.deep.equal([200, 401, 401, 401]);
      for (const e of logged)
        if (e.requestHeaders['x-hub-signature-256'])
          expect(e.requestHeaders['x-hub-signature-256']).to.equal('[redacted]');
    });

    it('Stripe: a header from stripe.webhooks.generateTestHeaderString is accepted; stale (6 minutes) or tampered is 401', async () => {
      const stripe = new Stripe('sk_test_not_used');
      const payload = JSON.stringify({
        id: `evt_sig_${Date.now()}`,
        object: 'event',
        type: 'payment_intent.succeeded',
      });
      const header = (timestamp: number) =>
        stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_stripe_test_secret', timestamp });
      const ok = await call('POST', hook(signed, 'stripe'), {
        raw: payload,
        headers: { 'stripe-signature': header(now()) },
        baseUrl: h().url,
      });
      expect(ok.status, ok.text).to.equal(200);
      const stale = await call('POST', hook(signed, 'stripe'), {
        raw: payload,
        headers: { 'stripe-signature': header(now() - 360) },
        baseUrl: h().url,
      });
      expect(stale.status).to.equal(401);
      expect(stale.json.error).to.match(/5 minutes|old|stale|tolerance/i);
      const tampered = await call('POST', hook(signed, 'stripe'), {
        raw: payload + ' ',
        headers: { 'stripe-signature': header(now()) },
        baseUrl: h().url,
      });
      expect(tampered.status).to.equal(401);
    });

    it('Standard Webhooks: a message signed by the standardwebhooks library is accepted; another secret or a stale timestamp is 401', async () => {
      const payload = JSON.stringify({ type: 'invoice.paid', data: { id: 1 } });
      const sign = (secret: string, at: Date, id = `msg_${Date.now()}_${Math.random()}`) => ({
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new StandardWebhook(secret).sign(id, at, payload),
      });
      const ok = await call('POST', hook(signed, 'svix'), {
        raw: payload,
        headers: sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', new Date()),
        baseUrl: h().url,
      });
      expect(ok.status, ok.text).to.equal(200);
      const other = await call('POST', hook(signed, 'svix'), {
        raw: payload,
        headers: sign('whsec_' + Buffer.from('another key of 24 bytes!').toString('base64'), new Date()),
        baseUrl: h().url,
      });
      expect(other.status).to.equal(401);
      const stale = await call('POST', hook(signed, 'svix'), {
        raw: payload,
        headers: sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', new Date(Date.now() - 6 * 60_000)),
        baseUrl: h().url,
      });
      expect(stale.status).to.equal(401);
      const d = await waitFor(signed, ok.json.deliveryId, (x) => x.status === 'DONE');
      expect(d.senderDeliveryId, 'webhook-id is the sender id').to.match(/^msg_/);
    });

    it('Slack: a request signed as Slack documents is accepted, a stale one is 401, and the url_verification challenge is answered without a run', async () => {
      const body = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&command=%2Fwebhook-collect&text=hi';
      const ok = await call('POST', hook(signed, 'slack'), {
        raw: body,
        type: 'application/x-www-form-urlencoded',
        headers: slackHeaders(body),
        baseUrl: h().url,
      });
      expect(ok.status, ok.text).to.equal(200);
      const stale = await call('POST', hook(signed, 'slack'), {
        raw: body,
        type: 'application/x-www-form-urlencoded',
        headers: slackHeaders(body, now() - 360),
        baseUrl: h().url,
      });
      expect(stale.status).to.equal(401);
      const before = (await deliveries(signed, 'slack')).length;
      const challenge = JSON.stringify({
        token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
        challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
        type: 'url_verification',
      });
      const handshake = await call('POST', hook(signed, 'slack'), {
        raw: challenge,
        headers: slackHeaders(challenge),
        baseUrl: h().url,
      });
      expect(handshake.status, handshake.text).to.equal(200);
      expect(handshake.json).to.deep.equal({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
      const unsigned = await call('POST', hook(signed, 'slack'), { raw: challenge, baseUrl: h().url });
      expect(unsigned.status, 'the handshake is answered only once the signature is valid').to.equal(401);
      expect((await deliveries(signed, 'slack')).length).to.equal(before);
    });

    it('HMAC_SHA256: X-Signature-256 sha256=<hex> over the raw body; a bad signature over a body larger than 1 MiB is 401, not 413', async () => {
      const body = '{"event":"ping"}';
      const sig = (b: string | Buffer, secret = 'our-own-secret') =>
        `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;
      expect(
        (
          await call('POST', hook(signed, 'plain'), {
            raw: body,
            headers: { 'x-signature-256': sig(body) },
            baseUrl: h().url,
          })
        ).status,
      ).to.equal(200);
      const big = Buffer.alloc(1024 * 1024 + 10, 'b');
      expect(
        (
          await call('POST', hook(signed, 'plain'), {
            raw: big,
            headers: { 'x-signature-256': sig(big, 'wrong') },
            baseUrl: h().url,
          })
        ).status,
      ).to.equal(401);
      expect(
        (
          await call('POST', hook(signed, 'plain'), {
            raw: big,
            headers: { 'x-signature-256': sig(big) },
            baseUrl: h().url,
          })
        ).status,
      ).to.equal(413);
    });

    it('refuses every delivery (401) when the signing secret was deleted, rather than running unverified ones', async () => {
      await gql('mutation { createSecret(name: "temp", kind: WEBHOOK_SIGNING_SECRET, value: "t") { name } }');
      await addWebhook(signed, 'temp', { script: 'return 1;' }, { scheme: 'HMAC_SHA256', secretName: 'temp' });
      await gql('mutation { deleteSecret(name: "temp") }');
      const body = '{}';
      const r = await call('POST', hook(signed, 'temp'), {
        raw: body,
        headers: { 'x-signature-256': `sha256=${createHmac('sha256', 't').update(body).digest('hex')}` },
        baseUrl: h().url,
      });
      expect(r.status).to.equal(401);
      expect(r.json.error).to.match(/temp/);
    });
  });

  describe('processing', () => {
    it('answers the sender before a 2-second handler has finished, and the run is in the activity log afterwards', async () => {
      await addWebhook(agent, 'slow', {
        script: 'const end = Date.now() + 2000; while (Date.now() < end) {} return { slept: true };',
      });
      const r = await call('POST', hook(agent, 'slow'), { json: { n: 1 }, baseUrl: h().url });
      expect(r.status).to.equal(200);
      const atAnswer = (await deliveries(agent, 'slow')).find((x) => x.id === r.json.deliveryId)!;
      expect(atAnswer.status, 'the run is not finished when the sender has its answer').to.be.oneOf([
        'PENDING',
        'RUNNING',
      ]);
      const d = await waitFor(agent, r.json.deliveryId, (x) => x.status === 'DONE');
      const run = (await runEntries(agent)).find((e) => e.kind === 'RUN' && e.runId === d.runId);
      expect(run.response).to.deep.equal({ output: { slept: true } });
    });

    it('retries a failing handler on the schedule and records each attempt', async () => {
      await addWebhook(agent, 'fails', { script: 'throw new Error("downstream is down");' });
      const r = await call('POST', hook(agent, 'fails'), { json: {}, baseUrl: h().url });
      expect(r.status).to.equal(200);
      const d = await waitFor(agent, r.json.deliveryId, (x) => x.failures === 1);
      expect(d.status, 'waiting for its retry').to.equal('PENDING');
      expect(d.lastError).to.match(/downstream is down/);
      const runs = (await runEntries(agent)).filter((e) => e.kind === 'RUN' && e.entry === 'fails');
      expect(runs).to.have.length(1);
      expect(runs[0].error).to.match(/downstream is down/);
    });

    it('defers a delivery while the daily credit limit refuses its run, without counting a failure, and the sender still gets 200', async () => {
      const capped = await createAgent(ws.adminToken, { name: 'Capped' });
      await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: capped });
      await addWebhook(capped, 'in', { script: 'return 1;' });
      const r = await call('POST', hook(capped, 'in'), { json: {}, baseUrl: h().url });
      expect(r.status).to.equal(200);
      const d = await waitFor(capped, r.json.deliveryId, (x) => x.attempts === 1 && x.status === 'PENDING');
      expect(d.failures).to.equal(0);
      expect(d.lastError).to.match(/limit/i);
      const run = (await runEntries(capped)).find((e) => e.kind === 'RUN');
      expect(run.error).to.match(/limit/i);
    });

    it('replays a stored delivery as a new delivery that runs, and hides deliveries of other workspaces', async () => {
      const r = await call('POST', hook(agent, 'echo'), { json: { replay: 'me' }, baseUrl: h().url });
      const original = await waitFor(agent, r.json.deliveryId, (x) => x.status === 'DONE');
      const replayed = (
        await gql(`mutation($id: ID!) { replayWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`, { id: original.id })
      ).replayWebhookDelivery as DeliveryNode;
      expect(replayed.id).not.to.equal(original.id);
      expect(replayed).to.include({ replayOf: original.id, body: original.body, attempts: 0 });
      const done = await waitFor(agent, replayed.id, (x) => x.status === 'DONE');
      expect(done.attempts).to.equal(1);
      const other = await newWorkspace();
      const foreign = await fetch(`${h().url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${other.adminToken}` },
        body: JSON.stringify({
          query: 'mutation($id: ID!) { replayWebhookDelivery(id: $id) { id } }',
          variables: { id: original.id },
        }),
      }).then((x) => x.json() as Promise<any>);
      expect(foreign.errors[0].extensions.code).to.equal('NOT_FOUND');
    });

    it('lists deliveries by integration and status, newest first, in pages', async () => {
      const page = await gql(
        'query($a: ID!) { webhookDeliveries(agentId: $a, integration: "echo", status: DONE, first: 2) { nodes { id integration status } endCursor hasNextPage } }',
        { a: agent },
      );
      expect(page.webhookDeliveries.nodes).to.have.length(2);
      for (const n of page.webhookDeliveries.nodes) expect(n).to.include({ integration: 'echo', status: 'DONE' });
      expect(page.webhookDeliveries.hasNextPage).to.equal(true);
      const next = await gql(
        'query($a: ID!, $c: String) { webhookDeliveries(agentId: $a, integration: "echo", status: DONE, first: 2, after: $c) { nodes { id } } }',
        {
          a: agent,
          c: page.webhookDeliveries.endCursor,
        },
      );
      const ids = page.webhookDeliveries.nodes.map((n: { id: string }) => n.id);
      for (const n of next.webhookDeliveries.nodes) expect(ids).not.to.include(n.id);
    });
  });
});
