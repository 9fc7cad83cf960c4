import type { Webhook } from '../entries/entry.entities.js';
import { bodyLimit, bodyTooLarge } from '../entries/body-limit.js';
import type { SignatureCheck } from './signatures.js';

/**
 * The most a signed body may be read for its signature check. A body over the integration's limit
 * is refused (413), but only after its signature is checked, which needs every byte; past this
 * bound the request is refused unread instead.
 */
export const MAX_VERIFIED_BYTES = 8 * 1024 * 1024;

export interface ReceivedBody {
  /** The body byte-exact; empty when it was too large. */
  raw: Buffer;
  /** More than the integration's limit was sent: nothing is kept, the request ends in 413 after the checks before it. */
  tooLarge: boolean;
  /** Reading stopped before the end of the body: the rest was never read. */
  unread: boolean;
}

/**
 * Reads the raw body byte-exact, feeding every chunk to the signature check, and keeps it only up
 * to the integration's limit (`bodyLimit`: 64 KiB without a signature unless maxBodyBytes says
 * otherwise, 1 MiB with one). Without a check, reading stops as soon as the body is known to be
 * over the limit (`declaredBytes`, the Content-Length, or the bytes read so far), so nothing past
 * it is buffered; with one, the whole body is hashed (up to MAX_VERIFIED_BYTES) so that a bad
 * signature is a 401 whatever the size, and past that bound it is a 413 at once, unread.
 */
export async function readReceivedBody(
  body: AsyncIterable<Buffer>,
  declaredBytes: number,
  webhook: Webhook,
  check: SignatureCheck | null,
): Promise<ReceivedBody> {
  const limit = bodyLimit(webhook);
  const hardLimit = check ? MAX_VERIFIED_BYTES : limit;
  const refused = (): ReceivedBody => {
    if (check) throw bodyTooLarge(webhook);
    return { raw: Buffer.alloc(0), tooLarge: true, unread: true };
  };
  if (declaredBytes > hardLimit) return refused();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > hardLimit) return refused();
    check?.update(chunk);
    if (total <= limit) chunks.push(chunk);
  }
  return total > limit
    ? { raw: Buffer.alloc(0), tooLarge: true, unread: false }
    : { raw: Buffer.concat(chunks), tooLarge: false, unread: false };
}
