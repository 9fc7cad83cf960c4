/** Runs background work every so often; the composition root uses it for housekeeping. */
export interface Scheduler {
  /** Calls `task` every `everyMs` milliseconds until the returned handle is stopped. */
  every(everyMs: number, task: () => Promise<void>): { stop(): void };
}

/** Real time: an interval timer that never keeps the process alive on its own. */
export const intervalScheduler: Scheduler = {
  every(everyMs, task) {
    const timer = setInterval(() => void task(), everyMs);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};
