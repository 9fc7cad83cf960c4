import { createHash } from 'node:crypto';
import { Invalid } from '../errors.js';
import type { RecordFilter, SortKey } from './record-filter.js';
import { DATE_TIME_PATTERN } from './records.js';

const DATE_TIME = new RegExp(DATE_TIME_PATTERN);

/**
 * A cursor: where the last record of a page stands, and a fingerprint of the filter and sort it
 * belongs to, so a cursor sent with another query is refused rather than skipping records silently.
 * Opaque to callers (base64url JSON); it holds only values the caller was already given.
 */
/**
 * The longest cursor the service hands out, with room: up to 3 sort keys, a string key holding at
 * most 1,000 characters (the part of a string that sorts, see record.repo.ts), each at most 6
 * bytes of JSON, in base64url. A longer one is refused before it is decoded.
 */
export const MAX_CURSOR_CHARS = 32_000;

/** The cursor of the page that ends at `pos`, for the next page of the same query. */
export function encodeCursor(pos: RecordPosition, filter: RecordFilter, sort: SortKey[]): string {
  return Buffer.from(JSON.stringify({ k: pos.keys, s: pos.seq, q: fingerprint(filter, sort) })).toString('base64url');
}

/** Where the page after `cursor` starts; Invalid when it is not a cursor of this filter and sort. */
export function decodeCursor(cursor: unknown, filter: RecordFilter, sort: SortKey[]): RecordPosition {
  const bad = (why: string) => new Invalid(`cursor: ${why}`, 'cursor');
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_CHARS)
    throw bad('must be the nextCursor of a previous page');
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad('must be the nextCursor of a previous page');
  }
  const o = c as { k?: unknown; s?: unknown; q?: unknown };
  if (!o || typeof o !== 'object' || typeof o.q !== 'string') throw bad('must be the nextCursor of a previous page');
  if (o.q !== fingerprint(filter, sort))
    throw bad(
      'belongs to a query with another filter or sort; send the same filter and sort as the query that returned it',
    );
  const keys = o.k;
  if (
    !Array.isArray(keys) ||
    keys.length !== sort.length ||
    !keys.every((k) => k === null || typeof k === 'string') ||
    typeof o.s !== 'string' ||
    !/^\d{1,18}$/.test(o.s)
  ) {
    throw bad('must be the nextCursor of a previous page');
  }
  for (const [i, k] of keys.entries())
    if (k !== null && !validKeyText(sort[i]!.type, k)) throw bad('must be the nextCursor of a previous page');
  return { keys: keys as (string | null)[], seq: o.s };
}

/** A sort key's text as the database wrote it; anything else would fail the cast back. */
function validKeyText(type: SortKey['type'], k: string): boolean {
  switch (type) {
    case 'NUMBER':
      return k.length <= 1000 && /^-?\d+(\.\d+)?$/.test(k);
    case 'BOOLEAN':
      return k === 'true' || k === 'false';
    case 'DATETIME':
      return DATE_TIME.test(k);
    case 'STRING':
      return true;
  }
}

function fingerprint(filter: RecordFilter, sort: SortKey[]): string {
  return createHash('sha256')
    .update(JSON.stringify([filter, sort]))
    .digest('base64url')
    .slice(0, 16);
}

/** Where a record stands in a sort order: its sort keys' values as text (null: no value) and its insertion number. */
export interface RecordPosition {
  keys: (string | null)[];
  seq: string;
}
