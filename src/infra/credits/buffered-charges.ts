import type { ChargeSink, CreditCharge } from '../../domain/admission/admission.ports.js';
import type { Store } from '../../domain/ports.js';
import type { Logger } from '../logger.js';

type Pending = CreditCharge & { runs: number; maxRunCredits: number };

/**
 * Collects the charges of runs that no credit limit waits on and stores them shortly after, summed
 * per agent and day, in one statement a batch — so charging adds no statement to a request, and 50
 * concurrent runs of one agent no longer queue on that agent's row of the day. A batch the database
 * refuses stays pending and is tried again (its sums only grow; memory is bounded by the number of
 * agents charged). `flush()` (called by readers of usage and on shutdown) stores what is pending and
 * rejects if it cannot. What a `kill -9` loses: the charges of the last `delayMs`
 * (docs/decisions.md, "Hot path").
 */
export function bufferedChargeSink(
  store: Store,
  logger: Logger,
  opts: { delayMs?: number; retryMs?: number } = {},
): ChargeSink {
  const delayMs = opts.delayMs ?? 20;
  const retryMs = opts.retryMs ?? 1_000;
  let pending = new Map<string, Pending>();
  let timer: NodeJS.Timeout | null = null;
  let inflight: Promise<void> = Promise.resolve();

  const add = (into: Map<string, Pending>, c: Pending) => {
    const key = `${c.agentId}\u0000${c.day}`;
    const had = into.get(key);
    if (!had) return void into.set(key, { ...c });
    had.credits = Math.round((had.credits + c.credits) * 1e6) / 1e6;
    had.runs += c.runs;
    had.maxRunCredits = Math.max(had.maxRunCredits, c.maxRunCredits);
    had.teamId = c.teamId;
  };

  const schedule = (ms: number) => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void drain().catch(() => {});
    }, ms);
    timer.unref();
  };

  const drain = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.size === 0) return inflight;
    const batch = [...pending.values()];
    pending = new Map();
    inflight = inflight
      .catch(() => {})
      .then(async () => {
        try {
          await store.repos.usage.chargeMany(batch);
        } catch (err) {
          // Nothing charged is dropped: the batch goes back and is tried again.
          for (const c of batch) add(pending, c);
          logger.warn(
            { error: err instanceof Error ? err.message.slice(0, 200) : String(err), agents: batch.length },
            'credit charges not stored yet; retrying',
          );
          schedule(retryMs);
          throw err;
        }
      });
    return inflight;
  };

  return {
    charge(c) {
      add(pending, { ...c, runs: 1, maxRunCredits: c.credits });
      schedule(delayMs);
    },
    async flush() {
      await drain();
      await inflight;
    },
  };
}
