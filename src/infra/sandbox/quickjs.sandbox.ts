import { availableParallelism } from 'node:os';
import type { ScriptSandbox } from '../../domain/core/sandbox.ports.js';
import { createInlineQuickJsSandbox } from './quickjs.inline.js';
import { QuickJsWorkerPool } from './worker-pool.js';

/** Stack of each worker thread (Node's default for workers is 4 MB; the main thread has ~1 MB). */
const WORKER_STACK_MB = 16;
/**
 * QuickJS stack limits. QuickJS runs as WebAssembly on the thread's own stack, and on some paths
 * (the parser on deeply nested source, JSON.stringify) one byte QuickJS accounts for costs up to
 * ~16 bytes of real stack — a real overflow would corrupt the WASM module, so the limit keeps a
 * wide margin: 256 KiB on a 16 MB worker stack (~1,300 nested calls of ordinary recursion),
 * 64 KiB on the main thread (~340).
 */
export const WORKER_MAX_STACK_BYTES = 256 * 1024;
export const INLINE_MAX_STACK_BYTES = 64 * 1024;
/** Default number of `documents.*` calls one run may make. */
export const DEFAULT_MAX_HOST_CALLS = 1_000;
/**
 * Default longest wait for a worker before a run fails as busy. Above the default CPU limit (5 s),
 * so a run that is next in line always gets a worker in time: the shortest run in progress ends
 * by then (CPU-bound runs end at their CPU limit).
 */
export const DEFAULT_QUEUE_WAIT_MS = 10_000;
/** Default number of runs one agent may have waiting for a worker. */
export const DEFAULT_MAX_QUEUED_PER_OWNER = 100;

export interface QuickJsSandboxOptions {
  /**
   * Worker threads the scripts run on (default: one less than the CPUs, at least 2, at most 4).
   * 0 runs them on the calling thread, without the watchdog: a script can then block that thread
   * well past its CPU limit inside a long builtin call — only for tools and benchmarks.
   */
  workers?: number;
  /** QuickJS stack limit per run, in bytes (defaults above). */
  maxStackBytes?: number;
  /** `documents.*` calls one run may make (default {@link DEFAULT_MAX_HOST_CALLS}). */
  maxHostCalls?: number;
  /** How far past its deadline a VM slice may run before its worker is terminated (default 250 ms). */
  watchdogGraceMs?: number;
  /** Longest a run waits for a worker before it fails as busy (default {@link DEFAULT_QUEUE_WAIT_MS}). */
  queueWaitMs?: number;
  /** Runs one owner may have waiting for a worker (default {@link DEFAULT_MAX_QUEUED_PER_OWNER}). */
  maxQueuedPerOwner?: number;
}

/** Worker threads of the default pool: one less than the CPUs, at least 2, at most 4. */
export function defaultWorkerCount(): number {
  return Math.min(4, Math.max(2, availableParallelism() - 1));
}

/** A ScriptSandbox that owns threads; `close` terminates them (in-flight runs fail). */
export interface QuickJsSandbox extends ScriptSandbox {
  close(): Promise<void>;
}

/**
 * The script sandbox on quickjs-emscripten (DESIGN §5): each run gets a fresh QuickJS runtime +
 * context with a memory limit, CPU and wall-clock limits, and only `input`, `request`,
 * `documents` and `log` in scope — no process, require, import, filesystem or network.
 *
 * Runs execute on a pool of worker threads, so a script never blocks the server's event loop and
 * a script QuickJS cannot interrupt in time (a long builtin call) is stopped by terminating its
 * worker. A worker runs one script at a time; runs wait in a queue shared fairly between agents
 * (see QuickJsWorkerPool). Workers start on demand and do not keep the process alive. Within a worker each run has
 * a QuickJS WASM instance of its own whose linear memory is capped — the effective memory limit
 * (see quickjs.inline.ts).
 */
export function createQuickJsSandbox(opts: QuickJsSandboxOptions = {}): QuickJsSandbox {
  const workers = opts.workers ?? defaultWorkerCount();
  const maxHostCalls = opts.maxHostCalls ?? DEFAULT_MAX_HOST_CALLS;
  if (workers === 0) {
    const inline = createInlineQuickJsSandbox({
      maxStackBytes: opts.maxStackBytes ?? INLINE_MAX_STACK_BYTES,
      maxHostCalls,
    });
    return { run: (req) => inline.run(req), close: async () => {} };
  }
  return new QuickJsWorkerPool({
    size: workers,
    stackSizeMb: WORKER_STACK_MB,
    graceMs: opts.watchdogGraceMs ?? 250,
    queueWaitMs: opts.queueWaitMs ?? DEFAULT_QUEUE_WAIT_MS,
    maxQueuedPerOwner: opts.maxQueuedPerOwner ?? DEFAULT_MAX_QUEUED_PER_OWNER,
    worker: { maxStackBytes: opts.maxStackBytes ?? WORKER_MAX_STACK_BYTES, maxHostCalls },
  });
}
