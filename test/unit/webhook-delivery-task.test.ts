import { expect } from 'chai';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Webhook } from '../../src/domain/entries/entry.entities.js';
import { Invalid, LimitExceeded, Unavailable } from '../../src/domain/errors.js';
import type { Store } from '../../src/domain/ports.js';
import type { Principal } from '../../src/domain/principal.js';
import type { AdmittedRun, Pipeline } from '../../src/domain/runtime/pipeline.js';
import type { RunEntry, RunEvent, RunInput, RunResult } from '../../src/domain/runtime/run.types.js';
import { MAX_DELIVERY_ATTEMPTS } from '../../src/domain/core/retry-schedule.js';
import { WebhookDeliveryTask } from '../../src/domain/webhooks/webhook-delivery.task.js';
import type { QueuedDelivery } from '../../src/domain/webhooks/webhook.entities.js';

// The delivery task alone (no database, no queue): what it hands the pipeline for one claimed
// delivery, and which outcome each way a run can end comes to. The queue settles from that outcome
// (delivery-outcome.ts, webhook-queue.test.ts).

const agent = { id: 'agt_1', workspaceId: 'ws_1' } as Agent;
const webhook = {
  id: 'wh_1',
  integration: 'stripe',
  handler: { kind: 'script', body: 'return 1' },
  modelOverride: null,
} as unknown as Webhook;
const delivery: QueuedDelivery = {
  id: 'whd_1',
  agentId: agent.id,
  webhookId: webhook.id,
  integration: 'stripe',
  senderDeliveryId: 'evt_9',
  dedupeKey: null,
  replayOf: null,
  method: 'POST',
  path: '/agents/agt_1/webhook/stripe',
  query: { a: '1' },
  headers: { 'content-type': 'application/json' },
  bodyDroppedAt: null,
  status: 'RUNNING',
  attempts: 2,
  failures: 1,
  lastError: null,
  runId: null,
  nextAttemptAt: new Date(0),
  lockedUntil: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  completedAt: null,
};

const result = (over: Partial<RunResult> = {}): RunResult => ({
  runId: 'run_1',
  output: 1,
  usage: { inputTokens: 0, outputTokens: 0 },
  credits: 0,
  model: null,
  logs: [],
  durationMs: 1,
  ...over,
});

interface Begun {
  principal: Principal;
  entry: RunEntry;
  input: RunInput;
}

/** A task over a store holding `found` and a pipeline that begins as `begin` says (and records what it was asked). */
function taskWith(
  begin: () => Promise<AsyncGenerator<RunEvent>>,
  found: { agent?: Agent | null; webhook?: Webhook | null; body?: Buffer | null } = {},
) {
  const begun: Begun[] = [];
  const store = {
    repos: {
      agents: { get: async () => (found.agent === undefined ? agent : found.agent) },
      webhooks: { get: async () => (found.webhook === undefined ? webhook : found.webhook) },
      deliveries: { body: async () => (found.body === undefined ? Buffer.from('{"type":"paid"}') : found.body) },
    },
  } as unknown as Store;
  const pipeline = {
    begin: async (principal: Principal, _agent: Agent, entry: RunEntry, input: RunInput) => {
      begun.push({ principal, entry, input });
      const events = await begin();
      return { events: () => events } as unknown as AdmittedRun;
    },
  } as unknown as Pipeline;
  return { task: new WebhookDeliveryTask(store, pipeline), begun };
}

async function* ends(...events: RunEvent[]): AsyncGenerator<RunEvent> {
  yield* events;
}

async function* throws(err: unknown): AsyncGenerator<RunEvent> {
  yield { type: 'delta', text: 'a' };
  throw err;
}

