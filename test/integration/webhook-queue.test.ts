import { expect } from 'chai';
import { MovableClock } from '../helpers/movable-clock.js';
import type { Clock } from '../../src/domain/clock.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Webhook } from '../../src/domain/entries/entry.entities.js';
import type {
  QueuedDelivery,
  WebhookDelivery,
  WebhookDeliverySummary,
} from '../../src/domain/webhooks/webhook.entities.js';
import { Invalid, LimitExceeded, NotFound } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { Principal } from '../../src/domain/principal.js';
import type { UnattendedRuns } from '../../src/domain/runtime/pipeline.js';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../src/domain/core/retry-schedule.js';
import { WebhookDeliveriesService } from '../../src/domain/webhooks/webhook-deliveries.service.js';
import { WebhookDeliveryTask } from '../../src/domain/webhooks/webhook-delivery.task.js';
import {
  DEDUPE_WINDOW_MS,
  WebhookReceiptService,
  type WebhookRequest,
} from '../../src/domain/webhooks/webhook-receipt.service.js';
import { deliveryQueue } from '../../src/infra/queue/webhook-deliveries.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent, refusal } from '../helpers/runtime.js';

// The webhook queue's rules, driven through a receipt service, a delivery task, its queue and a
// deliveries service of our own on the harness database with a clock the test moves. The harness service runs its own queue worker on the system clock,
// which claims every due delivery in the database: this file never calls claim() (it would take
// other tests' rows), and every row it leaves is either finished, RUNNING under a lease that ends
// in 2999, or PENDING until far in the future — nothing here becomes due for that worker.

/** A lease that never runs out while the tests run: the harness worker never claims such a row. */
const FAR_LEASE = new Date('2999-01-01T00:00:00Z');
const ms = (iso: string) => new Date(iso).getTime();

