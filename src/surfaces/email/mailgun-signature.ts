import { createHmac, timingSafeEqual } from 'node:crypto';
import { Unauthenticated } from '../../domain/errors.js';

/** How far a signature's timestamp may be from the service's clock, either way (docs/decisions.md §31). */
export const MAILGUN_SIGNATURE_WINDOW_SECONDS = 300;

/** The signature fields of a Mailgun post, as sent (any may be missing). */
export interface MailgunSignatureFields {
  timestamp?: string | undefined;
  token?: string | undefined;
  signature?: string | undefined;
}

/** Seconds since the epoch, as Mailgun sends them (no sign, no fraction, no padding games past 12 digits). */
const TIMESTAMP = /^\d{1,12}$/;
/** Mailgun's tokens are 50 random characters; anything printable up to 256 is taken, nothing else is stored. */
const TOKEN = /^[\x21-\x7E]{1,256}$/;
/** A hex SHA-256 digest. */
const SIGNATURE = /^[0-9a-fA-F]{64}$/;

/**
 * Checks a Mailgun signature: `signature` must be the hex HMAC-SHA256 of `timestamp + token` under the
 * webhook signing key (compared in constant time), and `timestamp` within the window of `now`.
 * Returns the token and until when it must be remembered (past that the timestamp check refuses it
 * anyway). Throws Unauthenticated — with no hint of which part failed beyond what the sender already
 * knows — when no key is configured, a field is missing or malformed, the digest differs, or the
 * timestamp is stale.
 */
export function checkMailgunSignature(
  key: string | undefined,
  fields: MailgunSignatureFields,
  now: Date,
): { token: string; rememberUntil: Date } {
  if (!key)
    throw new Unauthenticated('Mailgun inbound mail is not accepted here: MAILGUN_WEBHOOK_SIGNING_KEY is not set');
  const { timestamp, token, signature } = fields;
  if (
    !timestamp ||
    !token ||
    !signature ||
    !TIMESTAMP.test(timestamp) ||
    !TOKEN.test(token) ||
    !SIGNATURE.test(signature)
  ) {
    throw new Unauthenticated(
      'The post is not signed: it needs the timestamp, token and signature fields Mailgun sends',
    );
  }
  const expected = createHmac('sha256', key)
    .update(timestamp + token)
    .digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex')))
    throw new Unauthenticated(
      "The signature does not match: check MAILGUN_WEBHOOK_SIGNING_KEY against the domain's HTTP webhook signing key",
    );
  const signedMs = Number(timestamp) * 1000;
  if (Math.abs(now.getTime() - signedMs) > MAILGUN_SIGNATURE_WINDOW_SECONDS * 1000) {
    throw new Unauthenticated(
      `The signature's timestamp is more than ${MAILGUN_SIGNATURE_WINDOW_SECONDS / 60} minutes from this server's clock: a replayed post, or a clock out of step`,
    );
  }
  return { token, rememberUntil: new Date(signedMs + MAILGUN_SIGNATURE_WINDOW_SECONDS * 1000) };
}
