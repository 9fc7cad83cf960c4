import type { Clock } from '../../domain/clock.js';
import { messageSettlementOf, type ChannelOutcome } from '../../domain/channels/channel-outcome.js';
import type { Message } from '../../domain/messages/message.entities.js';
import type { Store } from '../../domain/ports.js';
import type { WorkQueue } from '../../domain/webhooks/webhook.ports.js';
import { retryDelayMs } from '../../domain/core/retry-schedule.js';

export interface MessageQueueConfig {
  /** How long a claimed message stays with its instance without a renewal. */
  leaseMs: number;
  /** The longest a deferred answer waits before it is tried again (a lifted limit lets it out then). */
  deferMaxMs: number;
  /** The wait after the n-th failed attempt, null when it was the last (default: the webhook schedule, with jitter). */
  retryDelay: (failures: number) => number | null;
}

export const DEFAULT_MESSAGE_QUEUE: MessageQueueConfig = {
  leaseMs: 30_000,
  deferMaxMs: 60_000,
  retryDelay: (failures) => retryDelayMs(failures),
};

/**
 * The channels' queue over `messages` (MessageRepo), consumed by the same worker as webhook
 * deliveries: claims under a lease, the attempt number fencing later writes, and each attempt
 * settled from its task's outcome — with an answer's reply stored in the same transaction as the
 * settling of the message it answers (`onReply` then wakes the worker to send it).
 */
export function messageQueue(
  store: Store,
  clock: Clock,
  onReply: () => void,
  config: MessageQueueConfig = DEFAULT_MESSAGE_QUEUE,
): WorkQueue<Message, ChannelOutcome> {
  const messages = () => store.repos.messages;
  return {
    claim(limit) {
      const now = clock.now();
      return messages().claim(now, new Date(now.getTime() + config.leaseMs), limit);
    },
    renew: (m) => messages().renew(m.id, m.attempts, new Date(clock.now().getTime() + config.leaseMs)),
    handBack: (m) => messages().handBack(m.id, m.attempts, clock.now()),
    async settle(m, outcome) {
      const { outcome: settled, settlement } = messageSettlementOf(
        m,
        outcome,
        clock.now(),
        config.retryDelay,
        config.deferMaxMs,
      );
      const reply = outcome.kind === 'done' ? outcome.reply : undefined;
      const held = await store.transaction(async (r) => {
        if (!(await r.messages.settle(m.id, m.attempts, settlement))) return false;
        if (reply) await r.messages.insert(reply);
        return true;
      });
      if (held && reply) onReply();
      return held ? settled : 'lost';
    },
  };
}
