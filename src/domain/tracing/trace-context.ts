import { randomFillSync } from 'node:crypto';
import type { SpanContextRef } from './span.types.js';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** W3C Trace Context: a `tracestate` of more than 32 members or 512 characters may be dropped. */
const MAX_TRACESTATE = 512;

/**
 * The caller's span from a W3C `traceparent` (and `tracestate`), or null when there is none or it
 * is malformed: a broken header starts a new trace, as the W3C recommendation says, and is never a
 * refusal. Version ff is invalid; a later version is read by its first four fields.
 */
export function parseTraceparent(header: unknown, state?: unknown): SpanContextRef | null {
  if (typeof header !== 'string' || header.length > 256) return null;
  const m = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest)) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  const ref: SpanContextRef = { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16) };
  if (typeof state === 'string' && state.length > 0 && state.length <= MAX_TRACESTATE) ref.traceState = state;
  return ref;
}

/** The `traceparent` header naming a span (for outgoing calls). */
export function formatTraceparent(ref: SpanContextRef): string {
  return `00-${ref.traceId}-${ref.spanId}-${(ref.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const POOL = Buffer.alloc(24 * 256);
let used = POOL.length;

function randomHex(bytes: number): string {
  if (used + bytes > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  const hex = POOL.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

/** A new random trace id (never all zero). */
export function newTraceId(): string {
  const id = randomHex(16);
  return id === ZERO_TRACE ? newTraceId() : id;
}

/** A new random span id (never all zero). */
export function newSpanId(): string {
  const id = randomHex(8);
  return id === ZERO_SPAN ? newSpanId() : id;
}
