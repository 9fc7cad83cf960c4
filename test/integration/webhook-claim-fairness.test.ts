import { expect } from 'chai';
import type { Knex } from 'knex';
import type { QueuedDelivery, WebhookDelivery } from '../../src/domain/webhooks/webhook.entities.js';
import { newId } from '../../src/domain/ids.js';
import { createLogger } from '../../src/infra/logger.js';
import { deliveryRepo } from '../../src/infra/store/delivery.repo.js';
import { webhookDeliveries } from '../../src/infra/store/rows/webhook-deliveries.js';
import { deliveryQueue } from '../../src/infra/queue/webhook-deliveries.js';
import { startJobWorker } from '../../src/infra/queue/job-queue.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { createAgent, gqlOk, h, newWorkspace } from '../helpers/harness.js';

// One agent's flood does not hold back another agent's webhooks: the claim is fair between agents.
// Every scenario runs in a transaction that is rolled back, with deliveries due in 1990: the
// harness's own queue worker never sees them (uncommitted), and nothing another test leaves is due
// that early, so a claim here takes only these rows.

const T0 = new Date('1990-01-01T00:00:00Z').getTime();
const BACKLOG = 2000;

class Rollback extends Error {}

/** Runs `fn` in a transaction of the harness database and rolls it back. */
async function rolledBack(fn: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
  await h()
    .db.transaction(async (trx) => {
      await fn(trx);
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
}

describe('webhook queue: a fair claim between agents', function () {
  this.timeout(120_000);
  /** Agents A, B and C, each with one webhook integration. */
  const hooks: Record<'A' | 'B' | 'C', { agentId: string; webhookId: string }> = {} as never;

  before(async () => {
    const ws = await newWorkspace();
    for (const name of ['A', 'B', 'C'] as const) {
      const agentId = await createAgent(ws.adminToken, { name });
      const webhookId = (
        await gqlOk(
          ws.adminToken,
          'mutation($a: ID!) { addWebhook(agentId: $a, input: { integration: "events", handler: { script: "return 1;" } }) { id } }',
          { a: agentId },
        )
      ).addWebhook.id as string;
      hooks[name] = { agentId, webhookId };
    }
  });

  /** `count` pending deliveries of agent `name`, due `dueMs` after T0 and 1 ms apart; their ids in that order. */
  async function queue(trx: Knex.Transaction, name: 'A' | 'B' | 'C', count: number, dueMs: number): Promise<string[]> {
    const { agentId, webhookId } = hooks[name];
    const rows: WebhookDelivery[] = Array.from({ length: count }, (_, i) => {
      const at = new Date(T0 + dueMs + i);
      return {
        id: newId('whd'),
        agentId,
        webhookId,
        integration: 'events',
        senderDeliveryId: null,
        dedupeKey: null,
        replayOf: null,
        method: 'POST',
        path: `/agents/${agentId}/webhook/events`,
        query: {},
        headers: { 'content-type': 'application/json' },
        rawBody: Buffer.from(JSON.stringify({ agent: name, i })),
        bodyDroppedAt: null,
        status: 'PENDING',
        attempts: 0,
        failures: 0,
        lastError: null,
        runId: null,
        nextAttemptAt: at,
        lockedUntil: null,
        createdAt: at,
        updatedAt: at,
        completedAt: null,
      };
    });
    for (let i = 0; i < rows.length; i += 500)
      await trx(webhookDeliveries.table).insert(rows.slice(i, i + 500).map(webhookDeliveries.toRow));
    return rows.map((r) => r.id);
  }

  it(`takes every agent's oldest due delivery before any agent's second: B's one delivery, queued after A's ${BACKLOG}, is in the first batch`, async () => {
    await rolledBack(async (trx) => {
      const a = await queue(trx, 'A', BACKLOG, 0);
      const c = await queue(trx, 'C', 3, BACKLOG + 10);
      const b = await queue(trx, 'B', 1, BACKLOG + 20);
      const now = new Date(T0 + 3_600_000);
      const claimed = await deliveryRepo(trx).claim(now, new Date(now.getTime() + 30_000), 10);
      // Turn 1 of each agent (oldest due first among them), then turn 2, and so on.
      expect(claimed.map((d) => d.id)).to.deep.equal([a[0], c[0], b[0], a[1], c[1], a[2], c[2], a[3], a[4], a[5]]);
      expect(claimed.every((d) => d.status === 'RUNNING' && d.attempts === 1)).to.equal(true);
      // What is left is A's backlog alone, still in its own order.
      const next = await deliveryRepo(trx).claim(now, new Date(now.getTime() + 30_000), 3);
      expect(next.map((d) => d.id)).to.deep.equal([a[6], a[7], a[8]]);
    });
  });

  it(`runs B's delivery before A's backlog of ${BACKLOG} has drained: the worker starts it in its first batch`, async () => {
    await rolledBack(async (trx) => {
      await queue(trx, 'A', BACKLOG, 0);
      const [b] = await queue(trx, 'B', 1, BACKLOG + 20);
      const deliveries = deliveryQueue(deliveryRepo(trx), new MovableClock(new Date(T0 + 3_600_000)), {
        leaseMs: 600_000,
        random: () => 0.5,
      });
      // The runs themselves are not the point: each attempt records which agent it was for and ends.
      const started: string[] = [];
      let seen: () => void = () => {};
      const bOrAll = new Promise<void>((resolve) => (seen = resolve));
      const task = {
        run: async (d: QueuedDelivery) => {
          started.push(d.id === b ? 'B' : 'A');
          if (d.id === b || started.length === BACKLOG + 1) seen();
          return { kind: 'done', runId: 'run_fair' } as const;
        },
      };
      const worker = startJobWorker(deliveries, task, createLogger('silent'), {
        concurrency: 4,
        pollMs: 10,
        leaseMs: 600_000,
      });
      try {
        await bOrAll;
      } finally {
        await worker.stop();
      }
      expect(started.indexOf('B'), `B started after ${started.indexOf('B')} of A's deliveries`).to.be.within(0, 3);
      expect(started.filter((x) => x === 'A').length, "A's backlog has not drained").to.be.below(BACKLOG);
    });
  });
});
