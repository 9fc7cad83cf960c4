import { expect } from 'chai';
import { Writable } from 'node:stream';
import { newId } from '../../src/domain/ids.js';
import { conversationIdOf } from '../../src/domain/surfaces/a2a.service.js';
import { createLogger } from '../../src/infra/logger.js';
import { buildService, type Service } from '../../src/server.js';
import type { WebhookDelivery, WebhookDeliverySummary } from '../../src/domain/webhooks/webhook.entities.js';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { manualTime, type ManualTime } from '../helpers/movable-clock.js';
import { loadAgent } from '../helpers/runtime.js';

// The service's housekeeping timer, driven by hand: a second service on the harness database whose
// clock and timers are a ManualTime, so days pass without waiting. The clock starts a month in the
// past, so the pruning it triggers on the shared database can reach no other test's entries.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('housekeeping timer', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let time: ManualTime;
  let service: Service;
  let logLines: string[];

  before(async () => {
    ws = await newWorkspace();
    await gqlOk(ws.adminToken, 'mutation { updateWorkspaceSettings(input: {activityRetentionDays: 7}) { id } }');
  });

  beforeEach(async () => {
    time = manualTime(new Date(Date.now() - 30 * DAY));
    logLines = [];
    service = await buildService(
      { ...h().config, webhookBodyRetentionDays: 7, a2aTaskRetentionDays: 10 },
      {
        db: h().db,
        skipMigrations: true,
        clock: time.clock,
        scheduler: time.scheduler,
        housekeepingMs: DAY,
        logger: createLogger('info', new Writable({ write: (c, _e, cb) => (logLines.push(String(c)), cb()) })),
      },
    );
  });
  afterEach(async () => service?.close());

  /** Housekeeping reports its own failures only in the log: a failed pass must not pass silently. */
  const expectNoFailedRun = () => expect(logLines.filter((l) => /housekeeping failed/.test(l))).to.deep.equal([]);

  async function statuses(agentId: string): Promise<number[]> {
    const d = await gqlOk(
      ws.adminToken,
      'query($id: ID!) { agent(id: $id) { activity(first: 10) { nodes { status } } } }',
      { id: agentId },
    );
    return (d.agent.activity.nodes as { status: number }[]).map((n) => n.status).sort();
  }

  /** Records an entry dated by the manual clock, through the service's own activity log. */
  async function record(agentId: string, status: number): Promise<void> {
    service.services.activityLog.writeEntry(await loadAgent(agentId), { surface: 'HTTP_API', status });
    await service.services.activityLog.flush();
  }

  it('prunes activity entries once they are past the workspace retention, at its next daily run; newer entries stay', async () => {
    const agentId = await createAgent(ws.adminToken);
    await record(agentId, 1);
    await time.advance(DAY);
    await record(agentId, 2);

    // Day 7: entry 1 is exactly at the 7-day retention, not past it.
    await time.advance(6 * DAY);
    expect(await statuses(agentId)).to.deep.equal([1, 2]);

    // Just before the day-8 run entry 1 is past retention, but nothing has run yet.
    await time.advance(DAY - 1);
    expect(await statuses(agentId)).to.deep.equal([1, 2]);

    // The day-8 run prunes entry 1; entry 2 is exactly at the retention and stays.
    await time.advance(1);
    expect(await statuses(agentId)).to.deep.equal([2]);

    // The very next run, a day later (not two), prunes entry 2.
    await time.advance(DAY);
    expect(await statuses(agentId)).to.deep.equal([]);
    expectNoFailedRun();
  });

  it('deletes slot leases that expired by its run, and keeps the leases still running', async () => {
    const agentId = await createAgent(ws.adminToken);
    const slots = h().service.store.repos.slots;
    const start = time.clock.now().getTime();
    // What a crashed instance leaves behind: leases nobody renews or releases.
    const lease = async (expiresInMs: number) => {
      const id = newId('slot');
      await slots.insert({
        id,
        agentId,
        workspaceId: ws.workspaceId,
        teamId: null,
        instanceId: 'crashed-instance',
        reservedCredits: 0,
        expiresAt: new Date(start + expiresInMs),
      });
      return id;
    };
    const expiresSoon = await lease(30_000);
    const expiresAfterFirstRun = await lease(DAY + 30_000);
    const longLived = await lease(10 * DAY);
    const leases = async () =>
      ((await h().db('run_slots').where({ agent_id: agentId }).select('id')) as { id: string }[])
        .map((r) => r.id)
        .sort();

    await time.advance(DAY - 1);
    expect(await leases()).to.deep.equal([expiresSoon, expiresAfterFirstRun, longLived].sort());

    await time.advance(1);
    expect(await leases()).to.deep.equal([expiresAfterFirstRun, longLived].sort());

    await time.advance(DAY);
    expect(await leases()).to.deep.equal([longLived]);
    expectNoFailedRun();
  });
  it("drops a finished delivery's body once its replay window (7 days) has passed, at its next daily run; the row stays and replay is refused", async () => {
    const agentId = await createAgent(ws.adminToken);
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addWebhook(agentId: $a, input: {integration: "in", handler: {script: "return 1;"}}) { id } }',
      { a: agentId },
    );
    const [hook] = await service.store.repos.webhooks.listByAgents([agentId]);
    const start = time.clock.now();
    /** A delivery as the queue leaves it: finished at `completedAt`, or still waiting (null). */
    const delivery = (
      status: WebhookDelivery['status'],
      body: string,
      completedAt: Date | null,
    ): Promise<WebhookDeliverySummary> =>
      service.store.repos.deliveries.insert({
        id: newId('whd'),
        agentId,
        webhookId: hook!.id,
        integration: 'in',
        senderDeliveryId: null,
        dedupeKey: null,
        replayOf: null,
        method: 'POST',
        path: `/agents/${agentId}/webhook/in`,
        query: {},
        headers: { 'content-type': 'text/plain' },
        rawBody: Buffer.from(body),
        bodyDroppedAt: null,
        status,
        attempts: 1,
        failures: status === 'FAILED' ? 8 : 0,
        lastError: null,
        runId: null,
        // Waiting far in the future: the harness worker never takes the pending one.
        nextAttemptAt: status === 'PENDING' ? new Date('2999-01-01T00:00:00Z') : start,
        lockedUntil: null,
        createdAt: start,
        updatedAt: start,
        completedAt,
      });
    const done = await delivery('DONE', 'done body', start);
    const failed = await delivery('FAILED', 'failed body', new Date(start.getTime() + DAY));
    const pending = await delivery('PENDING', 'pending body', null);
    const nodes = async () => {
      const d = await gqlOk(
        ws.adminToken,
        'query($a: ID!) { webhookDeliveries(agentId: $a, first: 10) { nodes { id status body bodyBytes bodyDroppedAt } } }',
        { a: agentId },
      );
      return new Map(
        (
          d.webhookDeliveries.nodes as {
            id: string;
            status: string;
            body: string;
            bodyBytes: number;
            bodyDroppedAt: string | null;
          }[]
        ).map((n) => [n.id, n]),
      );
    };
    const replay = (id: string) =>
      gql(ws.adminToken, 'mutation($id: ID!) { replayWebhookDelivery(id: $id) { id } }', { id });

    // Day 7: the done delivery is exactly at its replay window, not past it.
    await time.advance(7 * DAY);
    expect([...(await nodes()).values()].map((n) => n.body).sort()).to.deep.equal([
      'done body',
      'failed body',
      'pending body',
    ]);

    // The day-8 run drops the done delivery's body and keeps its row.
    await time.advance(DAY);
    let now = await nodes();
    expect(now.size, 'no row is deleted').to.equal(3);
    expect(now.get(done.id)).to.deep.include({
      status: 'DONE',
      body: '',
      bodyBytes: 0,
      bodyDroppedAt: new Date(start.getTime() + 8 * DAY).toISOString(),
    });
    expect(now.get(failed.id)).to.deep.include({ body: 'failed body', bodyDroppedAt: null });
    const refused = await replay(done.id);
    expect(errorCode(refused)).to.equal('BAD_USER_INPUT');
    expect(refused.errors![0]!.message).to.equal(
      `Webhook delivery '${done.id}' cannot be replayed: its body was dropped on ${new Date(start.getTime() + 8 * DAY).toISOString()}, after its replay window; ask the sender to send it again`,
    );
    expect((await nodes()).size, 'a refused replay stores nothing').to.equal(3);
    expect(errorCode(await replay(failed.id)), 'a delivery still in its window can be replayed').to.equal(undefined);

    // The next run drops the failed delivery's body too; a pending delivery keeps its body however old.
    await time.advance(DAY);
    now = await nodes();
    expect(now.get(failed.id)).to.deep.include({
      status: 'FAILED',
      body: '',
      bodyDroppedAt: new Date(start.getTime() + 9 * DAY).toISOString(),
    });
    expect(now.get(pending.id)).to.deep.include({ body: 'pending body', bodyDroppedAt: null });
    expect(now.get(done.id)!.bodyDroppedAt, 'a body is dropped once').to.equal(
      new Date(start.getTime() + 8 * DAY).toISOString(),
    );
    expectNoFailedRun();
  });

  it('deletes final A2A tasks past A2A_TASK_RETENTION_DAYS (10 here) at its next daily run, with their conversations; working and newer ones stay', async () => {
    const agentId = await createAgent(ws.adminToken);
    const task = async (state: string, daysAgo: number) => {
      const id = newId('task');
      const at = new Date(time.clock.now().getTime() - daysAgo * DAY);
      await h()
        .db('a2a_tasks')
        .insert({
          id,
          agent_id: agentId,
          caller_ref: 'agentKey:k',
          context_id: id,
          state,
          task: JSON.stringify({ id }),
          created_at: at,
          updated_at: at,
        });
      return id;
    };
    const old = await task('TASK_STATE_COMPLETED', 11);
    const conversationId = conversationIdOf(agentId, 'agentKey:k', old);
    await h().db('conversations').insert({ id: conversationId, agent_id: agentId });
    await h()
      .db('chat_turns')
      .insert({ id: newId('turn'), conversation_id: conversationId, role: 'user', content: 'hello' });
    const working = await task('TASK_STATE_WORKING', 11);
    const newer = await task('TASK_STATE_FAILED', 9);
    const left = async () =>
      (await h().db('a2a_tasks').where({ agent_id: agentId }).select('id')).map((r: { id: string }) => r.id).sort();
    expect(await left()).to.deep.equal([old, working, newer].sort());
    await time.advance(DAY);
    expect(await left()).to.deep.equal([working, newer].sort());
    expect(await h().db('conversations').where({ id: conversationId }).first()).to.equal(undefined);
    expect(await h().db('chat_turns').where({ conversation_id: conversationId })).to.deep.equal([]);
    // The failed one reaches 10 days at the next run and goes once past them.
    await time.advance(2 * DAY);
    expect(await left()).to.deep.equal([working]);
    expect(logLines.some((l) => /"a2aTasks":1/.test(l))).to.equal(true);
    expectNoFailedRun();
  });
});
