import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmCallResult } from 'quickjs-emscripten';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/json-depth.js';
import type { ScriptOutcome, ScriptRequest } from '../../domain/core/sandbox.ports.js';
import { type Json } from '../../domain/json.js';
import { readString } from './host-bridge.js';
import { memoryFailure, type PreparedContext, useThenDispose } from './quickjs.context.js';
import { RunFailures } from './quickjs.failures.js';
import { HostCalls } from './quickjs.host-calls.js';
import { MAX_LOG_LINE_CHARS, MAX_LOG_LINES, PRELUDE, reachesScope, SCOPE } from './quickjs.prelude.js';
import { RunClock } from './run-clock.js';

/** Per-sandbox settings a run needs besides its request. */
export interface RunSettings {
  maxStackBytes: number;
  maxHostCalls: number;
  /** See RunClock: reports each VM slice's deadline (and 0 when it ends) to a watchdog. */
  onSlice?: (deadlineEpochMs: number) => void;
  /** See RunClock: polled while a slice runs; true aborts the run (a stop that cannot wait for the event loop). */
  stopRequested?: () => boolean;
}

/** Pending jobs run per `executePendingJobs` call, so a settled result is noticed promptly. */
const JOB_BATCH = 1_000;

/**
 * One script run: a fresh QuickJS runtime + context, driven until the script's promise settles.
 * The VM is only ever entered from `step` (and setup), one accounted slice at a time; host calls
 * settle outside the VM and are delivered at the start of the next slice, so the VM is never
 * re-entered from a host callback and host latency never counts as CPU time.
 *
 * Exceptions other than ScriptFailure mean the WASM instance itself failed (e.g. the thread's
 * stack overflowed inside it, or QuickJS aborted); the owner must then discard the instance
 * without calling `dispose`.
 */
export class QuickJsRun {
  readonly logs: string[] = [];
  private readonly clock: RunClock;
  private readonly runtime: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  /** Handles owned by the run, disposed before the context. */
  private readonly owned: QuickJSHandle[] = [];
  private readonly hostCalls: HostCalls;
  private readonly failures: RunFailures;
  /** The prelude's `stringify` (see PRELUDE), set once the prelude has run. */
  private stringifyFn: QuickJSHandle | undefined;
  /** Set when the script's promise settled with a value (the runtime may then be reused). */
  private finishedCleanly = false;
  private wake: (() => void) | undefined;
  /** The prelude's result when the context came prepared (see PreparedContext). */
  private preparedApi: QuickJSHandle | undefined;

  /**
   * `runtime` is a fresh one (see newRunRuntime) or one whose earlier runs all ended with
   * `dispose()` answering true: the run gets a context of its own in it — its own globals and
   * built-ins, so nothing one run sets is visible to the next — made now, or `prepared` in it
   * since the last run ended.
   */
  constructor(
    runtime: QuickJSRuntime,
    private readonly req: ScriptRequest,
    settings: RunSettings,
    prepared?: PreparedContext,
  ) {
    this.clock = new RunClock(req.limits, req.signal, this.logs, settings.onSlice, settings.stopRequested);
    this.runtime = runtime;
    this.runtime.setInterruptHandler(this.clock.shouldInterrupt);
    this.runtime.setMemoryLimit(-1);
    // No module loader is ever set, so `import()` rejects inside the VM.
    this.ctx = prepared?.ctx ?? this.runtime.newContext();
    this.preparedApi = prepared?.api;
    const own = (handle: QuickJSHandle) => this.own(handle);
    this.failures = new RunFailures({
      ctx: this.ctx,
      clock: this.clock,
      logs: this.logs,
      source: req.source,
      memoryBytes: req.limits.memoryBytes,
      own,
    });
    this.hostCalls = new HostCalls(
      this.ctx,
      req,
      settings.maxHostCalls,
      () => this.wake?.(),
      () => (this.clock.failure ??= memoryFailure(req.limits.memoryBytes, this.logs)),
    );
    // Set after the context exists, so a tiny limit fails the script (memory), not the setup.
    this.runtime.setMemoryLimit(req.limits.memoryBytes);
  }

