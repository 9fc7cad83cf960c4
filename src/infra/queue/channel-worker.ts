import type { Clock } from '../../domain/clock.js';
import type { Store } from '../../domain/ports.js';
import type { Services } from '../../domain/services.js';
import type { Logger } from '../logger.js';
import { startJobWorker, type JobWorker, type JobWorkerOptions } from './job-queue.js';
import { DEFAULT_MESSAGE_QUEUE, messageQueue, type MessageQueueConfig } from './channel-messages.js';

/** The channel queue's worker options: the webhook worker's, how long a deferred answer waits at most, and (tests) the retry schedule. */
export type ChannelWorkerOptions = JobWorkerOptions &
  Pick<MessageQueueConfig, 'deferMaxMs'> &
  Partial<Pick<MessageQueueConfig, 'retryDelay'>>;

/**
 * This instance's consumer of the channels' queue (answers to receive, replies to send), the same
 * worker webhook deliveries use, and the signal that wakes it when a message became due here.
 */
export function startChannelWorker(
  services: Services,
  store: Store,
  clock: Clock,
  logger: Logger,
  opts: ChannelWorkerOptions,
): JobWorker {
  let worker: JobWorker | undefined;
  const nudge = () => worker?.nudge();
  const queue = messageQueue(store, clock, nudge, {
    ...DEFAULT_MESSAGE_QUEUE,
    leaseMs: opts.leaseMs,
    deferMaxMs: opts.deferMaxMs,
    ...(opts.retryDelay ? { retryDelay: opts.retryDelay } : {}),
  });
  worker = startJobWorker(queue, services.channelMessages, logger, opts, {
    item: 'channel message',
    queue: 'channel queue',
  });
  services.channelQueued.onQueued = nudge;
  return worker;
}
