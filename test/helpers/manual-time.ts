import type { Clock } from '../../src/domain/clock.js';
import type { Scheduler } from '../../src/infra/scheduler.js';

/**
 * Time a test moves by hand: a clock for the domain and a scheduler for the service's timers that
 * share it. `advance(ms)` moves the clock forward and runs every scheduled task that falls due on
 * the way, at its due time and in order, awaiting each run — no real time passes.
 */
export interface ManualTime {
  clock: Clock;
  scheduler: Scheduler;
  /** Moves the clock forward by `ms`, running the tasks due meanwhile; resolves when they finished. */
  advance(ms: number): Promise<void>;
}

interface Scheduled {
  everyMs: number;
  dueAt: number;
  task: () => Promise<void>;
  stopped: boolean;
}

export function manualTime(start: Date): ManualTime {
  let now = start.getTime();
  const scheduled: Scheduled[] = [];
  return {
    clock: { now: () => new Date(now) },
    scheduler: {
      every(everyMs, task) {
        const s: Scheduled = { everyMs, dueAt: now + everyMs, task, stopped: false };
        scheduled.push(s);
        return { stop: () => void (s.stopped = true) };
      },
    },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        const next = scheduled
          .filter((s) => !s.stopped && s.dueAt <= target)
          .sort((a, b) => a.dueAt - b.dueAt)[0];
        if (!next) break;
        now = next.dueAt;
        next.dueAt += next.everyMs;
        await next.task();
      }
      now = target;
    },
  };
}
