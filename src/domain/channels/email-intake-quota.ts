import type { InboundMail } from '../email/inbound-mail.js';
import type { AnswerReason } from '../email/loop-rules.js';
import { LimitExceeded } from '../errors.js';
import type { Message } from '../messages/message.entities.js';
import type { MessageAttachment, MessageRepo } from '../messages/message.ports.js';

/** What one email channel stores of inbound mail per UTC day (docs/security.md, "Round four: inbound mail quota and retention"). */
export interface IntakeQuota {
  /** EMAIL_DAILY_MESSAGES_PER_CHANNEL */
  messagesPerDay: number;
  /** EMAIL_DAILY_BYTES_PER_CHANNEL: the stored bytes (subject, text, HTML, kept attachment bytes). */
  bytesPerDay: number;
}

export const DEFAULT_INTAKE_QUOTA: IntakeQuota = { messagesPerDay: 1000, bytesPerDay: 200 * 1024 * 1024 };

/**
 * Whether the bytes of a message's attachments are kept: only when the loop and budget rules let
 * it be answered. Bulk, list, automatic, bounced and over-budget mail keeps their metadata only —
 * nobody asked for it, and it is what a stranger fills the disk with.
 */
export function keepsAttachmentBytes(reason: AnswerReason): boolean {
  return reason === 'ok';
}

/** The attachments stored with a message: the bytes of those its details mark `kept`, metadata for all. */
export function storedAttachments(mail: InboundMail, kept: readonly { kept: boolean }[]): MessageAttachment[] {
  return mail.attachments.map((a, i) => ({
    filename: a.filename,
    contentType: a.contentType,
    size: a.size,
    content: kept[i]?.kept ? (a.content ?? null) : null,
  }));
}

/** What a stored message costs its channel's byte quota: subject, text and the attachment bytes kept (HTML is in `provider`). */
export function storedBytes(
  message: Pick<Message, 'subject' | 'body'>,
  html: string | null,
  attachments: readonly MessageAttachment[],
): number {
  let bytes =
    Buffer.byteLength(message.subject ?? '') + Buffer.byteLength(message.body) + Buffer.byteLength(html ?? '');
  for (const a of attachments) bytes += a.content?.length ?? 0;
  return bytes;
}

/** The UTC day of `now` as YYYY-MM-DD: the quota's counting day. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The refusal past the quota (SMTP 452, HTTP 429): a temporary one, good again at the next UTC midnight. */
export function quotaExceeded(address: string, quota: IntakeQuota, now: Date): LimitExceeded {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const retryAfter = Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
  return new LimitExceeded(
    'channel_daily_quota',
    retryAfter,
    `The channel ${address} has taken its most inbound mail for today (${quota.messagesPerDay} messages, ${quota.bytesPerDay} bytes); send it again after ${new Date(midnight).toISOString()}`,
  );
}

/**
 * Stores one channel's copy of a message with its attachments and counts it against the channel's
 * quota, in the caller's transaction: over the quota it throws (and the transaction stores
 * nothing). A duplicate (a message id the channel has) is stored and counted once.
 */
export async function storeCopy(
  messages: Pick<MessageRepo, 'accept' | 'countIntake'>,
  copy: { message: Message; html: string | null; kept: readonly { kept: boolean }[] },
  mail: InboundMail,
  quota: IntakeQuota | undefined,
  now: Date,
): Promise<{ message: Message; duplicate: boolean }> {
  const attachments = storedAttachments(mail, copy.kept);
  const stored = await messages.accept(copy.message, attachments);
  if (stored.duplicate || !quota) return stored;
  const bytes = storedBytes(copy.message, copy.html, attachments);
  if (bytes > quota.bytesPerDay || !(await messages.countIntake(copy.message.channelId!, utcDay(now), bytes, quota)))
    throw quotaExceeded(copy.message.to, quota, now);
  return stored;
}
