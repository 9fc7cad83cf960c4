import type { Clock } from '../../domain/clock.js';
import type { EventDelivery } from '../../domain/events/event.entities.js';
import type { EventAttemptReport, EventDeliveryTask } from '../../domain/events/event-delivery.task.js';
import type { Store } from '../../domain/ports.js';
import type { EventQueueSignal } from '../../domain/events/event.ports.js';
import type { WorkQueue } from '../../domain/webhooks/webhook.ports.js';
import type { Logger } from '../logger.js';
import { startJobWorker, type JobWorker, type JobWorkerOptions } from './job-queue.js';

/**
 * The outbound events' queue over `event_deliveries`: claims under a lease (fair between
 * subscriptions), the attempt number fencing later writes, each attempt settled by the task
 * (retry schedule, failure streak, disabling).
 */
export function eventQueue(
  store: Store,
  clock: Clock,
  task: EventDeliveryTask,
  leaseMs: number,
): WorkQueue<EventDelivery, EventAttemptReport> {
  const deliveries = () => store.repos.eventDeliveries;
  return {
    claim(limit) {
      const now = clock.now();
      return deliveries().claim(now, new Date(now.getTime() + leaseMs), limit);
    },
    renew: (d) => deliveries().renew(d.id, d.attempts, new Date(clock.now().getTime() + leaseMs)),
    handBack: (d) => deliveries().handBack(d.id, d.attempts, clock.now()),
    async settle(d, report) {
      const r = await task.settle(d, report);
      return r === 'delivered' ? 'done' : r;
    },
  };
}

/**
 * This instance's consumer of the events' queue, on the same job worker as inbound webhook
 * deliveries and channel messages, and the signal that wakes it when an event was stored here.
 */
export function startEventWorker(
  task: EventDeliveryTask,
  signal: EventQueueSignal,
  store: Store,
  clock: Clock,
  logger: Logger,
  opts: JobWorkerOptions,
): JobWorker {
  const worker = startJobWorker(eventQueue(store, clock, task, opts.leaseMs), task, logger, opts, {
    item: 'event delivery',
    queue: 'event queue',
  });
  signal.onQueued = () => worker.nudge();
  return worker;
}
