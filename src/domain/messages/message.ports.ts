import type { Json } from '../json.js';
import type { CrudRepo } from '../repo.ports.js';
import type { Message, MessageDirection, MessageStatus } from './message.entities.js';

// Ports of messages the domain talks to. src/infra implements them; nothing here knows about SQL.

/** An email attachment stored with its message: metadata, and the bytes when they were kept. */
export interface MessageAttachment {
  filename: string | null;
  contentType: string;
  size: number;
  content: Uint8Array | null;
}

/** What a settled attempt leaves on a channel's message (`nextAttemptAt` null: nothing left to do). */
export interface MessageSettlement {
  status: MessageStatus;
  failures: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  runId: string | null;
  /** Replaces the stored provider details when given. */
  provider?: Json;
  /** The provider's id of the message once it took it (outbound). */
  messageId?: string | null;
}

/**
 * Messages; those of channels are also the channels' queue (like webhook deliveries): a row with
 * `nextAttemptAt` set is due work, claimed under a lease any instance honours, the attempt number
 * fencing every later write of the claim.
 */
export interface MessageRepo extends CrudRepo<Message> {
  /**
   * Stores a channel's message unless one with the same agent, channel, direction and provider id
   * is stored; then stores nothing and returns that one. Its `attachments` are stored with it.
   */
  accept(m: Message, attachments?: readonly MessageAttachment[]): Promise<{ message: Message; duplicate: boolean }>;
  /**
   * Inbound messages of a channel since `since` taken to be answered (any status but `ignored`)
   * whose answer goes to `to` (its `answerTo`), or all of them when `to` is null: the per-recipient
   * and per-channel answer budgets' counts.
   */
  countAnswerable(channelId: string, to: string | null, since: Date): Promise<number>;
  /**
   * Counts one more inbound message of `bytes` for the channel on `day` (YYYY-MM-DD, UTC) unless
   * that would pass `quota`; false (nothing counted) when it would. One statement, so that
   * instances sharing the database count together.
   */
  countIntake(
    channelId: string,
    day: string,
    bytes: number,
    quota: { messagesPerDay: number; bytesPerDay: number },
  ): Promise<boolean>;
  /**
   * Deletes the workspace's messages stored before `before` (their attachments go with them), in
   * batches, and intake counts of days before `before`; messages still due for work are kept.
   */
  prune(workspaceId: string, before: Date, batch?: number): Promise<number>;
  /** Whether the run queued an outbound message into the thread itself (the messaging capability's tools). */
  sentIntoThread(runId: string, threadId: string): Promise<boolean>;
  /** Takes up to `limit` due messages (due, or held under a lease that ran out), oldest due first, each under a lease until `leaseUntil`. */
  claim(now: Date, leaseUntil: Date, limit: number): Promise<Message[]>;
  /** Extends the lease of a claim still held (same attempt); false when it is no longer held. */
  renew(id: string, attempt: number, leaseUntil: Date): Promise<boolean>;
  /** Ends a claim still held (same attempt); false when it is no longer held. */
  settle(id: string, attempt: number, s: MessageSettlement): Promise<boolean>;
  /** Gives a claim still held back to the queue, due at `now`; false when it is no longer held. */
  handBack(id: string, attempt: number, now: Date): Promise<boolean>;
  /** The agent's message of that direction with that provider id, or null. */
  findByMessageId(agentId: string, direction: MessageDirection, messageId: string): Promise<Message | null>;
  /** Sets a message's status and provider details (a provider's status callback). */
  setStatus(id: string, status: MessageStatus, provider: Json): Promise<void>;
}
