// Entities of webhook deliveries as the domain sees them. Repositories map rows to these
// explicitly.

export const DELIVERY_STATUSES = ['PENDING', 'RUNNING', 'DONE', 'FAILED'] as const;
/** PENDING: waiting for its (next) attempt; RUNNING: an instance holds it under a lease; DONE: ran; FAILED: gave up. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A callback a webhook integration received: stored before the sender's 200, then run from the queue. */
export interface WebhookDelivery {
  id: string;
  agentId: string;
  webhookId: string;
  integration: string;
  /** The sender's own id of the delivery, when it sends one. */
  senderDeliveryId: string | null;
  /** Set while the sender id de-duplicates redeliveries (24 h). */
  dedupeKey: string | null;
  /** The delivery this one replays. */
  replayOf: string | null;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** Request headers without credential or signature values. */
  headers: Record<string, string>;
  /** The body exactly as received; empty once dropped (`bodyDroppedAt`). */
  rawBody: Buffer;
  /** When housekeeping dropped the body of this finished delivery (its replay window had passed); it can no longer be replayed. */
  bodyDroppedAt: Date | null;
  status: DeliveryStatus;
  attempts: number;
  failures: number;
  lastError: string | null;
  runId: string | null;
  nextAttemptAt: Date;
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** The W3C traceparent of the request that received it: the run that processes it links to that span. */
  receiptTrace?: string | null;
}

/**
 * A delivery without its body, and the body's size: what listings, claims and stores return. A body
 * (up to 1 MiB) is read alone, for the one delivery that is run, replayed or shown.
 */
export interface WebhookDeliverySummary extends Omit<WebhookDelivery, 'rawBody'> {
  /** Size of the body as received, in bytes. */
  bodyBytes: number;
}

/** A delivery as the queue hands it to its task: its body is read when it runs. */
export type QueuedDelivery = Omit<WebhookDelivery, 'rawBody'>;

/**
 * How one run of a delivery ended, as its task reports it; the queue settles the delivery from it.
 * - `done`: the run succeeded;
 * - `retry`: it failed in a way another attempt may not (on the retry schedule, failing at its end);
 * - `deferred`: a limit or a busy dependency refused it; tried again after `retryAfterSeconds`,
 *   no failure counted;
 * - `failed`: nothing another attempt could change; `countsFailure: false` when this attempt ran
 *   nothing that could fail (its lost predecessor was already counted).
 */
export type DeliveryOutcome =
  | { kind: 'done'; runId: string }
  | { kind: 'retry'; error: string; runId: string | null }
  | { kind: 'deferred'; error: string; retryAfterSeconds: number }
  | { kind: 'failed'; error: string; runId: string | null; countsFailure: boolean };

/** How an attempt was settled, or `lost` when another attempt holds the delivery now (the claim's fence). */
export type AttemptOutcome = 'done' | 'retry' | 'deferred' | 'failed' | 'lost';
