import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';
import { startReceiver } from '../helpers/event-receiver.js';
import { until } from '../helpers/until.js';
import { aesRunner } from '../helpers/cli.js';

// Outbound event webhooks (issue 54): signed with Standard Webhooks, stored before they are sent,
// retried, and a subscription whose deliveries keep failing disabled with `webhook.delivery.failed`
// recorded. The harness shortens the retry schedule (3 attempts, 100 ms apart) and disables a
// subscription after 2 deliveries in a row failed (configuration, not sleeping).

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const CREATE = `mutation($i: EventSubscriptionInput!) { createEventSubscription(input: $i) {
  secret subscription { id url kinds agentId enabled } } }`;
const SUBSCRIPTION = `query { eventSubscriptions { id enabled failureStreak disabledReason } }`;
const DELIVERIES = `query($s: ID!) { eventDeliveries(subscriptionId: $s, first: 10) {
  nodes { id eventId kind state attempts lastStatus attemptLog { attempt status response durationMs } } } }`;

describe('Outbound event webhooks', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let validate: (body: unknown) => boolean;
  const receivers: { close(): Promise<void> }[] = [];

  before(async () => {
    const schema = await call('GET', '/schemas/events.v1.json');
    expect(schema.status).to.equal(200);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const v = ajv.compile(schema.json);
    validate = (body) => {
      const ok = v(body);
      if (!ok) throw new Error(`not valid against /schemas/events.v1.json: ${JSON.stringify(v.errors)}`);
      return ok;
    };
  });
  beforeEach(async () => {
    ws = await newWorkspace();
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });

  async function receiver(answer?: (n: number) => number) {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  }
  const subscribe = async (input: Record<string, unknown>) =>
    (await gqlOk(ws.adminToken, CREATE, { i: input })).createEventSubscription as {
      secret: string;
      subscription: { id: string };
    };
  const runOnce = async (agent: string) => {
    await addHttpEndpoint(ws.adminToken, agent, { path: 'echo', handler: { script: 'return input;' } });
    const key = await createAgentKey(ws.adminToken, agent);
    const r = await call('POST', httpApiPath(agent, 'echo'), { key, json: { hello: 1 } });
    expect(r.status, r.text).to.equal(200);
  };

  it('run.completed arrives signed so that the standardwebhooks verifier accepts it, valid against the served schema', async () => {
    const rx = await receiver();
    const agent = await createAgent(ws.adminToken);
    const { secret } = await subscribe({ url: rx.url, kinds: ['run.completed'] });
    expect(secret).to.match(/^whsec_/);
    await runOnce(agent);
    await until('run.completed arrives', async () => (rx.received.length > 0 ? true : undefined));
    const [got] = rx.received;
    const headers = {
      'webhook-id': String(got!.headers['webhook-id']),
      'webhook-timestamp': String(got!.headers['webhook-timestamp']),
      'webhook-signature': String(got!.headers['webhook-signature']),
    };
    const event = new Webhook(secret).verify(got!.body, headers) as any;
    expect(event.type).to.equal('run.completed');
    expect(event.id).to.equal(headers['webhook-id']).and.match(/^evt_/);
    expect(event.data).to.include({ agentId: agent, surface: 'HTTP_API' });
    validate(event);
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(got!.body, headers)).to.throw();
  });

  it('a receiver answering 500 then 200 gets the event on the retry; both attempts are listed', async () => {
    const rx = await receiver((n) => (n === 0 ? 500 : 200));
    const { subscription } = await subscribe({ url: rx.url, kinds: ['key.created'] });
    await createAgentKey(ws.adminToken, await createAgent(ws.adminToken));
    const [d] = await until('the delivery is delivered on its second attempt', async () => {
      const nodes = (await gqlOk(ws.adminToken, DELIVERIES, { s: subscription.id })).eventDeliveries.nodes as any[];
      return nodes[0]?.state === 'DELIVERED' ? nodes : undefined;
    });
    expect(d.attempts).to.equal(2);
    expect(d.attemptLog.map((a: any) => a.status)).to.deep.equal([500, 200]);
    expect(d.attemptLog[0].response).to.equal('answer 0');
    const [first, second] = rx.received;
    expect(first!.headers['webhook-id']).to.equal(second!.headers['webhook-id']);
    const event = rx.events()[1]!;
    expect(event.type).to.equal('key.created');
    validate(event);
  });

  it('a receiver that never answers 2xx gets its subscription disabled, with webhook.delivery.failed recorded', async () => {
    const bad = await receiver(() => 503);
    const watcher = await receiver();
    const { subscription } = await subscribe({ url: bad.url, kinds: ['key.created'] });
    await subscribe({ url: watcher.url, kinds: ['webhook.delivery.failed'] });
    const agent = await createAgent(ws.adminToken);
    await createAgentKey(ws.adminToken, agent);
    await createAgentKey(ws.adminToken, agent);
    const [s] = await until('the subscription is disabled', async () => {
      const list = (await gqlOk(ws.adminToken, SUBSCRIPTION)).eventSubscriptions as any[];
      return list.find((x) => x.id === subscription.id && !x.enabled) ? list : undefined;
    });
    expect(s.disabledReason).to.match(/2 deliveries in a row failed/);
    expect(bad.received).to.have.length(6);
    const failed = await until('webhook.delivery.failed reaches the other subscription', async () =>
      watcher.events().length >= 2 ? watcher.events() : undefined,
    );
    for (const e of failed) {
      expect(e.type).to.equal('webhook.delivery.failed');
      expect(e.data).to.include({ source: 'event_subscription', subscriptionId: subscription.id, attempts: 3 });
      validate(e);
    }
    // Disabled: a later event is not stored for it.
    await createAgentKey(ws.adminToken, agent);
    const d = (await gqlOk(ws.adminToken, DELIVERIES, { s: subscription.id })).eventDeliveries.nodes as any[];
    expect(d).to.have.length(2);
    expect(d.every((x) => x.state === 'FAILED')).to.equal(true);
  });

  it("an agent filter leaves out other agents' events; key.created arrives", async () => {
    const rx = await receiver();
    const [a, b] = [await createAgent(ws.adminToken), await createAgent(ws.adminToken)];
    await subscribe({ url: rx.url, kinds: ['key.created', 'run.completed'], agentId: a });
    await createAgentKey(ws.adminToken, b);
    await createAgentKey(ws.adminToken, a);
    const [e] = await until('key.created of agent A arrives', async () =>
      rx.received.length > 0 ? rx.events() : undefined,
    );
    expect(e!.type).to.equal('key.created');
    expect(e!.data).to.include({ agentId: a, kind: 'AGENT' });
    validate(e);
    await gqlOk(ws.adminToken, `mutation($s: ID!) { sendTestEvent(subscriptionId: $s) { id } }`, {
      s: (await gqlOk(ws.adminToken, SUBSCRIPTION)).eventSubscriptions[0].id,
    });
    await until('the test event arrives', async () => (rx.received.length > 1 ? true : undefined));
    expect(rx.events().map((x) => x.data.agentId)).to.deep.equal([a, a]);
    expect(rx.events()[1]!.test).to.equal(true);
    validate(rx.events()[1]);
  });

  it('limit.reached when a limit refuses a run, and key.revoked, arrive valid against the schema', async () => {
    const rx = await receiver();
    const agent = await createAgent(ws.adminToken);
    await addHttpEndpoint(ws.adminToken, agent, { path: 'echo', handler: { script: 'return input;' } });
    const keys = await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key apiKey { id } } }',
      {
        a: agent,
      },
    );
    await subscribe({ url: rx.url, kinds: ['limit.reached', 'key.revoked'] });
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', {
      a: agent,
    });
    const r = await call('POST', httpApiPath(agent, 'echo'), { key: keys.createAgentApiKey.key, json: {} });
    expect(r.status, r.text).to.equal(429);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { revokeApiKey(id: $id) }', {
      id: keys.createAgentApiKey.apiKey.id,
    });
    const events = await until('both events arrive', async () => (rx.received.length >= 2 ? rx.events() : undefined));
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(byType['limit.reached']!.data).to.include({
      agentId: agent,
      reason: 'daily_credit_limit',
      surface: 'HTTP_API',
    });
    expect(byType['key.revoked']!.data).to.include({ agentId: agent, keyId: keys.createAgentApiKey.apiKey.id });
    for (const e of events) validate(e);
  });

  it('the CLI lists event webhooks and their deliveries, and sends a test event', async () => {
    const rx = await receiver();
    const { subscription } = await subscribe({ url: rx.url, kinds: ['key.revoked'] });
    const aes = aesRunner();
    try {
      const env = { AES_URL: h().url, AES_TOKEN: ws.adminToken };
      const list = await aes.run(['events', 'list'], { env });
      expect(list.code, list.stderr).to.equal(0);
      expect(list.stdout).to.contain(subscription.id).and.contain(rx.url).and.contain('key.revoked');
      const sent = await aes.run(['events', 'test', subscription.id, '-o', 'json'], { env });
      expect(sent.code, sent.stderr).to.equal(0);
      expect(JSON.parse(sent.stdout)).to.include({ kind: 'key.revoked' });
      await until('the test event arrives', async () => (rx.received.length > 0 ? true : undefined));
      const log = await until('the delivery is listed delivered', async () => {
        const r = await aes.run(['events', 'deliveries', subscription.id, '-o', 'json'], { env });
        expect(r.code, r.stderr).to.equal(0);
        const rows = JSON.parse(r.stdout) as { state: string; eventId: string }[];
        return rows[0]?.state === 'DELIVERED' ? rows : undefined;
      });
      expect(log[0]!.eventId).to.equal(rx.events()[0]!.id);
      const bad = await aes.run(['events', 'test', subscription.id, '--kind', 'run.exploded'], { env });
      expect(bad.code).to.not.equal(0);
    } finally {
      aes.cleanup();
    }
  });

  it('a bad URL or an unknown kind is BAD_USER_INPUT; a VIEWER cannot create but can list', async () => {
    for (const i of [
      { url: 'ftp://example.com/x', kinds: ['run.completed'] },
      { url: `https://example.com/${'a'.repeat(2100)}`, kinds: ['run.completed'] },
      { url: 'not a url', kinds: ['run.completed'] },
      { url: 'https://example.com/x', kinds: ['run.exploded'] },
      { url: 'https://example.com/x', kinds: [] },
    ]) {
      const r = await gql(ws.adminToken, CREATE, { i });
      expect(errorCode(r), JSON.stringify(i).slice(0, 80)).to.equal('BAD_USER_INPUT');
    }
    const viewer = await ws.addMember('VIEWER');
    const r = await gql(viewer.token, CREATE, { i: { url: 'https://example.com/x', kinds: ['run.completed'] } });
    expect(errorCode(r)).to.equal('FORBIDDEN');
    expect((await gqlOk(viewer.token, SUBSCRIPTION)).eventSubscriptions).to.deep.equal([]);
    const rows = await h().db('event_subscriptions').where({ workspace_id: ws.workspaceId });
    expect(rows).to.have.length(0);
  });
});
