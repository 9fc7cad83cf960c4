import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { ScriptFailure, type ScriptPosition } from '../../domain/core/sandbox.ports.js';
import { readString } from './host-bridge.js';
import { memoryFailure, useThenDispose } from './quickjs.context.js';
import { DIAGNOSTICS, MAX_ERROR_CHARS } from './quickjs.prelude.js';
import type { RunClock } from './run-clock.js';

/** What a run shares with the code that turns its thrown values into ScriptFailures. */
export interface FailureScope {
  ctx: QuickJSContext;
  clock: RunClock;
  logs: string[];
  source: string;
  memoryBytes: number;
  /** Hands a handle to the run, which disposes it before the context. */
  own: (handle: QuickJSHandle) => QuickJSHandle;
}

/**
 * Describes what a script threw, and where in its source: the DIAGNOSTICS helpers are compiled
 * only when a failure first needs them, with the prelude's untouched built-ins, so a script that
 * replaced `String` or `Error.prototype` cannot change the message the caller sees.
 */
export class RunFailures {
  /** The prelude's `originals`, set once the prelude has run. */
  originals: QuickJSHandle | undefined;
  /** DIAGNOSTICS' helpers, made the first time a failure is described; null when that failed. */
  private diagnostics: { describe: QuickJSHandle; locate: QuickJSHandle } | null | undefined;

  constructor(private readonly scope: FailureScope) {}

  failure(kind: ScriptFailure['kind'], message: string): ScriptFailure {
    return new ScriptFailure(kind, message, this.scope.logs);
  }

  /** Maps a thrown VM value to a ScriptFailure; a limit hit during the slice wins. */
  from(error: QuickJSHandle, kind: 'error' | 'invalid_output'): ScriptFailure {
    const { clock, logs, memoryBytes, source } = this.scope;
    if (clock.failure) return clock.failure;
    const text = this.describe(error);
    if (clock.failure) return clock.failure;
    if (text === 'InternalError: out of memory') return memoryFailure(memoryBytes, logs);
    if (kind !== 'error') return this.failure(kind, `Script returned a value that is not JSON-serialisable: ${text}`);
    const located = this.locate(error);
    if (clock.failure) return clock.failure;
    if (!located) return this.failure('error', text);
    const { position, message } = withinSource(source, located, text);
    const where = ` (line ${position.line}, column ${position.column})`;
    // The position is kept whole within the message's cap: it is the useful part of a long message.
    const head =
      message.length + where.length > MAX_ERROR_CHARS
        ? `${message.slice(0, MAX_ERROR_CHARS - where.length - 1)}…`
        : message;
    return new ScriptFailure('error', `${head}${where}`, logs, position);
  }

  /** Where in the script an Error was thrown (see `locate` in PRELUDE), if it says. */
  private locate(error: QuickJSHandle): ScriptPosition | undefined {
    const { ctx } = this.scope;
    const locateFn = this.diagnostic('locate');
    if (!locateFn) return undefined;
    const result = ctx.callFunction(locateFn, ctx.undefined, error);
    if (result.error) {
      result.error.dispose();
      return undefined;
    }
    const at = useThenDispose(result.value, (h) => readString(ctx, h, 32));
    const m = typeof at === 'string' ? /^(\d+):(\d+)$/.exec(at) : null;
    return m ? { line: Number(m[1]), column: Number(m[2]) } : undefined;
  }

  private describe(error: QuickJSHandle): string {
    const { ctx } = this.scope;
    // Only when the prelude itself failed, or there is no memory left to compile DIAGNOSTICS.
    const describeFn = this.diagnostic('describe');
    if (!describeFn) return 'InternalError: out of memory';
    const result = ctx.callFunction(describeFn, ctx.undefined, error);
    if (result.error) {
      result.error.dispose();
      return 'Error: (unprintable thrown value)';
    }
    return useThenDispose(result.value, (h) => readString(ctx, h, MAX_ERROR_CHARS) ?? 'Error');
  }

  /** A DIAGNOSTICS helper, evaluated with the prelude's originals on first use; undefined if that fails. */
  private diagnostic(name: 'describe' | 'locate'): QuickJSHandle | undefined {
    const { ctx, own } = this.scope;
    if (this.diagnostics === undefined) {
      this.diagnostics = null;
      if (!this.originals) return undefined;
      const made = ctx.evalCode(DIAGNOSTICS, 'diagnostics.js');
      if (made.error) return void made.error.dispose();
      const factory = own(made.value);
      const api = ctx.callFunction(factory, ctx.undefined, this.originals);
      if (api.error) return void api.error.dispose();
      const helpers = own(api.value);
      this.diagnostics = {
        describe: own(ctx.getProp(helpers, 'describe')),
        locate: own(ctx.getProp(helpers, 'locate')),
      };
    }
    return this.diagnostics?.[name];
  }
}

/**
 * A position past the script's last line is the generated closing `}` (the source ended too
 * early): it is reported at the end of the script, without the wrapper's token.
 */
function withinSource(
  source: string,
  at: ScriptPosition,
  message: string,
): { position: ScriptPosition; message: string } {
  const lines = source.split('\n');
  if (at.line <= lines.length) return { position: at, message };
  const last = lines[lines.length - 1]!;
  const name = /^[A-Za-z]*Error/.exec(message)?.[0] ?? 'SyntaxError';
  return {
    position: { line: lines.length, column: last.length + 1 },
    message: `${name}: unexpected end of the script`,
  };
}
