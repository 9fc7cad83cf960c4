import type { ActivitySink } from '../../domain/activity/activity-log.js';
import type { ActivityEntry } from '../../domain/model.js';
import type { Store } from '../../domain/ports.js';
import type { Logger } from '../logger.js';

/**
 * Collects activity entries and stores them in batches shortly after the request, so logging adds
 * no database round trip to a request. `flush()` (also called on shutdown) stores what is pending.
 */
export function bufferedActivitySink(store: Store, logger: Logger, opts: { delayMs?: number; maxBatch?: number } = {}): ActivitySink {
  const delayMs = opts.delayMs ?? 20;
  const maxBatch = opts.maxBatch ?? 200;
  let pending: ActivityEntry[] = [];
  let timer: NodeJS.Timeout | null = null;
  let inflight: Promise<void> = Promise.resolve();

  const drain = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.length === 0) return inflight;
    const batch = pending;
    pending = [];
    inflight = inflight.then(async () => {
      try {
        await store.repos.activity.insertMany(batch);
      } catch (err) {
        logger.error({ err, entries: batch.length }, 'activity log write failed');
      }
    });
    return inflight;
  };

  return {
    write(entry) {
      pending.push(entry);
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
