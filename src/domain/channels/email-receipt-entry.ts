import type { ActivityRecord } from '../activity/activity-log.js';
import type { Message } from '../messages/message.entities.js';

/**
 * The EMAIL surface's activity entry of a stored message (a redelivery is on record too, as such):
 * who wrote to which channel address, how it came in, and what was stored.
 */
export function emailReceiptEntry(
  m: Message,
  address: string,
  via: 'smtp' | 'mailgun',
  duplicate: boolean,
): ActivityRecord {
  return {
    surface: 'EMAIL',
    entry: address,
    method: via === 'smtp' ? 'SMTP' : 'POST',
    path: address,
    status: via === 'smtp' ? 250 : 200,
    requestBody: { from: m.from, to: m.to, subject: m.subject, messageId: m.messageId, threadId: m.threadId, via },
    response: {
      stored: m.id,
      status: m.status,
      duplicate,
      ...(m.lastError ? { note: m.lastError } : {}),
    },
    credits: 0,
    durationMs: null,
  };
}
