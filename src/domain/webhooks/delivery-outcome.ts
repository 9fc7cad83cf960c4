import type { AttemptOutcome, DeliveryOutcome, QueuedDelivery } from './webhook.entities.js';
import type { DeliverySettlement } from './webhook.ports.js';
import { retryDelayMs } from '../core/retry-schedule.js';

/**
 * What an attempt's outcome leaves on its delivery at `now` (DESIGN §6): a retry waits out the
 * schedule (jittered by `random`) and the last one fails the delivery for good; a deferral waits
 * for the refusal's Retry-After without counting a failure.
 */
export function settlementOf(
  d: QueuedDelivery,
  o: DeliveryOutcome,
  now: Date,
  random: () => number,
): { outcome: Exclude<AttemptOutcome, 'lost'>; settlement: DeliverySettlement } {
  const base = { nextAttemptAt: d.nextAttemptAt, updatedAt: now };
  switch (o.kind) {
    case 'done':
      return {
        outcome: 'done',
        settlement: {
          ...base,
          status: 'DONE',
          failures: d.failures,
          lastError: null,
          runId: o.runId,
          completedAt: now,
        },
      };
    case 'deferred': {
      const next = new Date(now.getTime() + o.retryAfterSeconds * 1000);
      return {
        outcome: 'deferred',
        settlement: {
          ...base,
          status: 'PENDING',
          failures: d.failures,
          nextAttemptAt: next,
          lastError: o.error,
          runId: d.runId,
          completedAt: null,
        },
      };
    }
    case 'retry': {
      const failures = d.failures + 1;
      const delay = retryDelayMs(failures, random);
      if (delay === null)
        return {
          outcome: 'failed',
          settlement: { ...base, status: 'FAILED', failures, lastError: o.error, runId: o.runId, completedAt: now },
        };
      const next = new Date(now.getTime() + delay);
      return {
        outcome: 'retry',
        settlement: {
          ...base,
          status: 'PENDING',
          failures,
          nextAttemptAt: next,
          lastError: o.error,
          runId: o.runId,
          completedAt: null,
        },
      };
    }
    case 'failed': {
      const failures = o.countsFailure ? d.failures + 1 : d.failures;
      return {
        outcome: 'failed',
        settlement: { ...base, status: 'FAILED', failures, lastError: o.error, runId: o.runId, completedAt: now },
      };
    }
  }
}
