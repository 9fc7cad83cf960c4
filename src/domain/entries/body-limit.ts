import type { Webhook } from './entry.entities.js';
import { PayloadTooLarge } from '../errors.js';

/**
 * How large a body the webhook receiver accepts (DESIGN §6, 413). Anyone who knows an agent id and
 * an integration name can post to an integration without a signature check, so such an
 * integration takes 64 KiB unless its `maxBodyBytes` says more; a signed one takes 1 MiB. A
 * `maxBodyBytes` applies to both kinds, lower or higher, up to 1 MiB.
 */
export const UNSIGNED_BODY_BYTES = 64 * 1024;
/** The most any integration accepts, and the default of one with a signature check. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/** The largest body the integration accepts, in bytes. */
export function bodyLimit(webhook: Pick<Webhook, 'signature' | 'maxBodyBytes'>): number {
  return webhook.maxBodyBytes ?? (webhook.signature ? MAX_WEBHOOK_BODY_BYTES : UNSIGNED_BODY_BYTES);
}

/** `65536 bytes (64 KiB)`, `1048576 bytes (1 MiB)`, `200000 bytes`. */
function bytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n} bytes (${n / 1024 / 1024} MiB)`;
  return n % 1024 === 0 ? `${n} bytes (${n / 1024} KiB)` : `${n} bytes`;
}

/** The refusal of a body over the integration's limit: says the limit and how its owner can raise it. */
export function bodyTooLarge(webhook: Pick<Webhook, 'signature' | 'maxBodyBytes'>): PayloadTooLarge {
  const limit = bodyLimit(webhook);
  const head = `Request body is too large: this integration accepts at most ${bytes(limit)}`;
  if (limit >= MAX_WEBHOOK_BODY_BYTES) return new PayloadTooLarge(`${head}, the most any integration accepts`);
  const most = bytes(MAX_WEBHOOK_BODY_BYTES);
  if (webhook.maxBodyBytes !== null)
    return new PayloadTooLarge(`${head}, its maxBodyBytes; its owner can raise maxBodyBytes up to ${most}`);
  return new PayloadTooLarge(
    `${head}, the limit without a signature check; its owner can raise it with maxBodyBytes (up to ${most}) or by checking signatures`,
  );
}

/**
 * What the integration's owner should know about it, or null: without a signature check anyone
 * who knows the URL (an agent id and an integration name) can send deliveries that run its handler.
 */
export function webhookWarning(webhook: Pick<Webhook, 'signature'>): string | null {
  if (webhook.signature) return null;
  return (
    'This integration checks no signature: anyone who knows its URL can send deliveries that run its handler. ' +
    "Store the sender's signing secret with createSecret (kind WEBHOOK_SIGNING_SECRET) and set signature {scheme, secretName} with updateWebhook"
  );
}
