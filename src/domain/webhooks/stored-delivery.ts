import { isCredentialHeader } from '../core/credentials.js';
import type { WebhookDelivery } from './webhook.entities.js';

// How a received request becomes a stored delivery: what of it is kept and the state a queued
// delivery starts in. Shared by receipt (a new delivery) and replay (a copy of a stored one).

/** PostgreSQL cannot store U+0000 in text or jsonb; a sender's query or path may hold one (`%00`). */
export const storable = (v: string): string => v.replace(/\u0000/g, '\uFFFD');

/** Headers as stored with a delivery and given to its runs: lower-case names, no credential or signature values. */
export function storedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || isCredentialHeader(k)) continue;
    out[k.toLowerCase()] = storable(Array.isArray(v) ? v.join(', ') : v);
  }
  return out;
}

/** The query string as stored: U+0000 shown as U+FFFD, so that no query can make a delivery unstorable. */
export function storedQuery(query: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(query)) out[storable(k)] = Array.isArray(v) ? v.map(storable) : storable(v);
  return out;
}

/** The state of a delivery queued at `now`, before any attempt. */
export function queuedAt(
  now: Date,
): Pick<
  WebhookDelivery,
  | 'bodyDroppedAt'
  | 'status'
  | 'attempts'
  | 'failures'
  | 'lastError'
  | 'runId'
  | 'nextAttemptAt'
  | 'lockedUntil'
  | 'createdAt'
  | 'updatedAt'
  | 'completedAt'
> {
  return {
    bodyDroppedAt: null,
    status: 'PENDING',
    attempts: 0,
    failures: 0,
    lastError: null,
    runId: null,
    nextAttemptAt: now,
    lockedUntil: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}
