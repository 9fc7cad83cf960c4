// Outbound event webhooks (issue 54): what a workspace subscribes URLs to, and the deliveries of
// those events, stored before they are sent. Repositories map rows to these explicitly.

/** The event kinds of DESIGN.md §9, exactly. */
export const EVENT_KINDS = [
  'run.completed',
  'run.failed',
  'approval.requested',
  'approval.decided',
  'limit.reached',
  'webhook.delivery.failed',
  'message.received',
  'schedule.fired',
  'key.created',
  'key.revoked',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** A URL of the workspace that receives the events of some kinds, signed with Standard Webhooks. */
export interface EventSubscription {
  id: string;
  workspaceId: string;
  url: string;
  kinds: EventKind[];
  /** Only events about this agent (events about no agent, such as workspace keys, are left out). */
  agentId: string | null;
  description: string;
  /** The signing secret (`whsec_…`), encrypted; shown once, at creation. */
  secretCiphertext: string;
  enabled: boolean;
  /** Deliveries in a row that failed every attempt; a delivered one sets it back to 0. */
  failureStreak: number;
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const EVENT_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type EventDeliveryState = (typeof EVENT_DELIVERY_STATES)[number];

/** One event for one subscription: stored before the first attempt, then sent from the queue. */
export interface EventDelivery {
  id: string;
  subscriptionId: string;
  workspaceId: string;
  /** The event's id (`evt_…`): the `webhook-id` header, the same on every attempt and replay. */
  eventId: string;
  kind: EventKind;
  /** The JSON body sent, exactly (the envelope: id, type, timestamp, data). */
  payload: EventPayload;
  state: EventDeliveryState;
  /** Attempts claimed so far (the claim's fence). */
  attempts: number;
  failures: number;
  /** When it is due; null once delivered or failed. */
  nextAttemptAt: Date | null;
  lockedUntil: Date | null;
  lastStatus: number | null;
  /** The beginning of the last response's body, or why there was none. */
  lastResponse: string | null;
  /** The delivery this one replays. */
  replayOf: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** One HTTP attempt of a delivery, as recorded. */
export interface EventAttempt {
  deliveryId: string;
  attempt: number;
  /** The receiver's status; null when no answer came (timeout, refused connection). */
  status: number | null;
  /** The beginning of the response's body, or the error. */
  response: string | null;
  durationMs: number;
  at: Date;
}

/** The body of every event (Standard Webhooks' envelope): served as JSON Schemas at /schemas/events.v1.json. */
export interface EventPayload {
  id: string;
  type: EventKind;
  timestamp: string;
  workspaceId: string;
  /** Sent by "Send test event": sample data, nothing happened. */
  test?: boolean;
  data: Record<string, unknown>;
}
