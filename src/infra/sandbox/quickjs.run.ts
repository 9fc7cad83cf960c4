import {
  errors,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
  type VmCallResult,
} from 'quickjs-emscripten';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/json-depth.js';
import { ScriptFailure, type ScriptOutcome, type ScriptPosition, type ScriptRequest } from '../../domain/runtime/sandbox.ports.js';
import { type Json } from '../../domain/json.js';
import { invokeHost, readString } from './host-bridge.js';
import { DIAGNOSTICS, DOCUMENT_OPS, type DocumentOp, MAX_ERROR_CHARS, MAX_LOG_LINE_CHARS, MAX_LOG_LINES, PRELUDE } from './quickjs.prelude.js';
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

/** A settled host call waiting to be delivered into the VM on the next slice. */
interface Settlement {
  deferred: QuickJSDeferredPromise;
  ok: boolean;
  /** JSON of the result, or the error message. */
  text: string;
}

/** Pending jobs run per `executePendingJobs` call, so a settled result is noticed promptly. */
const JOB_BATCH = 1_000;

/** The failure of a run that ran out of memory. */
export function memoryFailure(memoryBytes: number, logs: string[]): ScriptFailure {
  const mib = Math.round((memoryBytes / 1_048_576) * 10) / 10;
  return new ScriptFailure('memory', `Script exceeded its memory limit of ${mib} MiB`, logs);
}

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
/** A runtime for runs (see QuickJsRun): created once per WASM instance and reused while runs end cleanly. */
export function newRunRuntime(module: QuickJSWASMModule, maxStackBytes: number): QuickJSRuntime {
  const runtime = module.newRuntime();
  runtime.setMaxStackSize(maxStackBytes);
  return runtime;
}

/**
 * A fresh context with the prelude already evaluated, made while the thread had nothing to run
 * (see createInlineQuickJsSandbox): a run that gets one skips most of its setup. No script has
 * ever run in it.
 */
export interface PreparedContext {
  ctx: QuickJSContext;
  /** The prelude's `{ start, stringify, originals }`. */
  api: QuickJSHandle;
}

/** A new context of `runtime` with the prelude evaluated, or undefined if QuickJS refused it. */
export function prepareContext(runtime: QuickJSRuntime): PreparedContext | undefined {
  runtime.setMemoryLimit(-1);
  const ctx = runtime.newContext();
  const result = ctx.evalCode(PRELUDE, 'prelude.js');
  if (!result.error) return { ctx, api: result.value };
  result.error.dispose();
  ctx.dispose();
  return undefined;
}

