import { errors, type QuickJSContext, type QuickJSDeferredPromise, type QuickJSHandle } from 'quickjs-emscripten';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/json-depth.js';
import type { Json } from '../../domain/json.js';
import type { ScriptRequest } from '../../domain/core/sandbox.ports.js';
import { invokeHost, readString } from './host-bridge.js';
import { DOCUMENT_OPS, type DocumentOp, MAX_ERROR_CHARS } from './quickjs.prelude.js';

/** A settled host call waiting to be delivered into the VM on the next slice. */
interface Settlement {
  deferred: QuickJSDeferredPromise;
  ok: boolean;
  /** JSON of the result, or the error message. */
  text: string;
}

/**
 * A run's host calls: each one hands the VM a promise at once, runs the host operation outside the
 * VM, and queues its result; the run delivers the queue at the start of its next slice, so host
 * code never runs on the VM's stack and host latency never counts as CPU time.
 */
export class HostCalls {
  private readonly pending = new Set<QuickJSDeferredPromise>();
  private readonly settled: Settlement[] = [];
  private count = 0;
  private closed = false;

  /**
   * `onSettled` is told each time a result is queued (the run may be waiting for one);
   * `onVmRefused` when the VM would not take a result (interrupted or out of memory).
   */
  constructor(
    private readonly ctx: QuickJSContext,
    private readonly req: ScriptRequest,
    private readonly maxHostCalls: number,
    private readonly onSettled: () => void,
    private readonly onVmRefused: () => void,
  ) {}

  /** True when no result is queued for the next slice. */
  get nothingSettled(): boolean {
    return this.settled.length === 0;
  }

  /** True when no call is in flight or queued. */
  get idle(): boolean {
    return this.pending.size === 0;
  }

  /** The VM's `hostCall(op, argsJson)`: returns the handle of the promise the script awaits. */
  call(opHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    const { maxOutputBytes } = this.req.limits;
    const op = readString(this.ctx, opHandle, 16);
    const argsJson = readString(this.ctx, argsHandle, maxOutputBytes);
    const deferred = this.ctx.newPromise();
    this.pending.add(deferred);
    const settle = (ok: boolean, text: string) => {
      if (this.closed) return;
      this.settled.push({ deferred, ok, text });
      this.onSettled();
    };
    if (!DOCUMENT_OPS.includes(op as DocumentOp) || argsJson === undefined) {
      settle(false, 'Unknown host operation');
    } else if (argsJson === null) {
      settle(false, `documents.${op}: arguments exceed ${maxOutputBytes} bytes`);
    } else if (nestsDeeperThan(argsJson, MAX_JSON_DEPTH + 1)) {
      // (+1: the JSON is the array of the arguments.)
      settle(false, `documents.${op}: arguments are nested deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (++this.count > this.maxHostCalls) {
      settle(false, `documents.${op}: a script may make at most ${this.maxHostCalls} host calls`);
    } else {
      // Deferred to a microtask so host code never runs on the VM's stack or inside a slice.
      Promise.resolve()
        .then(() => invokeHost(this.req.host, op as DocumentOp, JSON.parse(argsJson) as Json[]))
        .then((result) => JSON.stringify(result ?? null))
        .then(
          (json) => settle(true, json),
          (err: unknown) => settle(false, hostErrorMessage(err)),
        );
    }
    return deferred.handle;
  }

  /** Resolves or rejects, inside the VM, each call that settled since the last slice. */
  deliver(): void {
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
        this.onVmRefused();
      } finally {
        s.deferred.dispose();
      }
    }
  }

  /** Results that arrive after the run ended are dropped. */
  close(): void {
    this.closed = true;
  }

  /** Frees the promises still in flight or queued (before the context goes). */
  dispose(): void {
    for (const deferred of this.pending) deferred.dispose();
    for (const s of this.settled) s.deferred.dispose();
  }
}

function hostErrorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;
}
