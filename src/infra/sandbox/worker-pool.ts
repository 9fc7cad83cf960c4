import { Worker } from 'node:worker_threads';
import { ScriptFailure, type Json, type ScriptOutcome, type ScriptRequest, type ScriptSandbox } from '../../domain/runtime/ports.js';
import { MAX_LOG_LINES } from './quickjs.prelude.js';
import {
  WATCHDOG_DEADLINE,
  WATCHDOG_RUN,
  WATCHDOG_SLOTS,
  type FromWorker,
  type ToWorker,
  type WorkerConfig,
} from './worker-protocol.js';

export interface WorkerPoolOptions {
  size: number;
  /** Stack of each worker thread; QuickJS's own stack limit must stay far below it. */
  stackSizeMb: number;
  /** Slack past a VM slice's deadline before the watchdog terminates the worker. */
  graceMs: number;
  worker: Omit<WorkerConfig, 'watchdog'>;
}

interface PoolWorker {
  thread: Worker;
  watchdog: BigInt64Array;
  runs: Set<number>;
  dead: boolean;
}

interface PendingRun {
  req: ScriptRequest;
  worker: PoolWorker;
  wallDeadline: number;
  logs: string[];
  resolve(outcome: ScriptOutcome): void;
  reject(failure: ScriptFailure): void;
  timer: NodeJS.Timeout;
  onAbort: () => void;
}

/** How often the watchdog looks at the workers' running slices. */
const WATCHDOG_INTERVAL_MS = 50;
/** The pool's own wall-clock backstop beyond `wallMs`, for a worker that cannot answer at all. */
const BACKSTOP_MS = 1_000;

/**
 * Runs scripts on worker threads, several runs interleaved per worker (a run waiting on its host
 * holds no thread). Host calls and log lines come back here and reach the run's ScriptHost on
 * this thread. A watchdog terminates any worker whose VM slice overruns its deadline — QuickJS
 * cannot interrupt a long builtin call — failing that run with a timeout and the worker's other
 * runs with an error; the next run starts a fresh worker.
 */