  /** Runs the script to completion; throws ScriptFailure for anything the script did wrong. */
  async execute(): Promise<ScriptOutcome> {
    const wake = () => this.wake?.();
    const onAbort = () => (this.clock.check(), wake());
    this.req.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => (this.clock.wallExpired(), wake()), this.req.limits.wallMs);
    try {
      const promise = this.clock.inVm(() => this.start());
      for (;;) {
        this.throwIfStopped();
        const json = this.clock.inVm(() => this.step(promise));
        this.throwIfStopped();
        if (json !== undefined) {
          const value = JSON.parse(json) as Json;
          this.finishedCleanly = true;
          return { value, logs: this.logs, cpuMs: Math.round(this.clock.cpuMs * 100) / 100 };
        }
        if (this.hostCalls.nothingSettled) {
          if (this.hostCalls.idle && !this.runtime.hasPendingJob()) {
            throw this.failures.failure('error', 'Script is awaiting a promise that can never settle');
          }
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
        }
      }
    } finally {
      this.hostCalls.close();
      clearTimeout(timer);
      this.req.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Frees every handle and the context (QuickJS aborts on a leaked handle). True when the runtime
   * may run another script: the run ended with nothing of it left queued. Otherwise the runtime is
   * freed too.
   */
  dispose(): boolean {
    this.hostCalls.dispose();
    for (const handle of this.owned) if (handle.alive) handle.dispose();
    const clean = this.finishedCleanly && this.hostCalls.idle && !this.runtime.hasPendingJob();
    this.ctx.dispose();
    this.runtime.removeInterruptHandler();
    if (!clean) this.runtime.dispose();
    return clean;
  }

  // --- VM slices -------------------------------------------------------------------------------

  /** Evaluates the prelude (and SCOPE when the script can reach it) and starts the script; returns the handle of its promise. */
  private start(): QuickJSHandle {
    const api = this.own(this.preparedApi ?? this.unwrap(this.ctx.evalCode(PRELUDE, 'prelude.js')));
    const startFn = this.own(this.ctx.getProp(api, 'start'));
    this.stringifyFn = this.own(this.ctx.getProp(api, 'stringify'));
    const originals = (this.failures.originals = this.own(this.ctx.getProp(api, 'originals')));
    const [documents, log] =
      this.req.compileOnly || !reachesScope(this.req.source)
        ? [this.ctx.undefined, this.ctx.undefined]
        : this.scope(originals);
    const args = [
      documents,
      log,
      this.own(this.ctx.newString(JSON.stringify(this.req.input ?? null))),
      this.own(this.ctx.newString(JSON.stringify(this.req.request ?? null))),
      this.own(this.ctx.newString(this.req.source)),
      this.req.compileOnly ? this.ctx.true : this.ctx.false,
    ];
    return this.own(this.unwrap(this.ctx.callFunction(startFn, this.ctx.undefined, args)));
  }

  /** The script's `documents` and `log` (see SCOPE), wired to this run's host calls and log. */
  private scope(originals: QuickJSHandle): [QuickJSHandle, QuickJSHandle] {
    const make = this.own(this.unwrap(this.ctx.evalCode(SCOPE, 'scope.js')));
    const hostCall = this.own(this.ctx.newFunction('hostCall', (op, json) => this.hostCalls.call(op, json)));
    const hostLog = this.own(this.ctx.newFunction('hostLog', (line) => this.onLog(line)));
    const made = this.own(this.unwrap(this.ctx.callFunction(make, this.ctx.undefined, originals, hostCall, hostLog)));
    return [this.own(this.ctx.getProp(made, 0)), this.own(this.ctx.getProp(made, 1))];
  }

  /** Delivers settled host calls, runs pending jobs; returns the output JSON once settled. */
  private step(promise: QuickJSHandle): string | undefined {
    this.hostCalls.deliver();
    for (;;) {
      const result = this.runtime.executePendingJobs(JOB_BATCH);
      const ran = result.error ? -1 : result.value;
      result.dispose();
      if (this.clock.failure) return undefined;
      const state = this.ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        if (state.notAPromise) return this.exportOutput(state.value);
        return useThenDispose(state.value, (v) => this.exportOutput(v));
      }
      if (state.type === 'rejected') throw useThenDispose(state.error, (e) => this.failures.from(e, 'error'));
      if (ran === 0) return undefined;
    }
  }

  /** JSON.stringify inside the VM; the length is checked before the string is copied out, then the depth. */
  private exportOutput(value: QuickJSHandle): string {
    if (this.ctx.typeof(value) === 'undefined') return 'null';
    const max = this.req.limits.maxOutputBytes;
    const result = this.ctx.callFunction(this.stringifyFn!, this.ctx.undefined, value);
    if (result.error) throw useThenDispose(result.error, (e) => this.failures.from(e, 'invalid_output'));
    return useThenDispose(result.value, (json) => {
      const text = readString(this.ctx, json, max);
      if (text === undefined)
        throw this.failures.failure(
          'invalid_output',
          'Script returned a value that is not JSON (a function or a symbol)',
        );
      if (text === null || Buffer.byteLength(text) > max) {
        throw this.failures.failure('output_too_large', `Script output exceeds the limit of ${max} bytes`);
      }
      if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
        throw this.failures.failure(
          'invalid_output',
          `Script returned a value nested deeper than ${MAX_JSON_DEPTH} levels`,
        );
      }
      return text;
    });
  }

  // --- host callbacks (run synchronously inside a slice; they never re-enter the VM) -----------

  private onLog(lineHandle: QuickJSHandle): void {
    if (this.logs.length >= MAX_LOG_LINES) return;
    const line = readString(this.ctx, lineHandle, MAX_LOG_LINE_CHARS);
    if (typeof line !== 'string') return;
    this.logs.push(line);
    try {
      this.req.host.log(line);
    } catch {
      // The host's log sink failing must not fail the script; the line is still in `logs`.
    }
  }

  private throwIfStopped(): void {
    const failure = this.clock.check();
    if (failure) throw failure;
  }

  // --- handle bookkeeping ----------------------------------------------------------------------

  private unwrap(result: VmCallResult<QuickJSHandle>): QuickJSHandle {
    if (result.error) throw useThenDispose(result.error, (e) => this.failures.from(e, 'error'));
    return result.value;
  }

  private own(handle: QuickJSHandle): QuickJSHandle {
    this.owned.push(handle);
    return handle;
  }
}
