import { expect } from 'chai';
import type { Knex } from 'knex';
import type { ChannelOutcome } from '../../src/domain/channels/channel-outcome.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import type { WebhookDelivery } from '../../src/domain/webhooks/webhook.entities.js';
import type { WorkQueue } from '../../src/domain/webhooks/webhook.ports.js';
import { newId } from '../../src/domain/ids.js';
import { messageQueue } from '../../src/infra/queue/channel-messages.js';
import { createLogger } from '../../src/infra/logger.js';
import { channelMessageRepo } from '../../src/infra/store/channel-message.repo.js';
import { deliveryRepo } from '../../src/infra/store/delivery.repo.js';
import { knexStore } from '../../src/infra/store/knex-store.js';
import { messages } from '../../src/infra/store/rows/messages.js';
import { webhookDeliveries } from '../../src/infra/store/rows/webhook-deliveries.js';
import { deliveryQueue } from '../../src/infra/queue/webhook-deliveries.js';
import { startJobWorker } from '../../src/infra/queue/job-queue.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { createAgent, gqlOk, h, newWorkspace } from '../helpers/harness.js';

// The steady state of a busy queue: workers free one slot at a time, so every claim takes one row.
// Agent A has a backlog of 400; B's one row arrives while A's first ones run. Equal turns go to the
// agent served least recently, so B's row is the very next one claimed — not the 401st, as when
// equal turns went to the oldest row. For webhook deliveries and for channel messages (email and
// SMS answers), by the claim alone and through the real worker with runs held on a gate.
// Every scenario runs in a transaction that is rolled back, with rows due in 1990: the harness's
// own workers never see them, and nothing another test leaves is due that early.

const T0 = new Date('1990-01-01T00:00:00Z').getTime();
const NOW = new Date(T0 + 3_600_000);
const BACKLOG = 400;
const SLOTS = 4;

class Rollback extends Error {}

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

type Name = 'A' | 'B';
const agents: Record<Name, { workspaceId: string; agentId: string; webhookId: string }> = {} as never;

/** `count` pending deliveries of agent `name`, due `dueMs` after T0 and 1 ms apart; their ids. */
async function queueDeliveries(trx: Knex.Transaction, name: Name, count: number, dueMs: number): Promise<string[]> {
  const { agentId, webhookId } = agents[name];
  const rows: WebhookDelivery[] = Array.from({ length: count }, (_, i) => {
    const at = new Date(T0 + dueMs + i);
    return {
      ...{
        id: newId('whd'),
        agentId,
        webhookId,
        integration: 'events',
        senderDeliveryId: null,
        dedupeKey: null,
        replayOf: null,
        method: 'POST',
      },
      ...{
        path: `/agents/${agentId}/webhook/events`,
        query: {},
        headers: { 'content-type': 'application/json' },
        rawBody: Buffer.from(JSON.stringify({ i })),
        bodyDroppedAt: null,
      },
      ...{
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
      },
    };
  });
  for (let i = 0; i < rows.length; i += 200)
    await trx(webhookDeliveries.table).insert(rows.slice(i, i + 200).map(webhookDeliveries.toRow));
  return rows.map((r) => r.id);
}

/** `count` received emails of agent `name` waiting for their answer, due `dueMs` after T0 and 1 ms apart; their ids. */
async function queueMessages(trx: Knex.Transaction, name: Name, count: number, dueMs: number): Promise<string[]> {
  const { workspaceId, agentId } = agents[name];
  const rows: Message[] = Array.from({ length: count }, (_, i) => {
    const at = new Date(T0 + dueMs + i);
    return {
      ...{
        id: newId('msg'),
        workspaceId,
        agentId,
        direction: 'inbound',
        channel: 'email',
        from: `sender${i}@example.com`,
        to: `${name.toLowerCase()}@agents.example.com`,
      },
      ...{
        subject: `question ${i}`,
        body: 'Hello?',
        sentAt: at,
        createdAt: at,
        channelId: null,
        threadId: null,
        messageId: `<${newId('mid')}@example.com>`,
        inReplyTo: null,
      },
      ...{
        status: 'received',
        attempts: 0,
        failures: 0,
        nextAttemptAt: at,
        lockedUntil: null,
        lastError: null,
        runId: null,
        provider: null,
      },
    };
  });
  for (let i = 0; i < rows.length; i += 200)
    await trx(messages.table).insert(rows.slice(i, i + 200).map(messages.toRow));
  return rows.map((r) => r.id);
}

interface Claimer {
  queue: (trx: Knex.Transaction, name: Name, count: number, dueMs: number) => Promise<string[]>;
  claim: (trx: Knex.Transaction, limit: number) => Promise<{ id: string }[]>;
}

const QUEUES: Record<'webhook deliveries' | 'channel messages', Claimer> = {
  'webhook deliveries': {
    queue: queueDeliveries,
    claim: (trx, limit) => deliveryRepo(trx).claim(NOW, new Date(NOW.getTime() + 600_000), limit),
  },
  'channel messages': {
    queue: queueMessages,
    claim: (trx, limit) => channelMessageRepo(trx).claim(NOW, new Date(NOW.getTime() + 600_000), limit),
  },
};

/**
 * Runs a real worker of `SLOTS` slots over `queue` while A's backlog waits: each run holds its slot
 * until the test opens its gate, one at a time (oldest first), as runs waiting on a model would. B's
 * row is queued once A's first runs hold every slot. Resolves with how many of A's had started when
 * B's started (all of them if it never did).
 */
