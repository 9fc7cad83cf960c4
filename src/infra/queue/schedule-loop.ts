import type { ScheduleFirer } from '../../domain/schedules/schedule-firer.js';
import type { Logger } from '../logger.js';

export interface ScheduleLoop {
  /** Stops the passes, then waits for the fires running here until `deadlineMs` has passed (those still running are marked lost by another instance once their lease ends). */
  stop(deadlineMs?: number): Promise<void>;
}

/**
 * The instance's schedule loop: a pass of the firer every `pollMs` (one at a time), from start. A
 * failed pass is logged and the next one runs as usual.
 */
export function startScheduleLoop(firer: ScheduleFirer, logger: Logger, pollMs: number): ScheduleLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    current = firer
      .pass()
      .catch((err: unknown) => logger.error({ err }, 'schedule pass failed'))
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, pollMs);
        timer.unref();
      });
  };
  tick();
  return {
    async stop(deadlineMs = 0) {
      stopped = true;
      clearTimeout(timer);
      await current;
      await firer.drain(deadlineMs);
    },
  };
}
