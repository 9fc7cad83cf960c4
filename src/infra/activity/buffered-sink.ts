import { withoutBodies, type ActivitySink } from '../../domain/activity/activity-log.js';
import type { ActivityEntry } from '../../domain/activity/activity.entities.js';
import type { Store } from '../../domain/ports.js';
import type { Logger } from '../logger.js';
import { Unavailable } from '../../domain/errors.js';
import { isDatabaseUnavailable } from '../store/pg-errors.js';

// An unpaired UTF-16 surrogate: a high one not followed by a low one, or a low one not preceded by
// a high one (no `u` flag: the pattern sees code units).
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Any character storableText may have to replace (most strings have none, and are returned as they are). */
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/** A string PostgreSQL can store: U+0000 and unpaired surrogates become U+FFFD. */
export function storableText(text: string): string {
  if (!SUSPECT.test(text)) return text;
  const noNul = text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
  return noNul.replace(UNPAIRED_SURROGATE, '\uFFFD');
}

/**
 * A copy of an entry PostgreSQL can store. Text and jsonb cannot hold U+0000, and jsonb refuses
 * an unpaired surrogate (JSON.stringify writes it as a `\ud800` escape, which jsonb rejects as
 * invalid): the log keeps U+FFFD instead, in values and in keys. Bodies arrive already cut to a
 * bounded depth (ActivityLog.writeEntry), so the walk is bounded too.
 */
export function storable<T>(value: T): T {
  // Most entries hold nothing to replace: they are stored as they are, without a copy.
  if (!needsReplacing(value)) return value;
  return replaced(value);
}

/** Whether a string anywhere in the value, key or value, holds a character storableText replaces. */
function needsReplacing(value: unknown): boolean {
  if (typeof value === 'string') return SUSPECT.test(value);
  if (Array.isArray(value)) return value.some(needsReplacing);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      if (SUSPECT.test(k) || needsReplacing((value as Record<string, unknown>)[k])) return true;
    }
  }
  return false;
}

function replaced<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map(replaced) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), replaced(v)])) as T;
  }
  return value;
}

/** The entry made storable; one whose bodies cannot even be walked (unbounded depth) loses them. */
function storableEntry(entry: ActivityEntry): ActivityEntry {
  try {
    return storable(entry);
  } catch {
    return storable(withoutBodies(entry));
  }
}

/**
 * Collects activity entries and stores them in batches shortly after the request, so logging adds
 * no database round trip to a request. A batch the database refuses is retried entry by entry, so
 * one bad entry never costs the others, and an entry refused on its own is stored once more without
 * its bodies, so the request stays on record. `flush()` (also called on shutdown) stores what is pending.
 *
 * While the database cannot be reached, nothing is dropped: the entries stay pending (up to
 * `maxPending`, the oldest dropped beyond it, with an error line) and are tried again every
 * `retryMs`, in batches of `maxBatch`, until the database is back.
 */
export function bufferedActivitySink(
  store: Store,
  logger: Logger,
  opts: { delayMs?: number; maxBatch?: number; retryMs?: number; maxPending?: number } = {},
): BufferedActivitySink {
  const delayMs = opts.delayMs ?? 20;
  const maxBatch = opts.maxBatch ?? 200;
  const retryMs = opts.retryMs ?? 1_000;
  const maxPending = opts.maxPending ?? 100_000;
  /** Set while the database cannot be reached (writes wait for the retry timer). */
  let outage = false;
  let pending: ActivityEntry[] = [];
  /** When the oldest pending entry was written (ms epoch). */
  let pendingSince = 0;
  /** Batches handed to the database and not stored yet: their size and their oldest entry's time. */
  const storing = new Set<{ entries: number; since: number }>();
  let timer: NodeJS.Timeout | null = null;
  let inflight: Promise<void> = Promise.resolve();

  // Log what failed without the statement's parameters: they hold request and response bodies.
  const describe = (err: unknown) => ({
    code: (err as { code?: string }).code,
    error: err instanceof Error ? err.message.slice(0, 200) : String(err),
    entries: 1,
  });

  /** Stores one entry; refused, stores it without its bodies; refused again, reports it. */
  const storeOne = async (entry: ActivityEntry) => {
    try {
      await store.repos.activity.insertMany([entry]);
    } catch (err) {
      if (unreachable(err)) throw err;
      try {
        await store.repos.activity.insertMany([withoutBodies(entry)]);
        logger.warn(describe(err), 'activity log entry stored without its bodies');
      } catch {
        logger.error(describe(err), 'activity log write failed');
      }
    }
  };

  const storeBatch = async (batch: ActivityEntry[]) => {
    if (batch.length === 1) return storeOne(batch[0]!);
    try {
      await store.repos.activity.insertMany(batch);
    } catch (err) {
      if (unreachable(err)) throw err;
      for (const entry of batch) await storeOne(entry);
    }
  };

  /** Entries that could not be stored because the database is unreachable go back in front. */
  const putBack = (entries: ActivityEntry[], since: number) => {
    pending = entries.concat(pending);
    pendingSince = since;
    if (pending.length > maxPending) {
      const dropped = pending.length - maxPending;
      pending = pending.slice(dropped);
      logger.error(
        { entries: dropped, maxPending },
        'activity log: the database has been unreachable too long; the oldest pending entries were dropped',
      );
    }
  };

  const schedule = (ms: number) => {
    if (timer) return;
    timer = setTimeout(() => void drain(), ms);
    timer.unref();
  };

  /** Stores the batch in chunks of maxBatch; on an unreachable database, the rest goes back. */
  const storeAll = async (batch: ActivityEntry[], since: number) => {
    for (let i = 0; i < batch.length; i += maxBatch) {
      try {
        await storeBatch(batch.slice(i, i + maxBatch));
      } catch (err) {
        putBack(batch.slice(i), since);
        if (!outage)
          logger.warn(
            { error: err instanceof Error ? err.message.slice(0, 200) : String(err) },
            'activity log: the database cannot be reached; entries are kept and retried',
          );
        outage = true;
        schedule(retryMs);
        return;
      }
    }
    if (outage) logger.info('activity log: the database is back; pending entries stored');
    outage = false;
  };

  const drain = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.length === 0) return inflight;
    const batch = pending;
    const mark = { entries: batch.length, since: pendingSince };
    storing.add(mark);
    pending = [];
    inflight = inflight.then(() => storeAll(batch, mark.since)).finally(() => void storing.delete(mark));
    return inflight;
  };

  return {
    write(entry) {
      if (pending.length === 0) pendingSince = Date.now();
      pending.push(storableEntry(entry));
      if (outage) schedule(retryMs);
      else if (pending.length >= maxBatch) void drain();
      else if (!timer) {
        timer = setTimeout(() => void drain(), delayMs);
        timer.unref();
      }
    },
    async flush() {
      await drain();
      await inflight;
    },
    backlog() {
      let entries = pending.length;
      let since = pending.length ? pendingSince : Infinity;
      for (const b of storing) {
        entries += b.entries;
        since = Math.min(since, b.since);
      }
      return { entries, oldestMs: entries ? Date.now() - since : 0 };
    },
  };
}

/** Whether a failed write means the database cannot be reached (rather than refusing the entry). */
function unreachable(err: unknown): boolean {
  return err instanceof Unavailable || isDatabaseUnavailable(err);
}

/** The activity sink of the service: entries are stored in batches shortly after they are written. */
export interface BufferedActivitySink extends ActivitySink {
  /** Entries written and not stored yet, and how long the oldest of them has waited (for /metrics). */
  backlog(): { entries: number; oldestMs: number };
}
