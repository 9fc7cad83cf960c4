import type { ActivitySink } from '../../domain/activity/activity-log.js';
import type { ActivityEntry } from '../../domain/entities.js';
import type { Store } from '../../domain/ports.js';
import type { Logger } from '../logger.js';

/** PostgreSQL text and jsonb cannot hold U+0000: the log keeps such strings with U+FFFD instead. */
function scrub<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value) as T;
  if (Array.isArray(value)) return value.map(scrub) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), scrub(v)])) as T;
  }
  return value;
}

/**
 * Collects activity entries and stores them in batches shortly after the request, so logging adds
 * no database round trip to a request. A batch the database refuses is retried entry by entry, so
 * one bad entry never costs the others. `flush()` (also called on shutdown) stores what is pending.
 */
export function bufferedActivitySink(store: Store, logger: Logger, opts: { delayMs?: number; maxBatch?: number } = {}): ActivitySink {
  const delayMs = opts.delayMs ?? 20;
  const maxBatch = opts.maxBatch ?? 200;
  let pending: ActivityEntry[] = [];
  let timer: NodeJS.Timeout | null = null;
  let inflight: Promise<void> = Promise.resolve();

  // Log what failed without the statement's parameters: they hold request and response bodies.
  const report = (err: unknown, entries: number) =>
    logger.error({ code: (err as { code?: string }).code, error: err instanceof Error ? err.message.slice(0, 200) : String(err), entries }, 'activity log write failed');

  const store1 = async (batch: ActivityEntry[]) => {
    try {
      await store.repos.activity.insertMany(batch);
    } catch (err) {
      if (batch.length === 1) return report(err, 1);
      for (const entry of batch) await store1([entry]);
    }
  };

  const drain = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.length === 0) return inflight;
    const batch = pending;
    pending = [];
    inflight = inflight.then(() => store1(batch));
    return inflight;
  };

  return {
    write(entry) {
      pending.push(scrub(entry));
      if (pending.length >= maxBatch) void drain();
      else if (!timer) {
        timer = setTimeout(() => void drain(), delayMs);
        timer.unref();
      }
    },
    async flush() {
      await drain();
      await inflight;
    },
  };
}
