import type { Clock } from '../../src/domain/clock.js';
import type { Scheduler } from '../../src/infra/scheduler.js';

// The one fake time of the suite. The domain reads time only through its Clock port, and the
// service's timers go through a Scheduler, so tests set and move both by hand: no real time passes.

/** A clock tests set and move by hand. */
export class MovableClock implements Clock {
  constructor(public t: Date) {}
  now() {
    return new Date(this.t);
  }
  set(iso: string) {
    this.t = new Date(iso);
  }
  advance(ms: number) {
    this.t = new Date(this.t.getTime() + ms);
  }
}

/**
 * A movable clock and a scheduler for the service's timers that share it. `advance(ms)` moves the
 * clock forward and runs every scheduled task that falls due on the way, at its due time and in
 * order, awaiting each run.
 */
export interface ManualTime {
  clock: MovableClock;
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
  const clock = new MovableClock(start);
  const now = () => clock.t.getTime();
  const scheduled: Scheduled[] = [];
  return {
    clock,
    scheduler: {
      every(everyMs, task) {
        const s: Scheduled = { everyMs, dueAt: now() + everyMs, task, stopped: false };
        scheduled.push(s);
        return { stop: () => void (s.stopped = true) };
      },
    },
    async advance(ms) {
      const target = now() + ms;
      for (;;) {
        const next = scheduled.filter((s) => !s.stopped && s.dueAt <= target).sort((a, b) => a.dueAt - b.dueAt)[0];
        if (!next) break;
        clock.t = new Date(next.dueAt);
        next.dueAt += next.everyMs;
        await next.task();
      }
      clock.t = new Date(target);
    },
  };
}