describe('webhook delivery task: one attempt and its outcome', () => {
  it('runs the delivery as the system principal of its agent, with the integration, payload, raw body and attempt', async () => {
    const { task, begun } = taskWith(async () => ends({ type: 'done', result: result() }));
    expect(await task.run(delivery)).to.deep.equal({ kind: 'done', runId: 'run_1' });
    expect(begun).to.have.length(1);
    const { principal, entry, input } = begun[0]!;
    expect(principal).to.deep.equal({
      kind: 'system',
      name: 'webhook-delivery',
      workspaceId: 'ws_1',
      agentId: 'agt_1',
    });
    expect(entry).to.deep.equal({
      kind: 'webhook',
      id: 'wh_1',
      name: 'stripe',
      handler: webhook.handler,
      modelOverride: null,
    });
    expect(input).to.deep.equal({
      surface: 'WEBHOOKS',
      method: 'POST',
      path: 'stripe',
      params: { integration: 'stripe' },
      query: { a: '1' },
      headers: { 'content-type': 'application/json' },
      body: { type: 'paid' },
      rawBody: '{"type":"paid"}',
      delivery: { id: 'whd_1', attempt: 2, senderDeliveryId: 'evt_9' },
    });
  });

  it('fails without running when the agent, its integration or the delivery is gone, or the attempts were used up', async () => {
    const never = async (): Promise<AsyncGenerator<RunEvent>> => {
      throw new Error('must not begin');
    };
    for (const [found, error] of [
      [{ agent: null }, 'The agent or its webhook integration was removed'],
      [{ webhook: null }, 'The agent or its webhook integration was removed'],
      [{ body: null }, 'The delivery was removed'],
    ] as const) {
      const { task, begun } = taskWith(never, found);
      expect(await task.run(delivery)).to.deep.equal({ kind: 'failed', error, runId: null, countsFailure: true });
      expect(begun).to.have.length(0);
    }
    const { task, begun } = taskWith(never);
    const outcome = await task.run({ ...delivery, failures: MAX_DELIVERY_ATTEMPTS });
    expect(outcome).to.deep.include({ kind: 'failed', countsFailure: false });
    expect(begun).to.have.length(0);
  });

  it('defers a limit or an outage, fails a refusal no retry changes, retries anything else that keeps the run from starting', async () => {
    const refusedBy = (err: unknown) => taskWith(async () => Promise.reject(err)).task.run(delivery);
    expect(await refusedBy(new LimitExceeded('daily_credit_limit', 120, 'limit'))).to.deep.equal({
      kind: 'deferred',
      error: 'limit',
      retryAfterSeconds: 120,
    });
    expect(await refusedBy(new Unavailable('away', 7))).to.deep.equal({
      kind: 'deferred',
      error: 'away',
      retryAfterSeconds: 7,
    });
    expect(await refusedBy(new Invalid('blocked by the guardrails'))).to.deep.equal({
      kind: 'failed',
      error: 'blocked by the guardrails',
      runId: null,
      countsFailure: true,
    });
    expect(await refusedBy(new Error('boom'))).to.deep.equal({
      kind: 'retry',
      error: 'The run could not start',
      runId: null,
    });
  });

  it('retries a run that failed or broke off, defers one the database cut short', async () => {
    const ran = (events: () => AsyncGenerator<RunEvent>) => taskWith(async () => events()).task.run(delivery);
    expect(
      await ran(() =>
        ends({ type: 'done', result: result({ output: null, error: { kind: 'script', message: 'script threw' } }) }),
      ),
    ).to.deep.equal({ kind: 'retry', error: 'script threw', runId: 'run_1' });
    expect(await ran(() => ends({ type: 'delta', text: 'no end' }))).to.deep.equal({
      kind: 'retry',
      error: 'The run ended without a result',
      runId: null,
    });
    expect(await ran(() => throws(new Unavailable('away', 9)))).to.deep.equal({
      kind: 'deferred',
      error: 'away',
      retryAfterSeconds: 9,
    });
    expect(await ran(() => throws(new Invalid('said no')))).to.deep.equal({
      kind: 'retry',
      error: 'said no',
      runId: null,
    });
    expect(await ran(() => throws(new Error('internal detail')))).to.deep.equal({
      kind: 'retry',
      error: 'The run failed',
      runId: null,
    });
  });
});