export class QuickJsWorkerPool implements ScriptSandbox {
  private workers: PoolWorker[] = [];
  private readonly runs = new Map<number, PendingRun>();
  private nextId = 1;
  private watchdogTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: WorkerPoolOptions) {}

  run(req: ScriptRequest): Promise<ScriptOutcome> {
    if (req.signal?.aborted) return Promise.reject(new ScriptFailure('aborted', 'Script run was aborted'));
    if (this.closed) return Promise.reject(new ScriptFailure('error', 'Script sandbox is shut down'));
    const worker = this.pick();
    const id = this.nextId++;
    return new Promise<ScriptOutcome>((resolve, reject) => {
      const run: PendingRun = {
        req,
        worker,
        wallDeadline: Date.now() + req.limits.wallMs,
        logs: [],
        resolve,
        reject,
        timer: setTimeout(() => this.fail(id, wallFailure(req, run.logs)), req.limits.wallMs + BACKSTOP_MS),
        onAbort: () => this.fail(id, new ScriptFailure('aborted', 'Script run was aborted', run.logs)),
      };
      req.signal?.addEventListener('abort', run.onAbort, { once: true });
      this.runs.set(id, run);
      worker.runs.add(id);
      const { source, input, request, limits } = req;
      this.post(worker, { type: 'run', id, source, input, request, limits: { ...limits } });
    });
  }

  /** Terminates every worker; runs still in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdogTimer);
    await Promise.all([...this.workers].map((w) => this.kill(w, 'Script sandbox is shut down')));
  }

  // --- workers ---------------------------------------------------------------------------------

  /** The least busy worker, starting another while every worker is busy and the pool has room. */
  private pick(): PoolWorker {
    const idle = this.workers.find((w) => w.runs.size === 0);
    if (idle) return idle;
    if (this.workers.length < this.opts.size) return this.spawn();
    return this.workers.reduce((a, b) => (b.runs.size < a.runs.size ? b : a));
  }

  private spawn(): PoolWorker {
    const watchdog = new BigInt64Array(new SharedArrayBuffer(WATCHDOG_SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
    const config: WorkerConfig = { ...this.opts.worker, watchdog: watchdog.buffer as SharedArrayBuffer };
    const worker: PoolWorker = { thread: startThread(config, this.opts.stackSizeMb), watchdog, runs: new Set(), dead: false };
    worker.thread.unref(); // an idle pool must not keep the process alive
    worker.thread.on('message', (msg: FromWorker) => this.onMessage(worker, msg));
    worker.thread.on('error', () => void this.kill(worker, 'Script sandbox worker failed; run the script again'));
    worker.thread.on('exit', () => void this.kill(worker, 'Script sandbox worker stopped; run the script again'));
    this.workers.push(worker);
    this.watchdogTimer ??= setInterval(() => this.checkDeadlines(), WATCHDOG_INTERVAL_MS).unref();
    return worker;
  }

  private checkDeadlines(): void {
    const now = Date.now();
    for (const worker of this.workers) {
      const deadline = Number(Atomics.load(worker.watchdog, WATCHDOG_DEADLINE));
      if (deadline === 0 || now <= deadline + this.opts.graceMs) continue;
      const culprit = Number(Atomics.load(worker.watchdog, WATCHDOG_RUN));
      void this.kill(worker, 'Script sandbox was restarted because another script in it overran its limits; run it again', culprit);
    }
  }

  /** Fails the worker's runs (the culprit with its limit, the others with `message`), terminates it. */
  private async kill(worker: PoolWorker, message: string, culprit?: number): Promise<void> {
    if (worker.dead) return;
    worker.dead = true;
    this.workers = this.workers.filter((w) => w !== worker);
    for (const id of [...worker.runs]) {
      const run = this.runs.get(id);
      if (!run) continue;
      const failure = id === culprit ? limitFailure(run) : new ScriptFailure('error', message, run.logs);
      this.fail(id, failure);
    }
    await worker.thread.terminate();
  }

  // --- messages --------------------------------------------------------------------------------

  private onMessage(worker: PoolWorker, msg: FromWorker): void {
    const run = this.runs.get(msg.id);
    if (!run) return; // already settled here (aborted, backstop, killed): late messages are moot
    switch (msg.type) {
      case 'host':
        void this.callHost(worker, run, msg);
        break;
      case 'log':
        if (run.logs.length < MAX_LOG_LINES) run.logs.push(msg.line);
        try {
          run.req.host.log(msg.line);
        } catch {
          // A failing log sink must not fail the script.
        }
        break;
      case 'done':
        this.settle(msg.id, msg.outcome);
        break;
      case 'failed':
        this.settle(msg.id, new ScriptFailure(msg.kind, msg.message, msg.logs));
        break;
    }
  }

  private async callHost(worker: PoolWorker, run: PendingRun, msg: Extract<FromWorker, { type: 'host' }>): Promise<void> {
    const { id, call } = msg;
    let reply: ToWorker;
    try {
      const documents = run.req.host.documents;
      const fn = documents[msg.op] as (...args: unknown[]) => Promise<Json>;
      const value = await fn.apply(documents, msg.args);
      reply = { type: 'hostResult', id, call, ok: true, value: value ?? null };
    } catch (err) {
      reply = { type: 'hostResult', id, call, ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    if (!this.runs.has(id)) return;
    try {
      this.post(worker, reply);
    } catch {
      // The result could not be cloned (not JSON): report that instead.
      this.post(worker, { type: 'hostResult', id, call, ok: false, message: `documents.${msg.op} returned a value that is not JSON` });
    }
  }

  private post(worker: PoolWorker, msg: ToWorker): void {
    if (!worker.dead) worker.thread.postMessage(msg);
  }

  // --- settling --------------------------------------------------------------------------------

  /** Settles here and tells the worker to stop the run (if it still can). */
  private fail(id: number, failure: ScriptFailure): void {
    const run = this.runs.get(id);
    if (run) this.post(run.worker, { type: 'abort', id });
    this.settle(id, failure);
  }

  private settle(id: number, result: ScriptOutcome | ScriptFailure): void {
    const run = this.runs.get(id);
    if (!run) return;
    this.runs.delete(id);
    run.worker.runs.delete(id);
    clearTimeout(run.timer);
    run.req.signal?.removeEventListener('abort', run.onAbort);
    if (result instanceof ScriptFailure) run.reject(result);
    else run.resolve(result);
  }
}

function wallFailure(req: ScriptRequest, logs: string[]): ScriptFailure {
  return new ScriptFailure('timeout', `Script exceeded its wall-clock time limit of ${req.limits.wallMs} ms`, logs);
}

/** A slice deadline is the earlier of the CPU and the wall limit; tell which one was overrun. */
function limitFailure(run: PendingRun): ScriptFailure {
  if (Date.now() >= run.wallDeadline) return wallFailure(run.req, run.logs);
  return new ScriptFailure('timeout', `Script exceeded its CPU time limit of ${run.req.limits.cpuMs} ms`, run.logs);
}

/**
 * Starts a worker on quickjs.worker. Under tsx (development and tests) the entry is TypeScript,
 * which a worker can only load once it has registered tsx itself — see the bootstrap file.
 */
function startThread(config: WorkerConfig, stackSizeMb: number): Worker {
  const typescript = import.meta.url.endsWith('.ts');
  const entry = typescript ? './quickjs.worker.tsx-bootstrap.mjs' : './quickjs.worker.js';
  return new Worker(new URL(entry, import.meta.url), { workerData: config, resourceLimits: { stackSizeMb } });
}
