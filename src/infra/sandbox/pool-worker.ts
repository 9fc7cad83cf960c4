import { Worker } from 'node:worker_threads';
import { ScriptFailure, type ScriptRequest } from '../../domain/core/sandbox.ports.js';
import {
  WATCHDOG_DEADLINE,
  WATCHDOG_RUN,
  WATCHDOG_STARTED_AT,
  WATCHDOG_STARTED_RUN,
  WATCHDOG_SLOTS,
  WATCHDOG_STOP,
  type ToWorker,
  type WorkerConfig,
} from './worker-protocol.js';

/** The pool's size, the workers' settings and the limits of its queue. */
export interface WorkerPoolOptions {
  size: number;
  /** Stack of each worker thread; QuickJS's own stack limit must stay far below it. */
  stackSizeMb: number;
  /** Slack past a VM slice's deadline before the watchdog terminates the worker. */
  graceMs: number;
  /** Longest a run waits for a worker; past it the run fails as `busy` without starting. */
  queueWaitMs: number;
  /** Most runs one owner may have waiting; a run beyond them fails as `busy` at once. */
  maxQueuedPerOwner: number;
  worker: Omit<WorkerConfig, 'watchdog'>;
}

/** A worker thread of the pool and the watchdog memory it shares with it. */
export interface PoolWorker {
  thread: Worker;
  watchdog: BigInt64Array;
  /**
   * The run the worker is executing, from dispatch until the worker itself reports that run ended
   * — which may be after it settled here (aborted): until then the thread is not free.
   */
  busy: { id: number; owner: string; backstop?: NodeJS.Timeout } | undefined;
  dead: boolean;
}

/** Young generation of a worker thread's V8 heap (see startThread). */
const WORKER_YOUNG_GENERATION_MB = 4;

/** Starts a thread with its own watchdog memory; the caller wires its events. */
export function newPoolWorker(config: Omit<WorkerConfig, 'watchdog'>, stackSizeMb: number): PoolWorker {
  const watchdog = new BigInt64Array(new SharedArrayBuffer(WATCHDOG_SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
  const thread = startThread({ ...config, watchdog: watchdog.buffer as SharedArrayBuffer }, stackSizeMb);
  return { thread, watchdog, busy: undefined, dead: false };
}

/**
 * The run whose VM slice has overrun its deadline by more than `graceMs`, or undefined: QuickJS
 * cannot interrupt a long builtin call, so only terminating the thread stops it.
 */
export function overrunRun(worker: PoolWorker, now: number, graceMs: number): number | undefined {
  const deadline = Number(Atomics.load(worker.watchdog, WATCHDOG_DEADLINE));
  if (deadline === 0 || now <= deadline + graceMs) return undefined;
  return Number(Atomics.load(worker.watchdog, WATCHDOG_RUN));
}

/**
 * When the run's clocks started on its worker (epoch ms), or undefined before they have: a
 * thread's first run waits for QuickJS to compile, which must not count against its wall clock.
 */
export function startedAt(worker: PoolWorker, id: number): number | undefined {
  if (Atomics.load(worker.watchdog, WATCHDOG_STARTED_RUN) !== BigInt(id)) return undefined;
  return Number(Atomics.load(worker.watchdog, WATCHDOG_STARTED_AT));
}

/** Asks the worker to stop run `id` at its next interrupt check, even inside a VM slice. */
export function requestStop(worker: PoolWorker, id: number): void {
  Atomics.store(worker.watchdog, WATCHDOG_STOP, BigInt(id));
}

/**
 * A slice deadline is the earlier of the CPU and the wall limit; tell which one was overrun
 * (`started`: when the run's clocks started, see startedAt).
 */
export function limitFailure(req: ScriptRequest, logs: string[], started: number | undefined): ScriptFailure {
  if (started !== undefined && Date.now() >= started + req.limits.wallMs) {
    return new ScriptFailure('timeout', `Script exceeded its wall-clock time limit of ${req.limits.wallMs} ms`, logs);
  }
  return new ScriptFailure('timeout', `Script exceeded its CPU time limit of ${req.limits.cpuMs} ms`, logs);
}

/**
 * Starts a worker on quickjs.worker. Under tsx (development and tests) the entry is TypeScript,
 * which a worker can only load once it has registered tsx itself — see the bootstrap file.
 */
function startThread(config: WorkerConfig, stackSizeMb: number): Worker {
  const typescript = import.meta.url.endsWith('.ts');
  const entry = typescript ? './quickjs.worker.tsx-bootstrap.mjs' : './quickjs.worker.js';
  // A small young generation: a worker allocates little on its own heap (scripts live in WASM memory),
  // and a large one only grows each thread by tens of MB under load.
  return new Worker(new URL(entry, import.meta.url), {
    workerData: config,
    resourceLimits: { stackSizeMb, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
}

/** How many workers each owner holds now. */
export function workersHeld(workers: PoolWorker[]): Map<string, number> {
  const held = new Map<string, number>();
  for (const w of workers) if (w.busy) held.set(w.busy.owner, (held.get(w.busy.owner) ?? 0) + 1);
  return held;
}

/** Sends run `id` to the worker; throws when this thread cannot copy the input for the worker. */
export function postRun(worker: PoolWorker, id: number, req: ScriptRequest): void {
  const { source, input, request, limits } = req;
  worker.thread.postMessage({
    type: 'run',
    id,
    source,
    input,
    request,
    limits: { ...limits },
    compileOnly: req.compileOnly === true,
  } satisfies ToWorker);
}
