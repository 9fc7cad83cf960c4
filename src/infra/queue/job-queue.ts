import type { WorkQueue } from '../../domain/webhooks/webhook.ports.js';
import type { Logger } from '../logger.js';

export interface JobWorkerOptions {
  /** Deliveries this instance processes at once (0: this instance only receives). */
  concurrency: number;
  /** How often an idle worker looks for due deliveries (those stored by other instances, retries coming due). */
  pollMs: number;
  /** The lease of a claimed delivery; it is renewed every third of it while the run goes on. */
  leaseMs: number;
}

/** What a worker's log lines call one item of its queue (default: `webhook delivery`). */
export interface JobLabel {
  item: string;
  queue: string;
}

const WEBHOOKS: JobLabel = { item: 'webhook delivery', queue: 'webhook queue' };

export interface JobWorker {
  /** Look for due deliveries now (a delivery was just stored here). */
  nudge(): void;
  /**
   * Stops claiming and waits for the runs in progress to settle — at most `deadlineMs`: a run still
   * going then is given back to the queue (due at once, no failure counted) for another instance or
   * the next start, and its late result is dropped by the claim's fence.
   */
  stop(deadlineMs?: number): Promise<void>;
}

const MAX_ERROR_BACKOFF_MS = 30_000;

/** What runs one claimed item and says how it ended (WebhookDeliveryTask, ChannelMessageTask). */
export interface JobTask<T, O> {
  run(d: T): Promise<O>;
}

/**
 * The queue's consumer in one instance: claims due deliveries up to its concurrency, runs each
 * with the task while renewing its lease, settles it from the task's outcome, and claims more as
 * runs finish. Every instance runs one; the database decides who gets which delivery. When the
 * database is down it backs off (doubling up to 30 s) and resumes by itself. The job queue has two
 * kinds of job: webhook deliveries (`webhook-deliveries.ts`) and channel messages (`channel-messages.ts`,
 * `channel-worker.ts`); `label` names a kind's items in the log.
 */
export function startJobWorker<T extends { id: string; attempts: number }, O>(
  queue: WorkQueue<T, O>,
  task: JobTask<T, O>,
  logger: Logger,
  opts: JobWorkerOptions,
  label: JobLabel = WEBHOOKS,
): JobWorker {
  const active = new Set<Promise<void>>();
  /** The deliveries being run, with their lease renewal. */
  const running = new Map<string, { delivery: T; renewal: NodeJS.Timeout }>();
  let stopped = false;
  let nudged = false;
  let wake: (() => void) | null = null;

  const nudge = () => {
    nudged = true;
    const w = wake;
    wake = null;
    w?.();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (nudged || stopped) return resolve();
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const runOne = async (d: T) => {
    const renewal = setInterval(
      () => {
        queue
          .renew(d)
          .catch((err: unknown) => logger.warn({ err, deliveryId: d.id }, `${label.item} lease renewal failed`));
      },
      Math.max(100, Math.floor(opts.leaseMs / 3)),
    );
    renewal.unref();
    running.set(d.id, { delivery: d, renewal });
    try {
      const outcome = await queue.settle(d, await task.run(d));
      if (outcome === 'lost')
        logger.warn(
          { deliveryId: d.id, attempt: d.attempts },
          `${label.item} was claimed again before this attempt settled`,
        );
      else logger.debug({ deliveryId: d.id, attempt: d.attempts, outcome }, `${label.item} attempt`);
    } catch (err) {
      // The run or its settling failed (the database went away): the lease runs out and the delivery is claimed again.
      logger.error({ err, deliveryId: d.id }, `${label.item} attempt could not be settled`);
    } finally {
      clearInterval(renewal);
      running.delete(d.id);
    }
  };

  const loop = async () => {
    let errorBackoff = opts.pollMs;
    while (!stopped) {
      nudged = false;
      const free = opts.concurrency - active.size;
      if (free > 0) {
        let claimed: T[];
        try {
          claimed = await queue.claim(free);
          errorBackoff = opts.pollMs;
        } catch (err) {
          logger.warn({ err }, `${label.queue} unavailable; retrying`);
          nudged = false;
          await sleep(errorBackoff);
          errorBackoff = Math.min(errorBackoff * 2, MAX_ERROR_BACKOFF_MS);
          continue;
        }
        for (const d of claimed) {
          const p: Promise<void> = runOne(d).finally(() => {
            active.delete(p);
            nudge();
          });
          active.add(p);
        }
        // A full batch may mean more is due: look again at once.
        if (claimed.length === free) continue;
      }
      await sleep(opts.pollMs);
    }
  };

  const looping = opts.concurrency > 0 ? loop() : Promise.resolve();
  return {
    nudge,
    async stop(deadlineMs = Infinity) {
      stopped = true;
      nudge();
      await looping;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        if (Number.isFinite(deadlineMs)) timer = setTimeout(() => resolve('deadline'), Math.max(0, deadlineMs));
      });
      const settled = await Promise.race([Promise.allSettled([...active]), deadline]);
      clearTimeout(timer);
      if (settled !== 'deadline') return;
      for (const { delivery, renewal } of [...running.values()]) {
        clearInterval(renewal);
        running.delete(delivery.id);
        try {
          if (await queue.handBack(delivery))
            logger.warn(
              { deliveryId: delivery.id, attempt: delivery.attempts },
              `shutdown: ${label.item} still running at the deadline was given back to the queue`,
            );
        } catch (err) {
          // Its lease runs out instead, and the delivery is claimed again then.
          logger.error(
            { err, deliveryId: delivery.id },
            `shutdown: ${label.item} could not be given back; it waits for its lease to end`,
          );
        }
      }
    },
  };
}
