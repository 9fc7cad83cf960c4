import type {
  AttemptOutcome,
  DeliveryOutcome,
  DeliveryStatus,
  QueuedDelivery,
  WebhookDelivery,
  WebhookDeliverySummary,
} from './webhook.entities.js';

// Ports of webhook deliveries the domain talks to. src/infra implements them; nothing here knows
// about SQL.

/** What a settled processing attempt leaves on its delivery. */
export interface DeliverySettlement {
  status: 'PENDING' | 'DONE' | 'FAILED';
  failures: number;
  nextAttemptAt: Date;
  lastError: string | null;
  runId: string | null;
  completedAt: Date | null;
  updatedAt: Date;
}

/**
 * Webhook deliveries, which are also the queue that runs them. A claim takes due deliveries under a
 * lease that any instance honours (FOR UPDATE SKIP LOCKED); the attempt number is the claim's fence:
 * a worker whose lease ran out and whose delivery was claimed again can no longer settle it.
 */
export interface DeliveryRepo {
  /** One delivery with its whole body. */
  get(id: string): Promise<WebhookDelivery | null>;
  insert(d: WebhookDelivery): Promise<WebhookDeliverySummary>;
  /**
   * Stores a delivery unless one with the same dedupe key was stored for its webhook since
   * `dedupeSince`; then stores nothing and returns that one. Older holders of the key give it up.
   * Must run in a transaction.
   */
  accept(d: WebhookDelivery, dedupeSince: Date): Promise<{ delivery: WebhookDeliverySummary; duplicate: boolean }>;
  /**
   * Takes up to `limit` deliveries that are due (pending, or running under an expired lease), fairly
   * between agents: every agent's oldest due delivery before any agent's second, and so on; oldest
   * due first among equals. Returned in that order, without bodies.
   */
  claim(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDeliverySummary[]>;
  /** The whole body of one delivery, as received; null when the delivery no longer exists. */
  body(id: string): Promise<Buffer | null>;
  /** The first `bytes` bytes of each delivery's body and its agent, by id (deliveries that no longer exist are absent). */
  bodyHeads(ids: readonly string[], bytes: number): Promise<Map<string, { agentId: string; head: Buffer }>>;
  /** Extends the lease of a claim still held (same attempt); false when it is no longer held. */
  renew(id: string, attempt: number, leaseUntil: Date): Promise<boolean>;
  /** Ends a claim still held (same attempt); false when it is no longer held. */
  settle(id: string, attempt: number, s: DeliverySettlement): Promise<boolean>;
  /**
   * Gives a claim still held (same attempt) back to the queue: due at `now`, for any instance, with
   * no failure counted (its instance is shutting down); false when it is no longer held.
   */
  handBack(id: string, attempt: number, now: Date): Promise<boolean>;
  /** An agent's deliveries, newest first, without bodies. */
  list(
    agentId: string,
    opts: { first: number; after?: { createdAt: Date; id: string }; webhookId?: string; status?: DeliveryStatus },
  ): Promise<WebhookDeliverySummary[]>;
  /** Deletes finished (DONE or FAILED) deliveries created before `before`; returns how many. */
  prune(before: Date): Promise<number>;
  /**
   * Empties the body of finished deliveries completed before `before` that still have one, marking
   * them dropped `at`; the rows stay. In batches of `batch`, each its own statement; returns how many.
   */
  dropBodies(before: Date, at: Date, batch?: number): Promise<number>;
}

/**
 * A queue of stored work as its consumer (the delivery worker) sees it: claims under a lease,
 * renewals, a hand-back at shutdown, and the settling of each attempt from its task's outcome `O`.
 */
export interface WorkQueue<T, O> {
  claim(limit: number): Promise<T[]>;
  renew(d: T): Promise<boolean>;
  handBack(d: T): Promise<boolean>;
  settle(d: T, outcome: O): Promise<AttemptOutcome>;
}

/**
 * The queue of stored deliveries as its consumer sees it (src/infra implements it over the
 * DeliveryRepo): it claims due deliveries under a lease, keeps the lease while a task runs one,
 * hands a claim back at shutdown, and settles each attempt from the outcome its task returned
 * (retry schedule, deferral, failure). A task only runs a delivery; it never touches the queue.
 */
export interface DeliveryQueue {
  /** Up to `limit` due deliveries for this instance, each under a lease, fairly between agents (in the order to run them). */
  claim(limit: number): Promise<WebhookDeliverySummary[]>;
  /** Extends the lease of a delivery being run; false when this instance no longer holds it. */
  renew(d: QueuedDelivery): Promise<boolean>;
  /** Gives a delivery this instance is running back to the queue, due at once, no failure counted (shutdown at its deadline). */
  handBack(d: QueuedDelivery): Promise<boolean>;
  /** Ends the attempt with its outcome; `lost` when the delivery was claimed again meanwhile (nothing is written). */
  settle(d: QueuedDelivery, outcome: DeliveryOutcome): Promise<AttemptOutcome>;
}

/** Wakes this instance's queue consumer when a delivery was queued here; the composition root connects it to the worker. */
export interface QueueSignal {
  onQueued: () => void;
}
