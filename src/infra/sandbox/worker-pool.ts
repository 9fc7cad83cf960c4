import {
  ScriptFailure,
  type ScriptOutcome,
  type ScriptRequest,
  type ScriptSandbox,
} from '../../domain/core/sandbox.ports.js';
import {
  limitFailure,
  newPoolWorker,
  overrunRun,
  postRun,
  type PoolWorker,
  requestStop,
  startedAt,
  workersHeld,
  type WorkerPoolOptions,
} from './pool-worker.js';
import { answerHostCall, keepLog, notJsonAnswer } from './worker-host.js';
import { abortedFailure, busyFailure, OwnerQueues, type QueuedRun } from './worker-queue.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

/** A run on a worker, until it settles. */
interface ActiveRun {
  req: ScriptRequest;
  worker: PoolWorker;
  logs: string[];
  resolve(outcome: ScriptOutcome): void;
  reject(failure: ScriptFailure): void;
  onAbort: () => void;
}

/** How often the watchdog looks at the workers' running slices. */
const WATCHDOG_INTERVAL_MS = 50;
/** The pool's own wall-clock backstop beyond `wallMs`, for a worker that cannot answer at all. */
const BACKSTOP_MS = 1_000;

/**
 * Runs scripts on worker threads, one run per worker at a time: QuickJS cannot preempt a script
 * (its interrupt can only end it), so a CPU-bound run sharing a thread would hold back every other
 * run on it — and their wall clocks. Runs that find no free worker wait in a queue per owner (the
 * agent), and a freed worker goes to the waiting owner holding the fewest workers, the one served
 * least recently among equals: an owner alone may use every worker, but once others wait, each
 * freed worker goes to them until the workers are shared evenly — one owner's flood delays another
 * owner's run by at most the shortest run in progress. A queued run whose signal aborts leaves the
 * queue without starting; one that waits longer than `queueWaitMs`, or finds its owner's queue
 * full, fails as `busy` (the caller may retry) — never as a timeout of a script that never ran.
 *
 * Host calls and log lines come back here and reach the run's ScriptHost on this thread. A
 * watchdog terminates any worker whose VM slice overruns its deadline — QuickJS cannot interrupt a
 * long builtin call — failing its run with a timeout; a fresh worker replaces it on demand.
 */
