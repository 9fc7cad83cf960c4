import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { EVENT_KINDS } from '../../src/domain/events/event.entities.js';
import {
  eventSettlementOf,
  isDelivered,
  streakAfter,
  type EventRetryPolicy,
} from '../../src/domain/events/event-outcome.js';
import { eventsJsonSchema, sampleEventData } from '../../src/domain/events/event-schemas.js';
import {
  keyEvent,
  LIMIT_EVENT_EVERY_MS,
  messageEvent,
  runEventsOf,
  webhookFailedEvent,
} from '../../src/domain/events/event-emitters.js';
import type { EventOutbox } from '../../src/domain/events/event.ports.js';
import { LimitExceeded, type LimitReason } from '../../src/domain/errors.js';

// Outbound events' pure parts: the retry schedule and the end of a delivery, the failure streak
// that disables a subscription, and the events' bodies against the served schemas.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const now = new Date('2027-04-25T12:00:00Z');
const policy: EventRetryPolicy = { retryDelay: (n) => (n < 3 ? n * 1000 : null), disableAfter: 3 };

describe('Outbound events: settling an attempt', () => {
  it('a 2xx delivers; anything else is retried on the schedule, and the last failure fails the delivery', () => {
    expect([200, 204, 299].every(isDelivered)).to.equal(true);
    expect([null, 199, 300, 302, 404, 500].some(isDelivered)).to.equal(false);
    const ok = eventSettlementOf({ failures: 1 }, { kind: 'delivered', status: 204, response: null }, now, policy);
    expect(ok).to.deep.include({
      state: 'delivered',
      failures: 1,
      nextAttemptAt: null,
      lastStatus: 204,
      completedAt: now,
    });
    const retry = eventSettlementOf({ failures: 1 }, { kind: 'retry', status: 500, response: 'no' }, now, policy);
    expect(retry).to.deep.include({
      state: 'pending',
      failures: 2,
      lastStatus: 500,
      lastResponse: 'no',
      completedAt: null,
    });
    expect(retry.nextAttemptAt!.getTime() - now.getTime()).to.equal(2000);
    const last = eventSettlementOf({ failures: 2 }, { kind: 'retry', status: null, response: 'timeout' }, now, policy);
    expect(last).to.deep.include({ state: 'failed', failures: 3, nextAttemptAt: null, completedAt: now });
  });

  it('a delivery of a deleted or disabled subscription fails without counting a failure', () => {
    const s = eventSettlementOf({ failures: 0 }, { kind: 'dropped', reason: 'deleted' }, now, policy);
    expect(s).to.deep.include({ state: 'failed', failures: 0, lastResponse: 'deleted', nextAttemptAt: null });
  });

  it('the streak: delivered resets it, a retry to come leaves it, a failed delivery adds one and disables at disableAfter', () => {
    expect(streakAfter(2, 'delivered', policy)).to.deep.equal({ streak: 0, disable: false });
    expect(streakAfter(2, 'pending', policy)).to.deep.equal({ streak: 2, disable: false });
    expect(streakAfter(1, 'failed', policy)).to.deep.equal({ streak: 2, disable: false });
    expect(streakAfter(2, 'failed', policy)).to.deep.equal({ streak: 3, disable: true });
  });
});

