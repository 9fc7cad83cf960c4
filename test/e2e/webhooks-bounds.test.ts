import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import Stripe from 'stripe';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { call, type Reply } from '../helpers/surface-calls.js';

// What an anonymous or replaying sender can make the receiver store and run, over real HTTP
// against the harness service: a captured, validly signed request sent again with headers of its
// own is still the one delivery (the sender id comes only from signed material), and a body is
// refused (413) past the integration's limit — 64 KiB without a signature unless maxBodyBytes
// says more, 1 MiB with one. Signatures are made with each sender's own library.

const hook = (agentId: string, integration: string) => `/agents/${agentId}/webhook/${integration}`;
const KiB = 1024;
const MiB = 1024 * 1024;

interface DeliveryNode {
  id: string;
  status: string;
  attempts: number;
  senderDeliveryId: string | null;
  bodyBytes: number;
}

describe('e2e: webhook replays and body bounds', function () {
  this.timeout(120_000);
  let ws: TestWorkspace;
  let agent: string;

  const gqlAdmin = (query: string, variables: Record<string, unknown> = {}) => gqlOk(ws.adminToken, query, variables);

  async function addWebhook(integration: string, extra: Record<string, unknown> = {}): Promise<string> {
    const d = await gqlAdmin(
      'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id maxBodyBytes } }',
      {
        a: agent,
        i: { integration, handler: { script: 'return { body: input };' }, ...extra },
      },
    );
    expect(d.addWebhook.maxBodyBytes).to.equal(extra.maxBodyBytes ?? null);
    return d.addWebhook.id as string;
  }

  async function deliveries(integration: string): Promise<DeliveryNode[]> {
    const d = await gqlAdmin(
      'query($a: ID!, $i: String) { webhookDeliveries(agentId: $a, integration: $i, first: 50) { nodes { id status attempts senderDeliveryId bodyBytes } } }',
      {
        a: agent,
        i: integration,
      },
    );
    return d.webhookDeliveries.nodes as DeliveryNode[];
  }

  /** The RUN entries of the integration in the activity log. */
  async function runs(integration: string): Promise<unknown[]> {
    await h().service.services.activityLog.flush();
    const d = await gqlAdmin(
      'query($a: ID!) { agent(id: $a) { activity(first: 100, surface: WEBHOOKS) { nodes { kind entry runId } } } }',
      { a: agent },
    );
    return (d.agent.activity.nodes as { kind: string; entry: string }[]).filter(
      (n) => n.kind === 'RUN' && n.entry === integration,
    );
  }

  /** Waits until every delivery of the integration is DONE (the queue works in the background). */
  async function settled(integration: string): Promise<DeliveryNode[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ds = await deliveries(integration);
      if (ds.length > 0 && ds.every((d) => d.status === 'DONE')) return ds;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${integration}: ${JSON.stringify(ds)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  before(async () => {
    ws = await newWorkspace();
    agent = await createAgent(ws.adminToken, { name: 'Bounds' });
    const secret = (name: string, value: string) =>
      gqlAdmin(
        'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
        { n: name, v: value },
      );
    await secret('stripe', 'whsec_stripe_bounds_secret');
    await secret('slack', '8f742231b10e8888abcd99yyyzzz85a5');
    await secret('svix', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    await secret('plain', 'our-own-secret');
  });

  describe('a captured signed request sent again with headers of its own is the same delivery', () => {
    /**
     * Sends one validly signed request as is, then with `X-GitHub-Delivery: anything-1`, then with
     * an `Idempotency-Key` of 201 characters, then with another Content-Type (not signed either),
     * and checks that it gave one delivery and one run.
     */
    async function sendThreeWays(
      integration: string,
      body: string,
      signed: Record<string, string>,
      expectedId: string,
    ): Promise<void> {
      const send = (extra: Record<string, string>, type = 'application/json') =>
        call('POST', hook(agent, integration), { raw: body, type, headers: { ...signed, ...extra } });
      const answers: Reply[] = [
        await send({}),
        await send({ 'x-github-delivery': 'anything-1' }),
        await send({ 'idempotency-key': 'x'.repeat(201) }),
        await send({}, 'text/plain'),
      ];
      for (const r of answers) expect(r.status, r.text).to.equal(200);
      const first = answers[0]!.json.deliveryId as string;
      expect(answers.map((r) => r.json.deliveryId)).to.deep.equal([first, first, first, first]);
      expect(answers.slice(1).map((r) => r.json.duplicate)).to.deep.equal([true, true, true]);
      const stored = await settled(integration);
      expect(
        stored.map((d) => ({ id: d.id, senderDeliveryId: d.senderDeliveryId, attempts: d.attempts })),
      ).to.deep.equal([{ id: first, senderDeliveryId: expectedId, attempts: 1 }]);
      expect(await runs(integration), 'one run').to.have.length(1);
    }

    const now = () => Math.floor(Date.now() / 1000);

    it('STRIPE: the event id in the signed body', async () => {
      await addWebhook('stripe', { signature: { scheme: 'STRIPE', secretName: 'stripe' } });
      const id = `evt_${Date.now()}`;
      const payload = JSON.stringify({ id, object: 'event', type: 'payment_intent.succeeded' });
      const header = new Stripe('sk_test_not_used').webhooks.generateTestHeaderString({
        payload,
        secret: 'whsec_stripe_bounds_secret',
        timestamp: now(),
      });
      await sendThreeWays('stripe', payload, { 'stripe-signature': header }, id);
    });

    it('SLACK: the event_id in the signed body', async () => {
      await addWebhook('slack', { signature: { scheme: 'SLACK', secretName: 'slack' } });
      const id = `Ev${Date.now()}`;
      const body = JSON.stringify({ type: 'event_callback', event_id: id, event: { type: 'message', text: 'hi' } });
      const ts = now();
      const signature = `v0=${createHmac('sha256', '8f742231b10e8888abcd99yyyzzz85a5').update(`v0:${ts}:${body}`).digest('hex')}`;
      await sendThreeWays(
        'slack',
        body,
        { 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signature },
        id,
      );
    });

    it('STANDARD_WEBHOOKS: the webhook-id the signature covers', async () => {
      await addWebhook('svix', { signature: { scheme: 'STANDARD_WEBHOOKS', secretName: 'svix' } });
      const id = `msg_${Date.now()}`;
      const payload = JSON.stringify({ type: 'invoice.paid', data: { id: 1 } });
      const at = new Date();
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new StandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').sign(id, at, payload),
      };
      await sendThreeWays('svix', payload, headers, id);
    });

    it('an unsigned sender whose id is over 200 characters is still de-duplicated (by its SHA-256)', async () => {
      await addWebhook('long-id');
      const key = 'k'.repeat(500);
      const a = await call('POST', hook(agent, 'long-id'), { json: { n: 1 }, headers: { 'idempotency-key': key } });
      const b = await call('POST', hook(agent, 'long-id'), { json: { n: 1 }, headers: { 'idempotency-key': key } });
      expect(b.json).to.deep.equal({ received: true, deliveryId: a.json.deliveryId, duplicate: true });
      expect((await settled('long-id')).map((d) => d.senderDeliveryId)).to.satisfy(
        (ids: string[]) => ids.length === 1 && /^sha256:[0-9a-f]{64}$/.test(ids[0]!),
      );
    });
  });

  describe('body size', () => {
    const sig = (b: Buffer) => `sha256=${createHmac('sha256', 'our-own-secret').update(b).digest('hex')}`;

    it('an integration without a signature takes 64 KiB: one byte more is 413 saying the limit and how to raise it, and nothing is stored', async () => {
      await addWebhook('open');
      const over = await call('POST', hook(agent, 'open'), {
        raw: Buffer.alloc(64 * KiB + 1, 'a'),
        type: 'text/plain',
      });
      expect(over.status, over.text).to.equal(413);
      expect(over.json).to.deep.equal({
        error:
          'Request body is too large: this integration accepts at most 65536 bytes (64 KiB), the limit without a signature check; its owner can raise it with maxBodyBytes (up to 1048576 bytes (1 MiB)) or by checking signatures',
      });
      expect(await deliveries('open'), 'nothing stored').to.deep.equal([]);
      const fits = await call('POST', hook(agent, 'open'), { raw: Buffer.alloc(64 * KiB, 'a'), type: 'text/plain' });
      expect(fits.status, fits.text).to.equal(200);
      expect((await deliveries('open')).map((d) => d.bodyBytes)).to.deep.equal([64 * KiB]);
    });

    it('refuses an unsigned body as soon as it passes the limit, while the sender is still sending (it is not read to the end)', async () => {
      await addWebhook('stream');
      const url = new URL(hook(agent, 'stream'), h().url);
      const answer = await new Promise<number>((resolve, reject) => {
        // Chunked, no Content-Length: the receiver can only count while it reads.
        const req = http.request(
          url,
          { method: 'POST', headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' } },
          (res) => {
            clearTimeout(timer);
            res.resume();
            resolve(res.statusCode!);
            req.destroy();
          },
        );
        // Far longer than an answer takes; a receiver waiting for the end of the body never answers.
        const timer = setTimeout(() => {
          req.destroy();
          reject(new Error('no answer while the body was still being sent: the receiver waited for the end of it'));
        }, 10_000);
        req.on('error', reject);
        req.write(Buffer.alloc(64 * KiB + 100, 'b'));
        // The request is never ended: an answer can only come from a receiver that stopped reading at its limit.
      });
      expect(answer).to.equal(413);
      expect(await deliveries('stream')).to.deep.equal([]);
    });

    it('an integration without a signature and maxBodyBytes 200000 takes a 100 KiB body and refuses 200001 bytes', async () => {
      await addWebhook('bigger', { maxBodyBytes: 200_000 });
      const ok = await call('POST', hook(agent, 'bigger'), { raw: Buffer.alloc(100 * KiB, 'c'), type: 'text/plain' });
      expect(ok.status, ok.text).to.equal(200);
      const over = await call('POST', hook(agent, 'bigger'), { raw: Buffer.alloc(200_001, 'c'), type: 'text/plain' });
      expect(over.status).to.equal(413);
      expect(over.json.error).to.equal(
        'Request body is too large: this integration accepts at most 200000 bytes, its maxBodyBytes; its owner can raise maxBodyBytes up to 1048576 bytes (1 MiB)',
      );
      expect((await deliveries('bigger')).map((d) => d.bodyBytes)).to.deep.equal([100 * KiB]);
    });

    it('a signed integration still takes 1 MiB, and a lower maxBodyBytes applies to it too (after the signature check)', async () => {
      await addWebhook('signed', { signature: { scheme: 'HMAC_SHA256', secretName: 'plain' } });
      const mib = Buffer.alloc(MiB, 'd');
      const ok = await call('POST', hook(agent, 'signed'), {
        raw: mib,
        type: 'text/plain',
        headers: { 'x-signature-256': sig(mib) },
      });
      expect(ok.status, ok.text).to.equal(200);
      const more = Buffer.alloc(MiB + 1, 'd');
      const over = await call('POST', hook(agent, 'signed'), {
        raw: more,
        type: 'text/plain',
        headers: { 'x-signature-256': sig(more) },
      });
      expect(over.status).to.equal(413);
      expect(over.json.error).to.equal(
        'Request body is too large: this integration accepts at most 1048576 bytes (1 MiB), the most any integration accepts',
      );
      expect((await deliveries('signed')).map((d) => d.bodyBytes)).to.deep.equal([MiB]);

      await addWebhook('signed-small', {
        signature: { scheme: 'HMAC_SHA256', secretName: 'plain' },
        maxBodyBytes: 1000,
      });
      const small = Buffer.alloc(1001, 'e');
      expect(
        (
          await call('POST', hook(agent, 'signed-small'), {
            raw: small,
            type: 'text/plain',
            headers: { 'x-signature-256': sig(Buffer.alloc(1001, 'f')) },
          })
        ).status,
        'a bad signature is 401 whatever the size',
      ).to.equal(401);
      expect(
        (
          await call('POST', hook(agent, 'signed-small'), {
            raw: small,
            type: 'text/plain',
            headers: { 'x-signature-256': sig(small) },
          })
        ).status,
      ).to.equal(413);
      expect(await deliveries('signed-small')).to.deep.equal([]);
    });

    it('maxBodyBytes is 1 to 1048576 (BAD_USER_INPUT otherwise), can be changed and reset to the default (null)', async () => {
      const id = await addWebhook('settable', { maxBodyBytes: 1 });
      for (const bad of [0, -5, MiB + 1]) {
        const r = await gql(
          ws.adminToken,
          'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }',
          {
            a: agent,
            i: { integration: `bad${bad}`, handler: { script: 'return 1;' }, maxBodyBytes: bad },
          },
        );
        expect(errorCode(r), String(bad)).to.equal('BAD_USER_INPUT');
        expect(r.errors![0]!.message).to.match(/maxBodyBytes.*1 to 1048576/);
      }
      const update = (v: number | null) =>
        gqlAdmin('mutation($id: ID!, $i: UpdateWebhookInput!) { updateWebhook(id: $id, input: $i) { maxBodyBytes } }', {
          id,
          i: { maxBodyBytes: v },
        });
      expect((await call('POST', hook(agent, 'settable'), { raw: 'ab', type: 'text/plain' })).status).to.equal(413);
      expect((await update(MiB)).updateWebhook.maxBodyBytes).to.equal(MiB);
      expect(
        (await call('POST', hook(agent, 'settable'), { raw: Buffer.alloc(MiB, 'g'), type: 'text/plain' })).status,
      ).to.equal(200);
      expect((await update(null)).updateWebhook.maxBodyBytes).to.equal(null);
      expect(
        (await call('POST', hook(agent, 'settable'), { raw: Buffer.alloc(64 * KiB + 1, 'g'), type: 'text/plain' }))
          .status,
      ).to.equal(413);
    });
  });
});
