import { performance } from 'node:perf_hooks';
import { ScriptFailure, type ScriptLimits } from '../../domain/core/sandbox.ports.js';

/**
 * Time accounting of one script run. CPU time is the time spent inside VM slices (`inVm`) only,
 * so waiting on host calls does not count; wall time runs from construction. The first limit hit
 * (or the abort) is remembered as `failure`, and from then on `shouldInterrupt` keeps answering
 * true so every later VM slice stops at once — a script cannot catch its way past a timeout.
 */
export class RunClock {
  private usedMs = 0;
  private sliceStart = -1;
  private readonly wallDeadline: number;
  failure: ScriptFailure | undefined;

  /**
   * @param onSlice told when a slice starts (with the epoch-ms instant by which it must have ended,
   *   given the CPU and wall time left) and when it ends (with 0) — a watchdog outside the thread
   *   uses it to catch a slice QuickJS cannot interrupt.
   * @param stopRequested polled like the signal; for a stop requested from another thread, which
   *   cannot abort `signal` while a slice holds this thread's event loop.
   */
  constructor(
    private readonly limits: Pick<ScriptLimits, 'cpuMs' | 'wallMs'>,
    private readonly signal: AbortSignal | undefined,
    private readonly logs: string[],
    private readonly onSlice?: (deadlineEpochMs: number) => void,
    private readonly stopRequested?: () => boolean,
  ) {
    this.wallDeadline = performance.now() + limits.wallMs;
  }

  /** CPU milliseconds used so far, including a slice in progress. */
  get cpuMs(): number {
    return this.usedMs + (this.sliceStart < 0 ? 0 : performance.now() - this.sliceStart);
  }

  /** Runs `fn` (which enters the VM) as one accounted slice. Slices must not nest. */
  inVm<T>(fn: () => T): T {
    if (this.onSlice) {
      const budget = Math.min(this.limits.cpuMs - this.usedMs, this.wallRemainingMs());
      this.onSlice(Date.now() + Math.max(0, budget));
    }
    this.sliceStart = performance.now();
    try {
      return fn();
    } finally {
      this.usedMs += performance.now() - this.sliceStart;
      this.sliceStart = -1;
      this.onSlice?.(0);
    }
  }

  /** The QuickJS interrupt handler: called every few thousand bytecodes while a slice runs. */
  readonly shouldInterrupt = (): boolean => {
    if (this.failure) return true;
    this.check();
    return this.failure !== undefined;
  };

  /** Records the first exceeded limit or the abort, if any; returns the recorded failure. */
  check(): ScriptFailure | undefined {
    if (this.failure) return this.failure;
    if (this.signal?.aborted || this.stopRequested?.()) this.fail('aborted', 'Script run was aborted');
    else if (this.cpuMs > this.limits.cpuMs)
      this.fail('timeout', `Script exceeded its CPU time limit of ${this.limits.cpuMs} ms`);
    else if (performance.now() > this.wallDeadline) this.wallExpired();
    return this.failure;
  }

  /** Milliseconds until the wall deadline (never negative). */
  wallRemainingMs(): number {
    return Math.max(0, this.wallDeadline - performance.now());
  }

  wallExpired(): void {
    this.fail('timeout', `Script exceeded its wall-clock time limit of ${this.limits.wallMs} ms`);
  }

  private fail(kind: ScriptFailure['kind'], message: string): void {
    this.failure ??= new ScriptFailure(kind, message, this.logs);
  }
}