export class QuickJsRun {
  readonly logs: string[] = [];
  private readonly clock: RunClock;
  private readonly runtime: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  /** Handles owned by the run, disposed before the context. */
  private readonly owned: QuickJSHandle[] = [];
  private readonly pending = new Set<QuickJSDeferredPromise>();
  private readonly settled: Settlement[] = [];
  private hostCalls = 0;
  /** Prelude helpers (see PRELUDE), set once the prelude has run. */
  private stringifyFn: QuickJSHandle | undefined;
  private originals: QuickJSHandle | undefined;
  /** DIAGNOSTICS' helpers, made the first time a failure is described; null when that failed. */
  private diagnostics: { describe: QuickJSHandle; locate: QuickJSHandle } | null | undefined;
  private finished = false;
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
    private readonly settings: RunSettings,
    prepared?: PreparedContext,
  ) {
    this.clock = new RunClock(req.limits, req.signal, this.logs, settings.onSlice, settings.stopRequested);
    this.runtime = runtime;
    this.runtime.setInterruptHandler(this.clock.shouldInterrupt);
    this.runtime.setMemoryLimit(-1);
    // No module loader is ever set, so `import()` rejects inside the VM.
    this.ctx = prepared?.ctx ?? this.runtime.newContext();
    this.preparedApi = prepared?.api;
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
        if (this.settled.length === 0) {
          if (this.pending.size === 0 && !this.runtime.hasPendingJob()) {
            throw this.failure('error', 'Script is awaiting a promise that can never settle');
          }
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
        }
      }
    } finally {
      this.finished = true;
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
    for (const deferred of this.pending) deferred.dispose();
    for (const s of this.settled) s.deferred.dispose();
    for (const handle of this.owned) if (handle.alive) handle.dispose();
    const clean = this.finishedCleanly && this.pending.size === 0 && !this.runtime.hasPendingJob();
    this.ctx.dispose();
    this.runtime.removeInterruptHandler();
    if (!clean) this.runtime.dispose();
    return clean;
  }

  // --- VM slices -------------------------------------------------------------------------------

  /** Evaluates the prelude and starts the script; returns the handle of its promise. */
  private start(): QuickJSHandle {
    const api = this.own(this.preparedApi ?? this.unwrap(this.ctx.evalCode(PRELUDE, 'prelude.js')));
    const startFn = this.own(this.ctx.getProp(api, 'start'));
    this.stringifyFn = this.own(this.ctx.getProp(api, 'stringify'));
    this.originals = this.own(this.ctx.getProp(api, 'originals'));
    const args = [
      this.own(this.ctx.newFunction('hostCall', (op, json) => this.onHostCall(op, json))),
      this.own(this.ctx.newFunction('hostLog', (line) => this.onLog(line))),
      this.own(this.ctx.newString(JSON.stringify(this.req.input ?? null))),
      this.own(this.ctx.newString(JSON.stringify(this.req.request ?? null))),
      this.own(this.ctx.newString(this.req.source)),
      this.req.compileOnly ? this.ctx.true : this.ctx.false,
    ];
    return this.own(this.unwrap(this.ctx.callFunction(startFn, this.ctx.undefined, args)));
  }

  /** Delivers settled host calls, runs pending jobs; returns the output JSON once settled. */
  private step(promise: QuickJSHandle): string | undefined {
    this.deliverSettlements();
    for (;;) {
      const result = this.runtime.executePendingJobs(JOB_BATCH);
      const ran = result.error ? -1 : result.value;
      result.dispose();
      if (this.clock.failure) return undefined;
      const state = this.ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        if (state.notAPromise) return this.exportOutput(state.value);
        return this.ownTemp(state.value, (v) => this.exportOutput(v));
      }
      if (state.type === 'rejected') throw this.ownTemp(state.error, (e) => this.failureFrom(e, 'error'));
      if (ran === 0) return undefined;
    }
  }

  private deliverSettlements(): void {
    for (const s of this.settled.splice(0)) {
      this.pending.delete(s.deferred);
      try {
        const value = s.ok ? this.ctx.newString(s.text) : this.ctx.newError({ name: 'Error', message: s.text });
        try {
          if (s.ok) s.deferred.resolve(value);
          else s.deferred.reject(value);
        } finally {
          value.dispose();
        }
      } catch (err) {
        // Settling only fails when the VM refuses to run (interrupted or out of memory).
        if (!(err instanceof errors.QuickJSUnwrapError)) throw err;
        this.clock.failure ??= memoryFailure(this.req.limits.memoryBytes, this.logs);
      } finally {
        s.deferred.dispose();
      }
    }
  }

  /** JSON.stringify inside the VM; the length is checked before the string is copied out, then the depth. */
  private exportOutput(value: QuickJSHandle): string {
    if (this.ctx.typeof(value) === 'undefined') return 'null';
    const max = this.req.limits.maxOutputBytes;
    const result = this.ctx.callFunction(this.stringifyFn!, this.ctx.undefined, value);
    if (result.error) throw this.ownTemp(result.error, (e) => this.failureFrom(e, 'invalid_output'));
    return this.ownTemp(result.value, (json) => {
      const text = readString(this.ctx, json, max);
      if (text === undefined) throw this.failure('invalid_output', 'Script returned a value that is not JSON (a function or a symbol)');
      if (text === null || Buffer.byteLength(text) > max) {
        throw this.failure('output_too_large', `Script output exceeds the limit of ${max} bytes`);
      }
      if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
        throw this.failure('invalid_output', `Script returned a value nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
      return text;
    });
  }

  // --- host callbacks (run synchronously inside a slice; they never re-enter the VM) -----------

  private onHostCall(opHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    const op = readString(this.ctx, opHandle, 16);
    const argsJson = readString(this.ctx, argsHandle, this.req.limits.maxOutputBytes);
    const deferred = this.ctx.newPromise();
    this.pending.add(deferred);
    const settle = (ok: boolean, text: string) => {
      if (this.finished) return;
      this.settled.push({ deferred, ok, text });
      this.wake?.();
    };
    if (!DOCUMENT_OPS.includes(op as DocumentOp) || argsJson === undefined) {
      settle(false, 'Unknown host operation');
    } else if (argsJson === null) {
      settle(false, `documents.${op}: arguments exceed ${this.req.limits.maxOutputBytes} bytes`);
    } else if (nestsDeeperThan(argsJson, MAX_JSON_DEPTH + 1)) {
      // (+1: the JSON is the array of the arguments.)
      settle(false, `documents.${op}: arguments are nested deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (++this.hostCalls > this.settings.maxHostCalls) {
      settle(false, `documents.${op}: a script may make at most ${this.settings.maxHostCalls} host calls`);
    } else {
      // Deferred to a microtask so host code never runs on the VM's stack or inside a slice.
      Promise.resolve()
        .then(() => invokeHost(this.req.host, op as DocumentOp, JSON.parse(argsJson) as Json[]))
        .then((result) => JSON.stringify(result ?? null))
        .then((json) => settle(true, json), (err: unknown) => settle(false, hostErrorMessage(err)));
    }
    return deferred.handle;
  }

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

  // --- failures --------------------------------------------------------------------------------

  private throwIfStopped(): void {
    const failure = this.clock.check();
    if (failure) throw failure;
  }

  /** Maps a thrown VM value to a ScriptFailure; a limit hit during the slice wins. */
  private failureFrom(error: QuickJSHandle, kind: 'error' | 'invalid_output'): ScriptFailure {
    if (this.clock.failure) return this.clock.failure;
    const text = this.describe(error);
    if (this.clock.failure) return this.clock.failure;
    if (text === 'InternalError: out of memory') return memoryFailure(this.req.limits.memoryBytes, this.logs);
    if (kind !== 'error') return this.failure(kind, `Script returned a value that is not JSON-serialisable: ${text}`);
    const located = this.locate(error);
    if (this.clock.failure) return this.clock.failure;
    if (!located) return this.failure('error', text);
    const { position, message } = withinSource(this.req.source, located, text);
    const where = ` (line ${position.line}, column ${position.column})`;
    // The position is kept whole within the message's cap: it is the useful part of a long message.
    const head = message.length + where.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS - where.length - 1)}…` : message;
    return new ScriptFailure('error', `${head}${where}`, this.logs, position);
  }

  /** Where in the script an Error was thrown (see `locate` in PRELUDE), if it says. */
  private locate(error: QuickJSHandle): ScriptPosition | undefined {
    const locateFn = this.diagnostic('locate');
    if (!locateFn) return undefined;
    const result = this.ctx.callFunction(locateFn, this.ctx.undefined, error);
    if (result.error) {
      result.error.dispose();
      return undefined;
    }
    const at = this.ownTemp(result.value, (h) => readString(this.ctx, h, 32));
    const m = typeof at === 'string' ? /^(\d+):(\d+)$/.exec(at) : null;
    return m ? { line: Number(m[1]), column: Number(m[2]) } : undefined;
  }

  private describe(error: QuickJSHandle): string {
    // Only when the prelude itself failed, or there is no memory left to compile DIAGNOSTICS.
    const describeFn = this.diagnostic('describe');
    if (!describeFn) return 'InternalError: out of memory';
    const result = this.ctx.callFunction(describeFn, this.ctx.undefined, error);
    if (result.error) {
      result.error.dispose();
      return 'Error: (unprintable thrown value)';
    }
    return this.ownTemp(result.value, (h) => readString(this.ctx, h, MAX_ERROR_CHARS) ?? 'Error');
  }

  /** A DIAGNOSTICS helper, evaluated with the prelude's originals on first use; undefined if that fails. */
  private diagnostic(name: 'describe' | 'locate'): QuickJSHandle | undefined {
    if (this.diagnostics === undefined) {
      this.diagnostics = null;
      if (!this.originals) return undefined;
      const made = this.ctx.evalCode(DIAGNOSTICS, 'diagnostics.js');
      if (made.error) return void made.error.dispose();
      const factory = this.own(made.value);
      const api = this.ctx.callFunction(factory, this.ctx.undefined, this.originals);
      if (api.error) return void api.error.dispose();
      const helpers = this.own(api.value);
      this.diagnostics = { describe: this.own(this.ctx.getProp(helpers, 'describe')), locate: this.own(this.ctx.getProp(helpers, 'locate')) };
    }
    return this.diagnostics?.[name];
  }

  private failure(kind: ScriptFailure['kind'], message: string): ScriptFailure {
    return new ScriptFailure(kind, message, this.logs);
  }

  // --- handle bookkeeping ----------------------------------------------------------------------

  private unwrap(result: VmCallResult<QuickJSHandle>): QuickJSHandle {
    if (result.error) throw this.ownTemp(result.error, (e) => this.failureFrom(e, 'error'));
    return result.value;
  }

  private own(handle: QuickJSHandle): QuickJSHandle {
    this.owned.push(handle);
    return handle;
  }

  private ownTemp<T>(handle: QuickJSHandle, use: (h: QuickJSHandle) => T): T {
    try {
      return use(handle);
    } finally {
      handle.dispose();
    }
  }
}

/**
 * A position past the script's last line is the generated closing `}` (the source ended too
 * early): it is reported at the end of the script, without the wrapper's token.
 */
function withinSource(source: string, at: ScriptPosition, message: string): { position: ScriptPosition; message: string } {
  const lines = source.split('\n');
  if (at.line <= lines.length) return { position: at, message };
  const last = lines[lines.length - 1]!;
  const name = /^[A-Za-z]*Error/.exec(message)?.[0] ?? 'SyntaxError';
  return { position: { line: lines.length, column: last.length + 1 }, message: `${name}: unexpected end of the script` };
}

function hostErrorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;
}
