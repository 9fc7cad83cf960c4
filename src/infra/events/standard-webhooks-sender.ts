import { Webhook } from 'standardwebhooks';
import type { EventSender } from '../../domain/events/event.ports.js';
import { SERVICE_VERSION } from '../version.js';

export interface EventSenderConfig {
  /** The longest an attempt waits for the receiver's answer, body included. */
  timeoutMs: number;
  /** The most of a response's body read (and kept as the attempt's excerpt). */
  responseBytes: number;
}

export const DEFAULT_EVENT_SENDER: EventSenderConfig = { timeoutMs: 15_000, responseBytes: 1024 };

/**
 * Posts an event signed with Standard Webhooks (`webhook-id` = the event id, `webhook-timestamp`,
 * `webhook-signature`, by the `standardwebhooks` package). Redirects are not followed (a 3xx is a
 * failed attempt), the whole attempt is bounded by `timeoutMs`, and at most `responseBytes` of the
 * answer are read: a receiver can neither hold a worker nor fill the database.
 */
export function standardWebhooksSender(config: EventSenderConfig = DEFAULT_EVENT_SENDER): EventSender {
  return {
    async send({ url, secret, eventId, timestamp, body }) {
      const started = Date.now();
      const signal = AbortSignal.timeout(config.timeoutMs);
      try {
        const signature = new Webhook(secret).sign(eventId, timestamp, body);
        const res = await fetch(url, {
          method: 'POST',
          redirect: 'manual',
          signal,
          headers: {
            'content-type': 'application/json',
            'user-agent': `agent-exposure-service/${SERVICE_VERSION}`,
            'webhook-id': eventId,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
          body,
        });
        const response = await readBounded(res, config.responseBytes).catch(() => null);
        return { status: res.status, response, durationMs: Date.now() - started };
      } catch (err) {
        const why = signal.aborted
          ? `No answer within ${config.timeoutMs} ms`
          : `Request failed: ${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)}`;
        return { status: null, response: why.slice(0, config.responseBytes), durationMs: Date.now() - started };
      }
    },
  };
}

/** The first `max` bytes of a body as text; the rest is not read (the stream is cancelled). */
async function readBounded(res: Response, max: number): Promise<string | null> {
  if (!res.body) return null;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const text = Buffer.concat(chunks).subarray(0, max).toString('utf8');
  return text.length > 0 ? text : null;
}
