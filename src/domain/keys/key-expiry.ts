import { Invalid } from '../errors.js';

/** The longest a key may be created for: a year. A key meant to last longer is created without an expiry. */
export const MAX_KEY_LIFETIME_DAYS = 365;
const MAX_LIFETIME_MS = MAX_KEY_LIFETIME_DAYS * 24 * 3_600_000;
/** The shortest: a minute, so that a key does not expire on its way to its user. */
export const MIN_KEY_LIFETIME_SECONDS = 60;

/**
 * The expiry of a key being created at `now`: none (`null`/`undefined`), or an instant at least a
 * minute and at most a year ahead. Throws Invalid naming `expiresAt` otherwise.
 */
export function keyExpiry(expiresAt: unknown, now: Date): Date | null {
  if (expiresAt === null || expiresAt === undefined) return null;
  const at =
    expiresAt instanceof Date ? expiresAt : typeof expiresAt === 'string' ? new Date(expiresAt) : new Date(NaN);
  if (Number.isNaN(at.getTime()))
    throw new Invalid('expiresAt: must be a date and time (ISO 8601, e.g. 2027-03-01T12:00:00Z)', 'expiresAt');
  const ahead = at.getTime() - now.getTime();
  if (ahead < MIN_KEY_LIFETIME_SECONDS * 1000) {
    throw new Invalid(
      `expiresAt: must be at least ${MIN_KEY_LIFETIME_SECONDS} seconds in the future (it is ${at.toISOString()}, now is ${now.toISOString()})`,
      'expiresAt',
    );
  }
  if (ahead > MAX_LIFETIME_MS) {
    throw new Invalid(
      `expiresAt: must be at most ${MAX_KEY_LIFETIME_DAYS} days ahead (by ${new Date(now.getTime() + MAX_LIFETIME_MS).toISOString()}); for a key that does not expire, leave expiresAt out`,
      'expiresAt',
    );
  }
  return at;
}

/** Whether a key with this expiry has expired at `now` (a key is refused from its expiry instant on). */
export function hasExpired(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && now.getTime() >= expiresAt.getTime();
}