export class QuickJsWorkerPool implements ScriptSandbox {
  private workers: PoolWorker[] = [];
  private readonly runs = new Map<number, ActiveRun>();
  private readonly queues = new OwnerQueues();
  private nextId = 1;
  private watchdogTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: WorkerPoolOptions) {}

  run(req: ScriptRequest): Promise<ScriptOutcome> {
    if (req.signal?.aborted) return Promise.reject(abortedFailure());
    if (this.closed) return Promise.reject(new ScriptFailure('error', 'Script sandbox is shut down'));
    if (this.queues.waiting(req.owner) >= this.opts.maxQueuedPerOwner) {
      const max = this.opts.maxQueuedPerOwner;
      return Promise.reject(
        busyFailure(
          `Script sandbox is busy: this agent already has as many scripts waiting as allowed (${max}); retry shortly`,
        ),
      );
    }
    return new Promise<ScriptOutcome>((resolve, reject) => {
      const queued: QueuedRun = { id: this.nextId++, req, resolve, reject, onAbort: () => this.abort(queued) };
      req.signal?.addEventListener('abort', queued.onAbort, { once: true });
      this.queues.add(queued);
      this.dispatch();
      // Only a run that found no free worker waits, so only it needs a deadline in the queue.
      if (!queued.started)
        queued.timer = setTimeout(
          () => this.dequeue(queued, busyFailure('Script sandbox is busy; retry shortly')),
          this.opts.queueWaitMs,
        );
    });
  }

  /** Terminates every worker; runs waiting or in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdogTimer);
    const shutDown = () => new ScriptFailure('error', 'Script sandbox is shut down');
    for (const queued of this.queues.all()) this.dequeue(queued, shutDown());
    await Promise.all([...this.workers].map((w) => this.kill(w, shutDown().message)));
  }

  // --- queue -----------------------------------------------------------------------------------

  /** Starts waiting runs while there are free workers (or room for another). */
  private dispatch(): void {
    while (!this.queues.empty) {
      const worker = this.freeWorker();
      if (!worker) return;
      this.start(worker, this.queues.next(workersHeld(this.workers))!);
    }
  }

  /** Takes a run out of the queue without starting it. */
  private dequeue(queued: QueuedRun, failure: ScriptFailure): void {
    if (!this.queues.remove(queued)) return; // already started
    clearTimeout(queued.timer);
    queued.req.signal?.removeEventListener('abort', queued.onAbort);
    queued.reject(failure);
  }

  /** A run's signal aborted: it leaves the queue without starting, or its worker stops it. */
  private abort(queued: QueuedRun): void {
    const run = this.runs.get(queued.id);
    if (run) this.fail(queued.id, abortedFailure(run.logs));
    else this.dequeue(queued, abortedFailure());
  }

  /**
   * Hands a waiting run to a free worker; its wall clock starts when the worker starts it. Its abort
   * listener stays the one it was queued with (see `abort`): one listener per run, not two.
   */
  private start(worker: PoolWorker, queued: QueuedRun): void {
    const { id, req } = queued;
    queued.started = true;
    clearTimeout(queued.timer);
    const run: ActiveRun = {
      req,
      worker,
      logs: [],
      resolve: queued.resolve,
      reject: queued.reject,
      onAbort: queued.onAbort,
    };
    this.runs.set(id, run);
    worker.busy = { id, owner: req.owner };
    this.armBackstop(worker, id, req.limits.wallMs + BACKSTOP_MS);
    try {
      postRun(worker, id, req);
    } catch {
      // This thread could not copy the input for the worker (nested deeper than its stack allows).
      worker.busy = undefined;
      this.settle(id, new ScriptFailure('error', 'Script input is nested too deeply to pass to the sandbox'));
    }
  }

  // --- workers ---------------------------------------------------------------------------------

  /** An idle worker, or a new one while the pool has room. */
  private freeWorker(): PoolWorker | undefined {
    if (this.closed) return undefined;
    return this.workers.find((w) => !w.busy) ?? (this.workers.length < this.opts.size ? this.spawn() : undefined);
  }

  private spawn(): PoolWorker {
    const worker = newPoolWorker(this.opts.worker, this.opts.stackSizeMb);
    worker.thread.unref(); // an idle pool must not keep the process alive
    worker.thread.on('message', (msg: FromWorker) => this.onMessage(worker, msg));
    // A message this thread could not read (a clone failure): it belonged to the worker's one run.
    worker.thread.on('messageerror', () => this.failBusy(worker, 'Script sent the sandbox a value it could not read'));
    worker.thread.on('error', () => void this.kill(worker, 'Script sandbox worker failed; run the script again'));
    worker.thread.on('exit', () => void this.kill(worker, 'Script sandbox worker stopped; run the script again'));
    this.workers.push(worker);
    this.watchdogTimer ??= setInterval(() => this.checkDeadlines(), WATCHDOG_INTERVAL_MS).unref();
    return worker;
  }

  private checkDeadlines(): void {
    const now = Date.now();
    for (const worker of this.workers) {
      const culprit = overrunRun(worker, now, this.opts.graceMs);
      if (culprit === undefined) continue;
      void this.kill(
        worker,
        'Script sandbox was restarted because a script in it overran its limits; run it again',
        culprit,
      );
    }
  }

  /** Fails the worker's run (the culprit with its limit, another with `message`), terminates it. */
  private async kill(worker: PoolWorker, message: string, culprit?: number): Promise<void> {
    if (worker.dead) return;
    worker.dead = true;
    this.workers = this.workers.filter((w) => w !== worker);
    const busy = worker.busy;
    worker.busy = undefined;
    if (busy) {
      clearTimeout(busy.backstop);
      const run = this.runs.get(busy.id);
      if (run)
        this.settle(
          busy.id,
          busy.id === culprit
            ? limitFailure(run.req, run.logs, startedAt(worker, busy.id))
            : new ScriptFailure('error', message, run.logs),
        );
    }
    this.dispatch(); // a fresh worker takes the next waiting run
    await worker.thread.terminate();
  }

  /**
   * The pool's own backstop, a little past the run's wall-clock limit counted from when its clocks
   * started (see startedAt), for a worker that cannot answer at all: it checks again until then.
   */
  private armBackstop(worker: PoolWorker, id: number, delayMs: number): void {
    if (worker.busy?.id !== id) return;
    worker.busy.backstop = setTimeout(() => {
      const run = this.runs.get(id);
      const started = startedAt(worker, id);
      const limit = (run?.req.limits.wallMs ?? 0) + BACKSTOP_MS;
      const left = started === undefined ? limit : started + limit - Date.now();
      if (left > 0) this.armBackstop(worker, id, left);
      else void this.kill(worker, 'Script sandbox worker stopped answering; run the script again', id);
    }, delayMs);
  }

  /** The worker reported its run ended: it is free for the next. */
  private release(worker: PoolWorker, id: number): void {
    if (worker.busy?.id !== id) return;
    clearTimeout(worker.busy.backstop);
    worker.busy = undefined;
    this.dispatch();
  }

  // --- messages --------------------------------------------------------------------------------

  private onMessage(worker: PoolWorker, msg: FromWorker): void {
    const run = this.runs.get(msg.id); // undefined once settled here (aborted, killed): late messages are moot
    switch (msg.type) {
      case 'host':
        if (run) void this.callHost(worker, run, msg);
        break;
      case 'log':
        if (run) keepLog(run.logs, run.req.host, msg.line);
        break;
      case 'done':
        this.settle(msg.id, msg.outcome);
        this.release(worker, msg.id);
        break;
      case 'failed':
        this.settle(msg.id, new ScriptFailure(msg.kind, msg.message, msg.logs, msg.position));
        this.release(worker, msg.id);
        break;
    }
  }

  private async callHost(
    worker: PoolWorker,
    run: ActiveRun,
    msg: Extract<FromWorker, { type: 'host' }>,
  ): Promise<void> {
    const reply = await answerHostCall(run.req.host, msg);
    if (!this.runs.has(msg.id)) return;
    try {
      this.post(worker, reply);
    } catch {
      // The result could not be cloned (not JSON): report that instead.
      this.post(worker, notJsonAnswer(msg));
    }
  }

  private post(worker: PoolWorker, msg: ToWorker): void {
    if (!worker.dead) worker.thread.postMessage(msg);
  }

  // --- settling --------------------------------------------------------------------------------

  private failBusy(worker: PoolWorker, message: string): void {
    const id = worker.busy?.id;
    if (id !== undefined) this.fail(id, new ScriptFailure('error', message, this.runs.get(id)?.logs));
  }

  /** Settles here and tells the worker to stop the run — at once, even inside a VM slice. */
  private fail(id: number, failure: ScriptFailure): void {
    const run = this.runs.get(id);
    if (run && !run.worker.dead) {
      requestStop(run.worker, id);
      this.post(run.worker, { type: 'abort', id });
    }
    this.settle(id, failure);
  }

  private settle(id: number, result: ScriptOutcome | ScriptFailure): void {
    const run = this.runs.get(id);
    if (!run) return;
    this.runs.delete(id);
    run.req.signal?.removeEventListener('abort', run.onAbort);
    if (result instanceof ScriptFailure) run.reject(result);
    else run.resolve(result);
  }
}
