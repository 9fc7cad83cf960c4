import type { Clock } from '../../domain/clock.js';
import { settlementOf } from '../../domain/webhooks/delivery-outcome.js';
import type { DeliveryQueue, DeliveryRepo } from '../../domain/webhooks/webhook.ports.js';
import type { QueuedDelivery } from '../../domain/webhooks/webhook.entities.js';

export interface DeliveryQueueConfig {
  /** How long a claimed delivery stays with its instance without a renewal. */
  leaseMs: number;
  /** Jitter source of the retry schedule. */
  random: () => number;
}

export const DEFAULT_DELIVERY_QUEUE: DeliveryQueueConfig = { leaseMs: 30_000, random: Math.random };

/**
 * The webhook deliveries' queue over their table (DeliveryRepo): claims take due deliveries under
 * a lease any instance honours, the attempt number fences every later write of the claim, and an
 * attempt is settled from its task's outcome on the retry schedule (`settlementOf`).
 */
export function deliveryQueue(
  deliveries: DeliveryRepo,
  clock: Clock,
  config: DeliveryQueueConfig = DEFAULT_DELIVERY_QUEUE,
  /** Told of each delivery that failed for good (its last attempt failed): the `webhook.delivery.failed` event. */
  failed?: (d: QueuedDelivery, lastError: string | null) => void,
): DeliveryQueue {
  return {
    claim(limit) {
      const now = clock.now();
      return deliveries.claim(now, new Date(now.getTime() + config.leaseMs), limit);
    },
    renew: (d) => deliveries.renew(d.id, d.attempts, new Date(clock.now().getTime() + config.leaseMs)),
    handBack: (d) => deliveries.handBack(d.id, d.attempts, clock.now()),
    async settle(d, outcome) {
      const { outcome: settled, settlement } = settlementOf(d, outcome, clock.now(), config.random);
      const held = await deliveries.settle(d.id, d.attempts, settlement);
      if (held && settled === 'failed') failed?.(d, settlement.lastError);
      return held ? settled : 'lost';
    },
  };
}
