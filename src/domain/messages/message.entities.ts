import type { Json } from '../json.js';

// Entities of messages as the domain sees them. Repositories map rows to these explicitly.

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/**
 * Where a channel's message is. Inbound: `received` (to be answered), `deferred` (a limit holds
 * its answer back), `answered`, `ignored` (stored, not answered), `failed`. Outbound: `queued` (to
 * be sent), `sent` (the provider took it), then what the provider reports (`delivered`,
 * `undelivered`, `failed`). A message recorded with `recordMessage` has none.
 */
export const MESSAGE_STATUSES = [
  'received',
  'ignored',
  'deferred',
  'answered',
  'queued',
  'sent',
  'delivered',
  'undelivered',
  'failed',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface Message {
  id: string;
  workspaceId: string;
  agentId: string;
  direction: MessageDirection;
  channel: MessageChannel;
  from: string;
  to: string;
  subject: string | null;
  body: string;
  sentAt: Date;
  createdAt: Date;
  /** The channel entry that received or sent it (null: recorded by a connector, or the channel was removed). */
  channelId: string | null;
  /** The conversation it belongs to (SMS: the channel and the other party's number). */
  threadId: string | null;
  /** The provider's id of the message (SMS: the MessageSid); de-duplicates redeliveries. */
  messageId: string | null;
  /** The provider id of the message this one answers. */
  inReplyTo: string | null;
  status: MessageStatus | null;
  /** Processing attempts so far (answering an inbound message, sending an outbound one); the claim's fence. */
  attempts: number;
  /** Attempts that failed (deferrals by a limit are not failures); the retry schedule's count. */
  failures: number;
  /** When it is due to be processed; null when there is nothing left to do. */
  nextAttemptAt: Date | null;
  /** While an instance holds it (its lease). */
  lockedUntil: Date | null;
  lastError: string | null;
  /** The run that answered it (inbound) or produced it (outbound). */
  runId: string | null;
  /** What the provider said: its answers to each send attempt, its status callbacks. */
  provider: Json | null;
  /** Inbound email taken to be answered: the one address the answer goes to (the per-recipient budget counts it). */
  answerTo?: string | null;
  /**
   * A W3C traceparent (issue 53): inbound, the span of the call that received it (the answering
   * run links to it); outbound, the span of the run that queued it (its send attempts carry it).
   */
  traceParent?: string | null;
}

/** The channel fields of a message recorded by a connector: none of them apply. */
export const UNCHANNELLED: Pick<
  Message,
  | 'channelId'
  | 'threadId'
  | 'messageId'
  | 'inReplyTo'
  | 'status'
  | 'attempts'
  | 'failures'
  | 'nextAttemptAt'
  | 'lockedUntil'
  | 'lastError'
  | 'runId'
  | 'provider'
> = {
  channelId: null,
  threadId: null,
  messageId: null,
  inReplyTo: null,
  status: null,
  attempts: 0,
  failures: 0,
  nextAttemptAt: null,
  lockedUntil: null,
  lastError: null,
  runId: null,
  provider: null,
};
