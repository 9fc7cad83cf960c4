import type { EventAttempt, EventDelivery, EventKind, EventSubscription } from './event.entities.js';

// Ports of outbound event webhooks the domain talks to. src/infra implements them; nothing here
// knows about SQL or HTTP.

export interface EventSubscriptionRepo {
  get(id: string): Promise<EventSubscription | null>;
  /** One subscription, locked until the caller's transaction ends (its failure streak is read and written under it). */
  getForUpdate(id: string): Promise<EventSubscription | null>;
  insert(s: EventSubscription): Promise<EventSubscription>;
  update(s: EventSubscription): Promise<EventSubscription>;
  delete(id: string): Promise<boolean>;
  /** A workspace's subscriptions, oldest first. */
  listByWorkspace(workspaceId: string): Promise<EventSubscription[]>;
  /**
   * A workspace's enabled subscriptions: what every emission reads. The cached store answers it from
   * memory (dropped on any change to a subscription), so a workspace without any costs no query.
   */
  listEnabled(workspaceId: string): Promise<EventSubscription[]>;
}

/** What a settled attempt leaves on its delivery (and, when it ended a streak, on its subscription). */
export interface EventSettlement {
  state: 'pending' | 'delivered' | 'failed';
  failures: number;
  nextAttemptAt: Date | null;
  lastStatus: number | null;
  lastResponse: string | null;
  completedAt: Date | null;
  updatedAt: Date;
}

/**
 * Event deliveries, which are also their queue: a claim takes due deliveries under a lease any
 * instance honours; the attempt number fences every later write of the claim.
 */
export interface EventDeliveryRepo {
  get(id: string): Promise<EventDelivery | null>;
  insertMany(ds: EventDelivery[]): Promise<void>;
  /** Up to `limit` due deliveries, fairly between subscriptions: each one's oldest before any one's second. */
  claim(now: Date, leaseUntil: Date, limit: number): Promise<EventDelivery[]>;
  renew(id: string, attempt: number, leaseUntil: Date): Promise<boolean>;
  handBack(id: string, attempt: number, now: Date): Promise<boolean>;
  /** Ends a claim still held, recording its attempt with it; false when no longer held (nothing written). */
  settle(id: string, attempt: number, s: EventSettlement, a: EventAttempt): Promise<boolean>;
  /** A subscription's deliveries, newest first. */
  list(
    subscriptionId: string,
    opts: { first: number; after?: { createdAt: Date; id: string } },
  ): Promise<EventDelivery[]>;
  /** The attempts of these deliveries, oldest first. */
  attempts(deliveryIds: readonly string[]): Promise<EventAttempt[]>;
  /** Deletes finished deliveries created before `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

/** Wakes this instance's event worker when a delivery was stored here; the composition root connects it. */
export interface EventQueueSignal {
  onQueued: () => void;
}

/** What an event emitter needs: one call, never failing, that costs no query when nobody listens. */
export interface EventOutbox {
  /**
   * Stores one delivery of the event per enabled subscription of the workspace that takes its kind
   * (and its agent, when it filters by one), then wakes the worker. Never throws: a failure to store
   * is logged, and the call that caused the event goes on.
   */
  emit(
    workspaceId: string,
    kind: EventKind,
    event: { agentId?: string | null; data: Record<string, unknown> },
  ): Promise<void>;
}

/** One signed HTTP request of an event to its subscription's URL (Standard Webhooks; src/infra). */
export interface EventSender {
  send(req: {
    url: string;
    /** The subscription's secret, `whsec_…`. */
    secret: string;
    eventId: string;
    timestamp: Date;
    body: string;
  }): Promise<{ status: number | null; response: string | null; durationMs: number }>;
}
