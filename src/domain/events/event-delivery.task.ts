import type { Clock } from '../clock.js';
import type { Store } from '../ports.js';
import type { Cipher } from '../secrets/secret.ports.js';
import type { EventDelivery, EventSubscription } from './event.entities.js';
import type { EventOutbox, EventSender } from './event.ports.js';
import {
  DEFAULT_EVENT_RETRY,
  eventSettlementOf,
  isDelivered,
  streakAfter,
  type EventAttemptOutcome,
  type EventRetryPolicy,
} from './event-outcome.js';

/** How a settled attempt ended for the queue's log; `lost` when another claim holds the delivery now. */
export type EventAttemptResult = 'delivered' | 'retry' | 'failed' | 'lost';

/** What the task hands back to the queue: the attempt's outcome and how long it took. */
export interface EventAttemptReport {
  outcome: EventAttemptOutcome;
  durationMs: number;
}

/**
 * Sends one claimed event delivery and settles it: the subscription's secret decrypted, the body
 * signed and posted (EventSender), the attempt recorded with the delivery's new state in one write.
 * A delivery that failed every attempt adds to its subscription's failure streak; a streak of
 * `disableAfter` disables the subscription (with its reason) and emits `webhook.delivery.failed`
 * for the delivery that ended it — as does every delivery that failed for good.
 */
export class EventDeliveryTask {
  constructor(
    private readonly deps: {
      store: Store;
      cipher: Cipher;
      clock: Clock;
      sender: EventSender;
      outbox: EventOutbox;
      policy?: EventRetryPolicy;
      /** A line for the service's log when a subscription is disabled. */
      notice?: (fields: Record<string, unknown>, message: string) => void;
    },
  ) {}

  private get policy(): EventRetryPolicy {
    return this.deps.policy ?? DEFAULT_EVENT_RETRY;
  }

  /** Sends the delivery once; never throws for the receiver's failures (they are the outcome). */
  async run(d: EventDelivery): Promise<EventAttemptReport> {
    const s = await this.deps.store.repos.eventSubscriptions.get(d.subscriptionId);
    if (!s || !s.enabled)
      return {
        outcome: { kind: 'dropped', reason: s ? 'The subscription is disabled' : 'The subscription was deleted' },
        durationMs: 0,
      };
    const r = await this.deps.sender.send({
      url: s.url,
      secret: this.deps.cipher.decrypt(s.secretCiphertext),
      eventId: d.eventId,
      timestamp: this.deps.clock.now(),
      body: JSON.stringify(d.payload),
    });
    const outcome: EventAttemptOutcome = isDelivered(r.status)
      ? { kind: 'delivered', status: r.status, response: r.response }
      : { kind: 'retry', status: r.status, response: r.response };
    return { outcome, durationMs: r.durationMs };
  }

  /** Settles an attempt (the queue's `settle`): the delivery, its attempt, and its subscription's streak. */
  async settle(d: EventDelivery, report: EventAttemptReport): Promise<EventAttemptResult> {
    const now = this.deps.clock.now();
    const settlement = eventSettlementOf(d, report.outcome, now, this.policy);
    const attempt = {
      deliveryId: d.id,
      attempt: d.attempts,
      status: settlement.lastStatus,
      response: settlement.lastResponse,
      durationMs: report.durationMs,
      at: now,
    };
    // The delivery's new state and its attempt's record are written together.
    const held = await this.deps.store.transaction((r) =>
      r.eventDeliveries.settle(d.id, d.attempts, settlement, attempt),
    );
    if (!held) return 'lost';
    if (report.outcome.kind === 'dropped') return 'failed';
    if (settlement.state !== 'pending') await this.afterFinished(d, settlement.state, settlement.lastResponse);
    return settlement.state === 'pending' ? 'retry' : settlement.state;
  }

  private async afterFinished(d: EventDelivery, state: 'delivered' | 'failed', lastResponse: string | null) {
    const { store, clock } = this.deps;
    // Read and written under the row's lock: deliveries of one subscription settling at once each count.
    const found = await store.transaction(async (r) => {
      const s = await r.eventSubscriptions.getForUpdate(d.subscriptionId);
      if (!s) return null;
      const next = streakAfter(s.failureStreak, state, this.policy);
      if (next.streak !== s.failureStreak || (next.disable && s.enabled))
        await r.eventSubscriptions.update(withStreak(s, next, clock.now(), this.policy.disableAfter));
      return { s, next };
    });
    if (!found) return;
    const { s, next } = found;
    if (next.disable && s.enabled)
      this.deps.notice?.(
        { subscriptionId: s.id, workspaceId: s.workspaceId, url: s.url, streak: next.streak },
        'event subscription disabled: its deliveries kept failing',
      );
    // A failed event about a failed event is not announced again (no chain between subscriptions).
    if (state === 'failed' && d.kind !== 'webhook.delivery.failed')
      await this.deps.outbox.emit(d.workspaceId, 'webhook.delivery.failed', {
        agentId: typeof d.payload.data.agentId === 'string' ? d.payload.data.agentId : null,
        data: {
          source: 'event_subscription',
          deliveryId: d.id,
          agentId: typeof d.payload.data.agentId === 'string' ? d.payload.data.agentId : null,
          subscriptionId: s.id,
          eventId: d.eventId,
          attempts: d.attempts,
          error: lastResponse?.slice(0, 2000) ?? null,
        },
      });
  }
}

function withStreak(
  s: EventSubscription,
  next: { streak: number; disable: boolean },
  now: Date,
  disableAfter: number,
): EventSubscription {
  if (!next.disable || !s.enabled) return { ...s, failureStreak: next.streak, updatedAt: now };
  return {
    ...s,
    failureStreak: next.streak,
    enabled: false,
    disabledAt: now,
    disabledReason: `Disabled after ${disableAfter} deliveries in a row failed every attempt (the last: ${now.toISOString()})`,
    updatedAt: now,
  };
}
