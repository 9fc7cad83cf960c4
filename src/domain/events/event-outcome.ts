import { retryDelayMs } from '../core/retry-schedule.js';
import type { EventDelivery } from './event.entities.js';
import type { EventSettlement } from './event.ports.js';

/** How the event queue retries and when it gives up on a subscription. */
export interface EventRetryPolicy {
  /** The wait after the n-th failed attempt, null when it was the last (default: the inbound webhooks' schedule, jittered). */
  retryDelay: (failures: number) => number | null;
  /** Deliveries in a row that failed every attempt before their subscription is disabled. */
  disableAfter: number;
}

export const DEFAULT_EVENT_RETRY: EventRetryPolicy = {
  retryDelay: (failures) => retryDelayMs(failures),
  disableAfter: 5,
};

/** How one attempt of a delivery ended, as its task reports it. */
export type EventAttemptOutcome =
  | { kind: 'delivered'; status: number; response: string | null }
  | { kind: 'retry'; status: number | null; response: string | null }
  /** Its subscription is gone or disabled: nothing is sent, the delivery fails without counting. */
  | { kind: 'dropped'; reason: string };

/** Whether an answer counts as delivered: any 2xx (Standard Webhooks). */
export const isDelivered = (status: number | null): status is number =>
  status !== null && status >= 200 && status < 300;

/** What an attempt's outcome leaves on its delivery at `now`. */
export function eventSettlementOf(
  d: Pick<EventDelivery, 'failures'>,
  o: EventAttemptOutcome,
  now: Date,
  policy: EventRetryPolicy,
): EventSettlement {
  const base = { updatedAt: now };
  switch (o.kind) {
    case 'delivered':
      return {
        ...base,
        state: 'delivered',
        failures: d.failures,
        nextAttemptAt: null,
        lastStatus: o.status,
        lastResponse: o.response,
        completedAt: now,
      };
    case 'dropped':
      return {
        ...base,
        state: 'failed',
        failures: d.failures,
        nextAttemptAt: null,
        lastStatus: null,
        lastResponse: o.reason,
        completedAt: now,
      };
    case 'retry': {
      const failures = d.failures + 1;
      const delay = policy.retryDelay(failures);
      const last = { lastStatus: o.status, lastResponse: o.response };
      if (delay === null) return { ...base, ...last, state: 'failed', failures, nextAttemptAt: null, completedAt: now };
      return {
        ...base,
        ...last,
        state: 'pending',
        failures,
        nextAttemptAt: new Date(now.getTime() + delay),
        completedAt: null,
      };
    }
  }
}

/**
 * The subscription's failure streak after a delivery settled `state`, and whether it is disabled
 * now: a delivered one ends the streak; one that failed every attempt adds to it, and the streak
 * reaching `disableAfter` disables the subscription. Pending (a retry to come) changes nothing.
 */
export function streakAfter(
  streak: number,
  state: EventSettlement['state'],
  policy: Pick<EventRetryPolicy, 'disableAfter'>,
): { streak: number; disable: boolean } {
  if (state === 'delivered') return { streak: 0, disable: false };
  if (state === 'pending') return { streak, disable: false };
  const next = streak + 1;
  return { streak: next, disable: next >= policy.disableAfter };
}