async function runGated<T extends { id: string; attempts: number }, O>(
  queue: WorkQueue<T, O>,
  done: O,
  queueB: () => Promise<string>,
): Promise<number> {
  const gates: (() => void)[] = [];
  const startedA = new Set<string>();
  let b = '';
  let bStarted = false;
  let open = false;
  let onStart = () => {};
  const task = {
    run: (d: T) =>
      new Promise<O>((resolve) => {
        if (d.id === b) bStarted = true;
        else startedA.add(d.id);
        if (open) resolve(done);
        else gates.push(() => resolve(done));
        onStart();
      }),
  };
  const starts = () => startedA.size + (bStarted ? 1 : 0);
  const until = (n: number) =>
    new Promise<void>((resolve) => (onStart = () => starts() >= n && resolve())).then(() => (onStart = () => {}));
  const worker = startJobWorker(queue, task, createLogger('silent'), {
    concurrency: SLOTS,
    pollMs: 10,
    leaseMs: 600_000,
  });
  try {
    await until(SLOTS);
    b = await queueB();
    while (!bStarted && startedA.size < BACKLOG) {
      const n = starts();
      const started = until(n + 1);
      gates.shift()!();
      await started;
    }
  } finally {
    open = true;
    const stopping = worker.stop();
    for (const g of gates.splice(0)) g();
    await stopping;
  }
  return startedA.size;
}

describe('queues: equal turns go to the agent served least recently', function () {
  this.timeout(60_000);

  before(async () => {
    const ws = await newWorkspace();
    for (const name of ['A', 'B'] as const) {
      const agentId = await createAgent(ws.adminToken, { name: `Queue ${name}` });
      const webhookId = (
        await gqlOk(
          ws.adminToken,
          'mutation($a: ID!) { addWebhook(agentId: $a, input: { integration: "events", handler: { script: "return 1;" } }) { id } }',
          { a: agentId },
        )
      ).addWebhook.id as string;
      agents[name] = { workspaceId: ws.workspaceId, agentId, webhookId };
    }
  });

  for (const [label, q] of Object.entries(QUEUES)) {
    it(`${label}: claims of one row each take B's row next, while A's backlog of ${BACKLOG} still waits`, async () => {
      await rolledBack(async (trx) => {
        const a = await q.queue(trx, 'A', BACKLOG, 0);
        expect((await q.claim(trx, SLOTS)).map((d) => d.id)).to.deep.equal(a.slice(0, SLOTS));
        const [b] = await q.queue(trx, 'B', 1, BACKLOG + 10);
        // One slot freed: the next claim is B's (A's next row has turn 1 too, but A was just served).
        expect((await q.claim(trx, 1)).map((d) => d.id)).to.deep.equal([b]);
        // Then A's backlog goes on in its own order.
        expect((await q.claim(trx, 1)).map((d) => d.id)).to.deep.equal([a[SLOTS]]);
        expect((await q.claim(trx, 2)).map((d) => d.id)).to.deep.equal([a[SLOTS + 1], a[SLOTS + 2]]);
      });
    });

    it(`${label}: two agents with backlogs take turns, one claim each`, async () => {
      await rolledBack(async (trx) => {
        const a = await q.queue(trx, 'A', 10, 0);
        const b = await q.queue(trx, 'B', 10, 100);
        const order: string[] = [];
        for (let i = 0; i < 8; i++)
          order.push(...(await q.claim(trx, 1)).map((d) => (a.includes(d.id) ? 'A' : b.includes(d.id) ? 'B' : '?')));
        expect(order.join('')).to.equal('ABABABAB');
      });
    });
  }

  it(`webhook deliveries through the worker: B's delivery runs after ${SLOTS} of A's ${BACKLOG}, runs freeing one slot at a time`, async () => {
    await rolledBack(async (trx) => {
      await queueDeliveries(trx, 'A', BACKLOG, 0);
      const queue = deliveryQueue(deliveryRepo(trx), new MovableClock(NOW), { leaseMs: 600_000, random: () => 0.5 });
      const startedA = await runGated(
        queue,
        { kind: 'done', runId: 'run_turns' } as const,
        async () => (await queueDeliveries(trx, 'B', 1, BACKLOG + 10))[0]!,
      );
      expect(BACKLOG - startedA, `B started after ${startedA} of A's deliveries`).to.be.at.least(BACKLOG / 4);
      expect(startedA).to.be.within(SLOTS, SLOTS + 1);
    });
  });

  it(`an email answer through the channel worker: B's runs after ${SLOTS} of A's ${BACKLOG}, runs freeing one slot at a time`, async () => {
    await rolledBack(async (trx) => {
      await queueMessages(trx, 'A', BACKLOG, 0);
      const queue = messageQueue(knexStore(trx), new MovableClock(NOW), () => {}, {
        leaseMs: 600_000,
        deferMaxMs: 60_000,
        retryDelay: () => 1000,
      });
      const done: ChannelOutcome = { kind: 'done', status: 'answered', runId: null };
      const startedA = await runGated(queue, done, async () => (await queueMessages(trx, 'B', 1, BACKLOG + 10))[0]!);
      expect(BACKLOG - startedA, `B started after ${startedA} of A's messages`).to.be.at.least(BACKLOG / 4);
      expect(startedA).to.be.within(SLOTS, SLOTS + 1);
    });
  });
});
