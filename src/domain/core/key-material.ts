import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyPrefix = 'ak' | 'wk' | 'mt';

export interface NewKey {
  /** The plaintext, shown once. */
  plaintext: string;
  hash: string;
  /** Display prefix such as `ak_3f9`, enough to tell keys apart without revealing them. */
  prefix: string;
  last4: string;
}

/** SHA-256 of a presented key, hex. */
export function hashKey(plaintext: string): string {
  // The one-shot form: every surface request hashes the key it presents, and a Hash object costs more.
  return hash('sha256', plaintext, 'hex');
}

/** A new key: prefix + 32 random bytes (base64url), with its hash and display parts. */
export function generateKey(prefix: KeyPrefix): NewKey {
  const plaintext = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return describeKey(plaintext);
}

/** Hash and display parts of a key the service generated: its first 6 and last 4 characters (of 40 or more). */
export function describeKey(plaintext: string): NewKey {
  return { plaintext, hash: hashKey(plaintext), prefix: plaintext.slice(0, 6), last4: plaintext.slice(-4) };
}

/**
 * Hash and display parts of a token the operator chose (ADMIN_TOKEN, as short as 16 characters):
 * only its last 4 characters are shown, so a listing never tells most of a short token.
 */
export function describeChosenToken(plaintext: string): NewKey {
  return { plaintext, hash: hashKey(plaintext), prefix: '', last4: plaintext.slice(-4) };
}

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** Which kind of key a presented string claims to be (by prefix), or null. */
export function keyKind(presented: string): KeyPrefix | null {
  const m = /^(ak|wk|mt)_[A-Za-z0-9_-]{20,200}$/.exec(presented);
  return m ? (m[1] as KeyPrefix) : null;
}