describe('webhook queue: processing, fencing, de-duplication, retention, replay and listing', function () {
  this.timeout(120_000);
  let ws: TestWorkspace;
  let admin: Principal;
  const clock = new MovableClock(new Date('2091-01-01T00:00:00Z'));
  /** What the pipeline was asked to begin, and what it refused. */
  const seen = { begins: 0, refusals: [] as unknown[] };
  /** One processing attempt: the task runs the delivery, the queue settles it. */
  let service: {
    process(d: QueuedDelivery): Promise<string>;
    renew(d: QueuedDelivery): Promise<boolean>;
    accept(
      agent: Agent,
      hook: Webhook,
      sent: Omit<WebhookRequest, 'header' | 'contentLength' | 'body'> & { rawBody: Buffer },
    ): Promise<{ delivery: WebhookDeliverySummary; duplicate: boolean }>;
  } & Pick<WebhookDeliveriesService, 'list' | 'replay' | 'prune' | 'dropBodies'>;

  const repos = () => h().service.store.repos;
  const gql = (query: string, variables: Record<string, unknown>) => gqlOk(ws.adminToken, query, variables);

  /** The harness's call lifecycle, counting the runs begun and keeping the refusals. */
  function countingPipeline(pipeline: UnattendedRuns): UnattendedRuns {
    const counting = Object.create(pipeline) as UnattendedRuns;
    counting.begin = async (...args) => {
      seen.begins++;
      try {
        return await pipeline.begin(...args);
      } catch (err) {
        seen.refusals.push(err);
        throw err;
      }
    };
    return counting;
  }

  /** An agent with one webhook integration per script. */
  async function agentWith(scripts: Record<string, string>): Promise<{ agent: Agent; hooks: Record<string, Webhook> }> {
    const id = await createAgent(ws.adminToken, { name: 'Queue' });
    for (const [integration, script] of Object.entries(scripts)) {
      await gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
        a: id,
        i: { integration, handler: { script } },
      });
    }
    const hooks = Object.fromEntries((await repos().webhooks.listByAgents([id])).map((w) => [w.integration, w]));
    return { agent: await loadAgent(id), hooks };
  }

  /** A delivery row as a claim leaves it: RUNNING, first attempt, its lease far away; as stored, body included. */
  async function insertDelivery(hook: Webhook, over: Partial<WebhookDelivery> = {}): Promise<WebhookDelivery> {
    const now = clock.now();
    const stored = await repos().deliveries.insert({
      id: newId('whd'),
      agentId: hook.agentId,
      webhookId: hook.id,
      integration: hook.integration,
      senderDeliveryId: null,
      dedupeKey: null,
      replayOf: null,
      method: 'POST',
      path: `/agents/${hook.agentId}/webhook/${hook.integration}`,
      query: {},
      headers: { 'content-type': 'application/json' },
      rawBody: Buffer.from(JSON.stringify({ event: 'order.paid' })),
      bodyDroppedAt: null,
      status: 'RUNNING',
      attempts: 1,
      failures: 0,
      lastError: null,
      runId: null,
      nextAttemptAt: now,
      lockedUntil: FAR_LEASE,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      ...over,
    });
    return row(stored.id);
  }

  async function row(id: string): Promise<WebhookDelivery> {
    const d = await repos().deliveries.get(id);
    if (!d) throw new Error(`no delivery ${id}`);
    return d;
  }

  /** What a claim by another worker does to the row: RUNNING again, the next attempt, a new lease. */
  async function claimAgain(id: string, extra: Record<string, unknown> = {}): Promise<WebhookDelivery> {
    const d = await row(id);
    await h()
      .db('webhook_deliveries')
      .where({ id })
      .update({ status: 'RUNNING', attempts: d.attempts + 1, locked_until: FAR_LEASE, ...extra });
    return row(id);
  }

  function inbound(
    headers: Record<string, string>,
    body: unknown,
  ): Omit<WebhookRequest, 'header' | 'contentLength' | 'body'> & { rawBody: Buffer } {
    return {
      method: 'POST',
      path: '/hook',
      query: {},
      headers: { 'content-type': 'application/json', ...headers },
      rawBody: Buffer.from(JSON.stringify(body)),
    };
  }

  /** Deliveries the queue reported failed for good (the `webhook.delivery.failed` event's source). */
  const failedForGood: { id: string; error: string | null }[] = [];

  before(async () => {
    ws = await newWorkspace();
    admin = { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' };
    const { secrets, calls: pipeline } = h().service.services;
    const { store } = h().service;
    const queued = { onQueued: () => {} };
    const task = new WebhookDeliveryTask(store, countingPipeline(pipeline));
    const queue = deliveryQueue(store.repos.deliveries, clock, { leaseMs: 30_000, random: () => 0.5 }, (d, error) =>
      failedForGood.push({ id: d.id, error }),
    );
    const receipt = new WebhookReceiptService(store, clock, secrets, queued);
    const deliveries = new WebhookDeliveriesService(store, clock, queued);
    service = {
      process: async (d) => queue.settle(d, await task.run(d)),
      renew: (d) => queue.renew(d),
      async accept(agent, hook, sent) {
        const r = await receipt.receive(agent.id, hook.integration, {
          ...sent,
          header: (name) => sent.headers[name.toLowerCase()] as string | undefined,
          contentLength: sent.rawBody.length,
          body: (async function* () {
            yield sent.rawBody;
          })(),
        });
        if ('refused' in r) throw r.refused;
        if ('challenge' in r.answer) throw new Error('a challenge, not a delivery');
        return r.answer;
      },
      list: (p, agentId, input) => deliveries.list(p, agentId, input),
      replay: (p, id) => deliveries.replay(p, id),
      prune: (days) => deliveries.prune(days),
      dropBodies: (days) => deliveries.dropBodies(days),
    };
  });

  beforeEach(() => {
    clock.set('2091-01-01T00:00:00Z');
    seen.begins = 0;
    seen.refusals = [];
  });

  describe('process', () => {
    it('marks a delivery whose run succeeds DONE, with the run id and the completion time, and releases its lease', async () => {
      const { hooks } = await agentWith({ ok: 'return { ok: true, event: input.event };' });
      const d = await insertDelivery(hooks.ok!);
      clock.advance(5_000);
      expect(await service.process(d)).to.equal('done');
      const after = await row(d.id);
      expect(after).to.include({ status: 'DONE', attempts: 1, failures: 0, lastError: null, lockedUntil: null });
      expect(after.runId).to.match(/^run_/);
      expect(after.completedAt?.toISOString()).to.equal(clock.now().toISOString());
      expect(after.updatedAt.toISOString()).to.equal(clock.now().toISOString());
    });

    it("retries a delivery whose script throws 10 s later (random 0.5: no jitter), counting one failure and keeping the script's message", async () => {
      const { hooks } = await agentWith({ boom: 'throw new Error("downstream is down");' });
      const d = await insertDelivery(hooks.boom!);
      expect(await service.process(d)).to.equal('retry');
      const after = await row(d.id);
      expect(after).to.include({ status: 'PENDING', attempts: 1, failures: 1, lockedUntil: null, completedAt: null });
      expect(after.nextAttemptAt.getTime()).to.equal(clock.now().getTime() + 10_000);
      expect(after.lastError).to.include('downstream is down');
      expect(after.runId, 'the failed run is named').to.match(/^run_/);
    });

    it(`fails a delivery for good at its ${MAX_DELIVERY_ATTEMPTS}th failure, after waiting out the schedule, and keeps its last error`, async () => {
      const { hooks } = await agentWith({
        always: 'throw new Error("attempt " + request.delivery.attempt + " failed");',
      });
      let d = await insertDelivery(hooks.always!);
      for (let failure = 1; failure < MAX_DELIVERY_ATTEMPTS; failure++) {
        expect(await service.process(d), `attempt ${failure}`).to.equal('retry');
        const pending = await row(d.id);
        expect(pending).to.include({ status: 'PENDING', failures: failure });
        expect(pending.lastError).to.include(`attempt ${failure} failed`);
        expect(pending.nextAttemptAt.getTime() - clock.now().getTime(), `delay after failure ${failure}`).to.equal(
          RETRY_DELAYS_SECONDS[failure - 1]! * 1000,
        );
        clock.set(pending.nextAttemptAt.toISOString()); // due now: the next claim takes it
        d = await claimAgain(d.id);
      }
      expect(d.attempts).to.equal(MAX_DELIVERY_ATTEMPTS);
      expect(failedForGood.some((f) => f.id === d.id)).to.equal(false);
      expect(await service.process(d)).to.equal('failed');
      expect(failedForGood.filter((f) => f.id === d.id)).to.have.length(1);
      expect(failedForGood.find((f) => f.id === d.id)!.error).to.include(`attempt ${MAX_DELIVERY_ATTEMPTS} failed`);
      const failed = await row(d.id);
      expect(failed).to.include({
        status: 'FAILED',
        attempts: MAX_DELIVERY_ATTEMPTS,
        failures: MAX_DELIVERY_ATTEMPTS,
        lockedUntil: null,
      });
      expect(failed.lastError).to.include(`attempt ${MAX_DELIVERY_ATTEMPTS} failed`);
      expect(failed.runId).to.match(/^run_/);
      expect(failed.completedAt?.toISOString()).to.equal(clock.now().toISOString());
      expect(seen.begins).to.equal(MAX_DELIVERY_ATTEMPTS);
      expect(clock.now().getTime() - ms('2091-01-01T00:00:00Z'), 'the schedule in all').to.equal(13_360_000);
    });

    it("defers a delivery while the agent's daily credit limit refuses its run, to the limit's Retry-After, without counting a failure", async () => {
      const { agent, hooks } = await agentWith({ capped: 'return 1;' });
      await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: agent.id });
      const d = await insertDelivery(hooks.capped!, { attempts: 3, failures: 2, lastError: 'earlier failure' });
      expect(await service.process(d)).to.equal('deferred');
      const err = seen.refusals[0];
      expect(err).to.be.instanceOf(LimitExceeded);
      const { retryAfterSeconds, message } = err as LimitExceeded;
      expect(retryAfterSeconds).to.be.above(0);
      const after = await row(d.id);
      expect(after).to.include({
        status: 'PENDING',
        attempts: 3,
        failures: 2,
        lastError: message,
        runId: null,
        lockedUntil: null,
        completedAt: null,
      });
      expect(after.nextAttemptAt.getTime()).to.equal(clock.now().getTime() + retryAfterSeconds * 1000);
    });

    it('fails a delivery at once when an input guardrail refuses it: the same payload would be refused again', async () => {
      const { agent, hooks } = await agentWith({ guarded: 'return "ran";' });
      await gql('mutation($a: ID!, $i: GuardrailsInput!) { setGuardrails(agentId: $a, input: $i) { id } }', {
        a: agent.id,
        i: { blockedInputPatterns: ['wire the money'] },
      });
      const d = await insertDelivery(hooks.guarded!, {
        rawBody: Buffer.from(JSON.stringify({ note: 'please wire the money today' })),
      });
      expect(await service.process(d)).to.equal('failed');
      const after = await row(d.id);
      expect(after).to.include({ status: 'FAILED', failures: 1, runId: null, lockedUntil: null });
      expect(after.lastError).to.equal("Input was refused by this agent's guardrails (blocked content)");
      expect(after.completedAt?.toISOString()).to.equal(clock.now().toISOString());
    });

    it(`fails without running a delivery reclaimed after ${MAX_DELIVERY_ATTEMPTS} failures (its instance died on the last attempt), without counting another`, async () => {
      const { hooks } = await agentWith({ crashy: 'return "ran";' });
      // The claim that took back the expired lease counted the lost attempt: failures reached the maximum.
      const d = await insertDelivery(hooks.crashy!, {
        attempts: MAX_DELIVERY_ATTEMPTS + 1,
        failures: MAX_DELIVERY_ATTEMPTS,
        runId: 'run_lost',
        lastError: 'attempt 7 failed',
      });
      expect(await service.process(d)).to.equal('failed');
      expect(seen.begins, 'nothing ran').to.equal(0);
      const after = await row(d.id);
      expect(after).to.include({
        status: 'FAILED',
        failures: MAX_DELIVERY_ATTEMPTS,
        runId: 'run_lost',
        lockedUntil: null,
      });
      expect(after.lastError).to.equal(
        `Stopped after ${MAX_DELIVERY_ATTEMPTS} attempts; the last did not finish (the instance running it stopped)`,
      );
    });

    it('runs nothing for a delivery whose integration was removed while it was claimed: its deliveries went with it', async () => {
      const { hooks } = await agentWith({ gone: 'return "ran";' });
      const d = await insertDelivery(hooks.gone!);
      await gql('mutation($id: ID!) { removeWebhook(id: $id) }', { id: hooks.gone!.id });
      expect(await repos().deliveries.get(d.id)).to.equal(null);
      expect(await service.process(d)).to.equal('lost');
      expect(seen.begins).to.equal(0);
    });
  });

  describe('lost attempts', () => {
    /** What a claim at `now` would take, seen inside a transaction that is rolled back (other tests' rows stay as they are). */
    async function claimableAt(now: Date): Promise<WebhookDeliverySummary[]> {
      const rollback = new Error('rollback');
      let claimed: WebhookDeliverySummary[] = [];
      await h()
        .service.store.transaction(async (r) => {
          claimed = await r.deliveries.claim(now, new Date(now.getTime() + 30_000), 10_000);
          throw rollback;
        })
        .catch((err: unknown) => {
          if (err !== rollback) throw err;
        });
      return claimed;
    }

    it('takes back a delivery whose lease ran out on the retry schedule of one more failure, counted from the end of the lease', async () => {
      const { hooks } = await agentWith({ cut: 'return "ran";' });
      const leaseEnd = new Date('2998-06-01T00:00:00Z');
      const at = (seconds: number) => new Date(leaseEnd.getTime() + seconds * 1000);
      const first = await insertDelivery(hooks.cut!, {
        lockedUntil: leaseEnd,
        nextAttemptAt: new Date('2091-01-01T00:00:00Z'),
      });
      const third = await insertDelivery(hooks.cut!, {
        attempts: 3,
        failures: 2,
        lockedUntil: leaseEnd,
        nextAttemptAt: new Date('2091-01-01T00:00:00Z'),
      });
      const last = await insertDelivery(hooks.cut!, {
        attempts: MAX_DELIVERY_ATTEMPTS,
        failures: MAX_DELIVERY_ATTEMPTS - 1,
        lockedUntil: leaseEnd,
        nextAttemptAt: new Date('2091-01-01T00:00:00Z'),
      });
      const ids = (claimed: WebhookDeliverySummary[]) =>
        claimed
          .map((d) => d.id)
          .filter((id) => [first.id, third.id, last.id].includes(id))
          .sort();

      // The schedule is used up for the last one: it is taken back when its lease ends, to be marked FAILED.
      expect(ids(await claimableAt(at(0)))).to.deep.equal([last.id]);
      expect(ids(await claimableAt(at(RETRY_DELAYS_SECONDS[0] - 0.001)))).to.deep.equal([last.id]);
      const taken = await claimableAt(at(RETRY_DELAYS_SECONDS[0]));
      expect(ids(taken)).to.deep.equal([first.id, last.id].sort());
      expect(taken.find((d) => d.id === first.id)).to.include({ status: 'RUNNING', attempts: 2, failures: 1 });
      expect(ids(await claimableAt(at(RETRY_DELAYS_SECONDS[2] - 0.001)))).to.not.include(third.id);
      expect(ids(await claimableAt(at(RETRY_DELAYS_SECONDS[2])))).to.include(third.id);

      // Nothing was taken for real; the rows are left under a lease no worker reaches.
      for (const d of [first, third, last])
        await h().db('webhook_deliveries').where({ id: d.id }).update({ locked_until: FAR_LEASE });
      expect((await row(first.id)).attempts).to.equal(1);
    });
  });

  describe('fencing', () => {
    it('renews the lease only for the attempt that holds it', async () => {
      const { hooks } = await agentWith({ ok: 'return 1;' });
      const d = await insertDelivery(hooks.ok!);
      expect(await service.renew(d)).to.equal(true);
      expect((await row(d.id)).lockedUntil?.getTime()).to.equal(clock.now().getTime() + 30_000);
      await claimAgain(d.id, { failures: 1 });
      expect(await service.renew(d), 'a stale attempt').to.equal(false);
      expect((await row(d.id)).lockedUntil?.toISOString()).to.equal(FAR_LEASE.toISOString());
    });

    it("an attempt whose delivery was claimed again settles nothing ('lost'): the newer attempt's state is untouched", async () => {
      const { hooks } = await agentWith({ ok: 'return 1;' });
      const stale = await insertDelivery(hooks.ok!);
      const newer = await claimAgain(stale.id, { failures: 1 });
      expect(await service.process(stale)).to.equal('lost');
      expect(await row(stale.id)).to.deep.equal(newer);

      // The newer attempt settles; the stale one still cannot overwrite it.
      clock.advance(1_000);
      expect(await service.process(newer)).to.equal('done');
      const done = await row(stale.id);
      expect(done).to.include({ status: 'DONE', attempts: 2, failures: 1 });
      clock.advance(1_000);
      expect(await service.process(stale)).to.equal('lost');
      expect(await row(stale.id)).to.deep.equal(done);
    });

    it('a delivery already settled cannot be settled again by the same attempt', async () => {
      const { hooks } = await agentWith({ boom: 'throw new Error("no");' });
      const d = await insertDelivery(hooks.boom!);
      expect(await service.process(d)).to.equal('retry');
      const settled = await row(d.id);
      expect(await service.process(d)).to.equal('lost');
      expect(await row(d.id)).to.deep.equal(settled);
    });
  });

  describe('accept: de-duplication by the sender id', () => {
    it('a redelivery with the same sender id within 24 hours is a duplicate of the first delivery; after 24 hours it is a new delivery', async () => {
      const { agent, hooks } = await agentWith({ gh: 'return 1;' });
      const sent = inbound({ 'x-github-delivery': 'gh-72d4' }, { action: 'opened' });
      const first = await service.accept(agent, hooks.gh!, sent);
      expect(first.duplicate).to.equal(false);
      expect(first.delivery).to.include({
        status: 'PENDING',
        attempts: 0,
        failures: 0,
        senderDeliveryId: 'gh-72d4',
        dedupeKey: 'gh-72d4',
      });
      expect(first.delivery.nextAttemptAt.toISOString()).to.equal(clock.now().toISOString());

      clock.advance(DEDUPE_WINDOW_MS); // exactly 24 hours later: still within the window
      const again = await service.accept(agent, hooks.gh!, sent);
      expect(again).to.include({ duplicate: true });
      expect(again.delivery.id).to.equal(first.delivery.id);
      expect((await repos().deliveries.list(agent.id, { first: 10 })).map((x) => x.id)).to.deep.equal([
        first.delivery.id,
      ]);

      clock.advance(1);
      const later = await service.accept(agent, hooks.gh!, sent);
      expect(later.duplicate).to.equal(false);
      expect(later.delivery.id).not.to.equal(first.delivery.id);
      expect(later.delivery).to.include({ senderDeliveryId: 'gh-72d4', dedupeKey: 'gh-72d4' });
      const old = await row(first.delivery.id);
      expect(old, 'the old delivery keeps its sender id but gives up the key').to.include({
        senderDeliveryId: 'gh-72d4',
        dedupeKey: null,
      });

      // The key now belongs to the new delivery.
      clock.advance(60_000);
      expect((await service.accept(agent, hooks.gh!, sent)).delivery.id).to.equal(later.delivery.id);
    });

    it('de-duplicates per integration, by every sender id source, and never deliveries without a sender id', async () => {
      const { agent, hooks } = await agentWith({ one: 'return 1;', two: 'return 1;' });
      const a = await service.accept(agent, hooks.one!, inbound({ 'webhook-id': 'msg_1' }, {}));
      expect(
        (await service.accept(agent, hooks.two!, inbound({ 'webhook-id': 'msg_1' }, {}))).duplicate,
        'another integration',
      ).to.equal(false);
      expect(
        (await service.accept(agent, hooks.one!, inbound({ 'svix-id': 'msg_1' }, {}))).delivery.id,
        'same id from svix-id',
      ).to.equal(a.delivery.id);
      const stripe = await service.accept(agent, hooks.one!, inbound({}, { object: 'event', id: 'evt_9' }));
      expect(
        (await service.accept(agent, hooks.one!, inbound({ 'idempotency-key': 'evt_9' }, {}))).delivery.id,
      ).to.equal(stripe.delivery.id);
      const anonymous = [
        await service.accept(agent, hooks.one!, inbound({}, { n: 1 })),
        await service.accept(agent, hooks.one!, inbound({}, { n: 1 })),
      ];
      expect(anonymous.map((x) => x.duplicate)).to.deep.equal([false, false]);
      expect(anonymous[0]!.delivery.id).not.to.equal(anonymous[1]!.delivery.id);
      expect(anonymous[0]!.delivery).to.include({ senderDeliveryId: null, dedupeKey: null });
    });

    it('stores the request headers without credential values', async () => {
      const { agent, hooks } = await agentWith({ h: 'return 1;' });
      const { delivery } = await service.accept(
        agent,
        hooks.h!,
        inbound({ Authorization: 'Bearer secret-token-1', 'X-Custom': 'kept' }, {}),
      );
      const stored = await row(delivery.id);
      expect(stored.headers).to.include({ 'x-custom': 'kept', 'content-type': 'application/json' });
      expect(JSON.stringify(stored.headers)).not.to.include('secret-token-1');
    });
  });

  describe('prune', () => {
    it('deletes done and failed deliveries older than 30 days, never a pending or running one', async () => {
      // A clock far in the past, so that no delivery of another test is older than the cut-off.
      clock.set('2001-03-01T00:00:00Z');
      const cutoff = '2001-01-30T00:00:00.000Z';
      const { hooks } = await agentWith({ old: 'return 1;' });
      const at = (iso: string) => ({ createdAt: new Date(iso), updatedAt: new Date(iso) });
      const oldDone = await insertDelivery(hooks.old!, {
        status: 'DONE',
        lockedUntil: null,
        ...at('2001-01-01T00:00:00Z'),
      });
      const oldFailed = await insertDelivery(hooks.old!, {
        status: 'FAILED',
        lockedUntil: null,
        ...at('2001-01-29T23:59:59.999Z'),
      });
      const atCutoff = await insertDelivery(hooks.old!, { status: 'DONE', lockedUntil: null, ...at(cutoff) });
      const recent = await insertDelivery(hooks.old!, {
        status: 'FAILED',
        lockedUntil: null,
        ...at('2001-02-20T00:00:00Z'),
      });
      // Pending for years: waiting far in the future, so the harness worker never takes it.
      const pending = await insertDelivery(hooks.old!, {
        status: 'PENDING',
        lockedUntil: null,
        nextAttemptAt: FAR_LEASE,
        ...at('2000-01-01T00:00:00Z'),
      });
      const running = await insertDelivery(hooks.old!, { status: 'RUNNING', ...at('2000-01-01T00:00:00Z') });

      expect(await service.prune(30)).to.equal(2);
      for (const gone of [oldDone, oldFailed])
        expect(await repos().deliveries.get(gone.id), gone.status).to.equal(null);
      for (const kept of [atCutoff, recent, pending, running])
        expect(await repos().deliveries.get(kept.id), kept.status).not.to.equal(null);
    });

    it('drops the bodies of finished deliveries completed before the cut-off, batch after batch, keeping the rows; never a body still needed', async () => {
      // A clock far in the past, so that no delivery of another test finished before the cut-off.
      clock.set('2001-06-01T00:00:00Z');
      const cutoff = new Date('2001-05-25T00:00:00Z');
      const { hooks } = await agentWith({ bodies: 'return 1;' });
      const finishedAt = (iso: string) => ({ lockedUntil: null, completedAt: new Date(iso) });
      const old: WebhookDelivery[] = [];
      for (let i = 0; i < 5; i++)
        old.push(
          await insertDelivery(hooks.bodies!, {
            status: i % 2 ? 'FAILED' : 'DONE',
            ...finishedAt('2001-05-01T00:00:00Z'),
          }),
        );
      const atCutoff = await insertDelivery(hooks.bodies!, { status: 'DONE', ...finishedAt(cutoff.toISOString()) });
      // Not finished: whatever their dates say, their bodies are still to be run.
      const pending = await insertDelivery(hooks.bodies!, {
        status: 'PENDING',
        nextAttemptAt: FAR_LEASE,
        ...finishedAt('2001-05-01T00:00:00Z'),
      });
      const running = await insertDelivery(hooks.bodies!, {
        status: 'RUNNING',
        completedAt: new Date('2001-05-01T00:00:00Z'),
      });

      expect(await repos().deliveries.dropBodies(cutoff, clock.now(), 2), 'three batches: 2 + 2 + 1').to.equal(5);
      for (const d of old) {
        const after = await row(d.id);
        expect(after.rawBody.length, d.id).to.equal(0);
        expect(after.bodyDroppedAt?.toISOString()).to.equal('2001-06-01T00:00:00.000Z');
        expect({ ...after, rawBody: d.rawBody, bodyDroppedAt: null }, 'nothing else changes').to.deep.equal(d);
      }
      for (const kept of [atCutoff, pending, running]) expect(await row(kept.id), kept.status).to.deep.equal(kept);
      // A minute later the one finished exactly at the cut-off is past its 7 days; the dropped ones are not dropped again.
      clock.advance(60_000);
      expect(await service.dropBodies(7)).to.equal(1);
      expect((await row(atCutoff.id)).bodyDroppedAt?.toISOString()).to.equal('2001-06-01T00:01:00.000Z');
      expect((await row(old[0]!.id)).bodyDroppedAt?.toISOString()).to.equal('2001-06-01T00:00:00.000Z');
    });
  });

  describe('replay', () => {
    it('replays a failed delivery as a new pending delivery naming the original, without its de-duplication key', async () => {
      const { hooks } = await agentWith({ r: 'return 1;' });
      const original = await insertDelivery(hooks.r!, {
        status: 'FAILED',
        attempts: 8,
        failures: 8,
        lastError: 'gave up',
        runId: 'run_old',
        senderDeliveryId: 'evt_replay',
        dedupeKey: 'evt_replay',
        lockedUntil: null,
        completedAt: clock.now(),
        headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
        query: { ref: 'main' },
        rawBody: Buffer.from('{"ref":"refs/heads/main"}'),
      });
      clock.advance(3_600_000);
      const copy = await row((await service.replay(admin, original.id)).id);
      expect(copy.id).not.to.equal(original.id);
      expect(copy).to.include({
        replayOf: original.id,
        dedupeKey: null,
        senderDeliveryId: 'evt_replay',
        status: 'PENDING',
        attempts: 0,
        failures: 0,
        lastError: null,
        runId: null,
        lockedUntil: null,
        completedAt: null,
        webhookId: original.webhookId,
        method: original.method,
      });
      expect(copy.headers).to.deep.equal(original.headers);
      expect(copy.query).to.deep.equal(original.query);
      expect(copy.rawBody.equals(original.rawBody)).to.equal(true);
      expect(copy.nextAttemptAt.toISOString()).to.equal(clock.now().toISOString());
      expect(copy.createdAt.toISOString()).to.equal(clock.now().toISOString());
      expect(await row(original.id), 'the original is unchanged').to.deep.equal(original);
    });

    it('a member of another workspace cannot replay (NotFound, as for an unknown id), and nothing is stored', async () => {
      const { agent, hooks } = await agentWith({ r: 'return 1;' });
      const original = await insertDelivery(hooks.r!, { status: 'FAILED', lockedUntil: null });
      const other = await newWorkspace();
      const outsider: Principal = {
        kind: 'member',
        memberId: other.adminId,
        workspaceId: other.workspaceId,
        role: 'ADMIN',
      };
      const err = await refusal(() => service.replay(outsider, original.id));
      expect(err).to.be.instanceOf(NotFound);
      expect(err.message).to.equal(`Webhook delivery '${original.id}' not found`);
      expect(await refusal(() => service.replay(admin, 'whd_unknown'))).to.be.instanceOf(NotFound);
      expect((await repos().deliveries.list(agent.id, { first: 10 })).map((x) => x.id)).to.deep.equal([original.id]);
    });
  });

  describe('list', () => {
    let agent: Agent;
    let hooks: Record<string, Webhook>;
    /** The agent's deliveries as the list must return them: newest first, ties by id, descending. */
    let expected: WebhookDelivery[];

    before(async () => {
      ({ agent, hooks } = await agentWith({ alpha: 'return 1;', beta: 'return 1;' }));
      const rows: WebhookDelivery[] = [];
      const add = async (hook: Webhook, status: WebhookDelivery['status'], iso: string) => {
        const over = status === 'RUNNING' ? {} : { lockedUntil: null, nextAttemptAt: FAR_LEASE };
        rows.push(await insertDelivery(hook, { status, createdAt: new Date(iso), updatedAt: new Date(iso), ...over }));
      };
      await add(hooks.alpha!, 'DONE', '2091-02-01T00:01:00Z');
      await add(hooks.alpha!, 'FAILED', '2091-02-01T00:02:00Z');
      await add(hooks.beta!, 'DONE', '2091-02-01T00:03:00Z');
      await add(hooks.alpha!, 'PENDING', '2091-02-01T00:04:00Z');
      await add(hooks.alpha!, 'RUNNING', '2091-02-01T00:05:00Z');
      // Three created in the same millisecond: the cursor must tell them apart by id.
      await add(hooks.alpha!, 'DONE', '2091-02-01T00:06:00Z');
      await add(hooks.beta!, 'DONE', '2091-02-01T00:06:00Z');
      await add(hooks.alpha!, 'DONE', '2091-02-01T00:06:00Z');
      expected = rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    });

    /** Every page of a listing, following endCursor until hasNextPage is false. */
    async function allPages(
      first: number,
      filter: { integration?: string; status?: WebhookDelivery['status'] } = {},
    ): Promise<string[][]> {
      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await service.list(admin, agent.id, { first, after, ...filter });
        pages.push(page.nodes.map((n) => n.id));
        if (!page.hasNextPage) return pages;
        expect(page.endCursor).to.be.a('string');
        after = page.endCursor!;
        expect(pages.length, 'pages end').to.be.below(20);
      }
    }

    it("lists all of an agent's deliveries newest first, in pages that neither repeat nor skip one", async () => {
      const pages = await allPages(3);
      expect(pages.map((p) => p.length)).to.deep.equal([3, 3, 2]);
      expect(pages.flat()).to.deep.equal(expected.map((d) => d.id));
      expect((await allPages(1)).flat()).to.deep.equal(expected.map((d) => d.id));
      const whole = await service.list(admin, agent.id, { first: 8 });
      expect(whole.hasNextPage, 'exactly one full page').to.equal(false);
      expect(whole.endCursor).to.be.a('string');
    });

    it('filters by integration and by status, together or alone', async () => {
      const ids = (f: (d: WebhookDelivery) => boolean) => expected.filter(f).map((d) => d.id);
      expect((await allPages(2, { integration: 'alpha' })).flat()).to.deep.equal(ids((d) => d.integration === 'alpha'));
      expect((await allPages(2, { integration: 'beta', status: 'DONE' })).flat()).to.deep.equal(
        ids((d) => d.integration === 'beta'),
      );
      expect((await allPages(2, { status: 'DONE' })).flat()).to.deep.equal(ids((d) => d.status === 'DONE'));
      expect((await allPages(2, { integration: 'alpha', status: 'FAILED' })).flat()).to.deep.equal(
        ids((d) => d.integration === 'alpha' && d.status === 'FAILED'),
      );
      expect((await allPages(2, { integration: 'beta', status: 'PENDING' })).flat()).to.deep.equal([]);
      const empty = await service.list(admin, agent.id, { first: 5, status: 'PENDING', integration: 'beta' });
      expect(empty).to.deep.equal({ nodes: [], endCursor: null, hasNextPage: false });
    });

    it('refuses an unknown integration (NotFound), a cursor it did not issue and a page size outside 1..200 (Invalid)', async () => {
      const unknown = await refusal(() => service.list(admin, agent.id, { first: 5, integration: 'gamma' }));
      expect(unknown).to.be.instanceOf(NotFound);
      expect(unknown.message).to.equal("Webhook integration 'gamma' not found");
      for (const after of [
        'not-a-cursor',
        Buffer.from('yesterday|whd_1').toString('base64url'),
        Buffer.from(`${new Date().toISOString()}|`).toString('base64url'),
      ]) {
        expect(await refusal(() => service.list(admin, agent.id, { first: 5, after })), after).to.be.instanceOf(
          Invalid,
        );
      }
      for (const first of [0, 201, 1.5])
        expect(await refusal(() => service.list(admin, agent.id, { first })), String(first)).to.be.instanceOf(Invalid);
      expect((await service.list(admin, agent.id, { first: 200 })).nodes).to.have.length(expected.length);
    });

    it("hides an agent's deliveries from a member of another workspace (NotFound)", async () => {
      const other = await newWorkspace();
      const outsider: Principal = {
        kind: 'member',
        memberId: other.adminId,
        workspaceId: other.workspaceId,
        role: 'ADMIN',
      };
      expect(await refusal(() => service.list(outsider, agent.id, { first: 5 }))).to.be.instanceOf(NotFound);
    });
  });
});
