import type { CatalogueKey, Refusal } from '../../domain/error-catalogue.js';
import { encodeHttpError, type HttpErrorAnswer } from '../shared/http.errors.js';

/**
 * Mailgun's retry contract: 406 is the one answer it does not retry; any other error is sent again
 * later. `drop` is a refusal nothing about the post will change on a retry (no such recipient, not
 * an email, a malformed form); `retry` keeps the catalogue's HTTP answer (401 a bad, stale or
 * replayed signature, 413, 429 a channel past its quota and 503 with Retry-After, …).
 */
const RETRY: Record<CatalogueKey, 'drop' | 'retry'> = {
  INVALID: 'drop',
  UNAUTHENTICATED: 'retry',
  FORBIDDEN: 'retry',
  NOT_FOUND: 'drop',
  METHOD_NOT_ALLOWED: 'retry',
  CONFLICT: 'retry',
  PAYLOAD_TOO_LARGE: 'retry',
  UNSUPPORTED_MEDIA_TYPE: 'retry',
  LIMIT_EXCEEDED: 'retry',
  RUN_FAILED: 'retry',
  UNAVAILABLE: 'retry',
};

/** Whether Mailgun should stop retrying this refusal (its 406). */
export function mailgunDrops(r: Refusal): boolean {
  return RETRY[r.key] === 'drop';
}

/** A refusal as the answer to a Mailgun post. */
export function encodeMailgunAnswer(r: Refusal): HttpErrorAnswer {
  // Mailgun's contract, not an HTTP meaning: 406 is the one answer it does not retry.
  return mailgunDrops(r) ? { status: 406, headers: {}, body: { error: r.message } } : encodeHttpError(r);
}
