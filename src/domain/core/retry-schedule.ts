/**
 * When a failed delivery is tried again: after failure n (1-based) the delay is
 * RETRY_DELAYS_SECONDS[n - 1], spread by ±20 % of jitter so that deliveries failing together do not
 * come back together. After MAX_DELIVERY_ATTEMPTS failures the delivery is marked FAILED (it stays
 * listed and can be replayed). About 3 hours 45 minutes from the first attempt to the last.
 */
export const RETRY_DELAYS_SECONDS = [10, 30, 120, 600, 1800, 3600, 7200] as const;
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
export const RETRY_JITTER = 0.2;

/** The delay before the next attempt after `failures` failures, or null when the delivery has failed for good. */
export function retryDelayMs(failures: number, random: () => number = Math.random): number | null {
  if (failures < 1) return 0;
  const base = RETRY_DELAYS_SECONDS[failures - 1];
  if (base === undefined) return null;
  const spread = 1 - RETRY_JITTER + 2 * RETRY_JITTER * random();
  return Math.round(base * 1000 * spread);
}