describe('Outbound events: bodies against /schemas/events.v1.json', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(eventsJsonSchema());
  const envelope = (type: string, data: unknown) => ({
    id: 'evt_0123abc',
    type,
    timestamp: now.toISOString(),
    workspaceId: 'ws_1',
    data,
  });
  const emitted: { kind: string; agentId?: string | null; data: Record<string, unknown> }[] = [];
  const outbox: EventOutbox = {
    emit: async (_ws, kind, e) => void emitted.push({ kind, ...e }),
  };
  beforeEach(() => emitted.splice(0));

  it('every kind has a schema, and its sample data (Send test event) is valid', () => {
    for (const kind of EVENT_KINDS) {
      for (const agentId of ['agt_1', null]) {
        const ok = validate({ ...envelope(kind, sampleEventData(kind, agentId, now)), test: true });
        expect(ok, `${kind}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      }
    }
  });

  it('run.completed, run.failed and limit.reached as the lifecycle emits them are valid; a wrong body is not', () => {
    const events = runEventsOf(outbox);
    const agent = { id: 'agt_1', workspaceId: 'ws_1' };
    const facts = { runId: 'run_1', entry: '/echo', durationMs: 12.4, credits: 0.5, outcome: 'ok', error: null };
    events.ended(agent, { surface: 'HTTP' }, facts);
    events.ended(agent, { surface: 'MCP' }, { ...facts, outcome: 'script', error: 'boom' });
    events.limited(
      agent,
      { surface: 'HTTP' },
      new LimitExceeded('daily_credit_limit', 30.2, 'Daily credit limit reached'),
    );
    expect(emitted.map((e) => e.kind)).to.deep.equal(['run.completed', 'run.failed', 'limit.reached']);
    for (const e of emitted) expect(validate(envelope(e.kind, e.data)), JSON.stringify(validate.errors)).to.equal(true);
    expect(emitted[0]!.data).to.include({ durationMs: 12 });
    expect(validate(envelope('run.completed', { ...emitted[0]!.data, secret: 'x' }))).to.equal(false);
    expect(validate(envelope('run.exploded', emitted[0]!.data))).to.equal(false);
  });

  it('a limit that stays reached is told once a minute per agent and limit, not once per refused call', () => {
    let t = 1_000_000;
    const events = runEventsOf(outbox, () => t);
    const refusal = (reason: LimitReason) => new LimitExceeded(reason, 30, 'Limit reached');
    const a = { id: 'agt_1', workspaceId: 'ws_1' };
    const b = { id: 'agt_2', workspaceId: 'ws_1' };
    for (let i = 0; i < 50; i++) events.limited(a, { surface: 'HTTP' }, refusal('daily_credit_limit'));
    events.limited(a, { surface: 'HTTP' }, refusal('concurrency_limit'));
    events.limited(b, { surface: 'HTTP' }, refusal('daily_credit_limit'));
    expect(emitted.map((e) => `${e.agentId} ${(e.data as { reason: string }).reason}`)).to.deep.equal([
      'agt_1 daily_credit_limit',
      'agt_1 concurrency_limit',
      'agt_2 daily_credit_limit',
    ]);
    t += LIMIT_EVENT_EVERY_MS - 1;
    events.limited(a, { surface: 'HTTP' }, refusal('daily_credit_limit'));
    expect(emitted).to.have.length(3);
    t += 1;
    events.limited(a, { surface: 'HTTP' }, refusal('daily_credit_limit'));
    expect(emitted).to.have.length(4);
  });

  it('key events never carry the key itself', () => {
    const key = {
      id: 'key_1',
      workspaceId: 'ws_1',
      agentId: null,
      kind: 'WORKSPACE',
      name: 'CI',
      prefix: 'wk_ab12',
      origin: 'PERSON',
    };
    keyEvent(outbox, 'key.created', key);
    keyEvent(outbox, 'key.revoked', key);
    for (const e of emitted) expect(validate(envelope(e.kind, e.data)), JSON.stringify(validate.errors)).to.equal(true);
    expect(Object.keys(emitted[1]!.data)).to.not.include('prefix');
  });

  it("webhook.delivery.failed of an inbound delivery names it in its agent's workspace; message.received names sender and subject only", async () => {
    const agents = { get: async (id: string) => (id === 'agt_1' ? { workspaceId: 'ws_9' } : null) };
    const to: string[] = [];
    const capture: EventOutbox = {
      emit: async (ws, kind, e) => {
        to.push(ws);
        emitted.push({ kind, ...e });
      },
    };
    const d = { id: 'dlv_1', agentId: 'agt_1', webhookId: 'whk_1', attempts: 8 };
    await webhookFailedEvent(capture, agents, d, 'x'.repeat(5000));
    await webhookFailedEvent(capture, agents, { ...d, agentId: 'agt_gone' }, null);
    messageEvent(capture, {
      id: 'msg_1',
      workspaceId: 'ws_9',
      agentId: 'agt_1',
      channelId: null,
      channel: 'sms',
      from: '+15551234567',
      subject: null,
    });
    expect(to).to.deep.equal(['ws_9', 'ws_9']);
    expect(emitted.map((e) => e.kind)).to.deep.equal(['webhook.delivery.failed', 'message.received']);
    expect((emitted[0]!.data.error as string).length).to.equal(2000);
    for (const e of emitted) expect(validate(envelope(e.kind, e.data)), JSON.stringify(validate.errors)).to.equal(true);
  });
});
