import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Store } from '../ports.js';
import type { EventDelivery, EventKind, EventPayload, EventSubscription } from './event.entities.js';
import type { EventOutbox, EventQueueSignal } from './event.ports.js';

/** Whether a subscription takes an event of `kind` about `agentId`. */
export function subscribed(s: EventSubscription, kind: EventKind, agentId: string | null): boolean {
  return s.enabled && s.kinds.includes(kind) && (s.agentId === null || s.agentId === agentId);
}

/** A delivery of `payload` to `s`, due at once. */
export function newDelivery(
  s: EventSubscription,
  payload: EventPayload,
  now: Date,
  replayOf: string | null = null,
): EventDelivery {
  return {
    id: newId('evd'),
    subscriptionId: s.id,
    workspaceId: s.workspaceId,
    eventId: payload.id,
    kind: payload.type,
    payload,
    state: 'pending',
    attempts: 0,
    failures: 0,
    nextAttemptAt: now,
    lockedUntil: null,
    lastStatus: null,
    lastResponse: null,
    replayOf,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}

/**
 * The events' outbox: an event is stored as one delivery per subscription that takes it, in one
 * insert, before anything is sent (nothing accepted is lost), and the worker is woken. The enabled
 * subscriptions are read from the cached store: a workspace without any costs no query per event.
 */
export class EventOutboxService implements EventOutbox {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly queued: EventQueueSignal,
    /** Where a failure to store an event is reported (the event is lost; the call that caused it is not). */
    private readonly warn: (err: unknown, kind: EventKind) => void = () => {},
  ) {}

  async emit(
    workspaceId: string,
    kind: EventKind,
    event: { agentId?: string | null; data: Record<string, unknown> },
  ): Promise<void> {
    try {
      const subs = await this.store.repos.eventSubscriptions.listEnabled(workspaceId);
      if (subs.length === 0) return;
      const agentId = event.agentId ?? null;
      const to = subs.filter((s) => subscribed(s, kind, agentId));
      if (to.length === 0) return;
      const now = this.clock.now();
      const payload: EventPayload = {
        id: newId('evt'),
        type: kind,
        timestamp: now.toISOString(),
        workspaceId,
        data: event.data,
      };
      await this.store.repos.eventDeliveries.insertMany(to.map((s) => newDelivery(s, payload, now)));
      this.queued.onQueued();
    } catch (err) {
      this.warn(err, kind);
    }
  }
}
