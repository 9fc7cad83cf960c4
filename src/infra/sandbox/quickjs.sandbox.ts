import { newQuickJSWASMModule, RELEASE_SYNC, type QuickJSWASMModule } from 'quickjs-emscripten';
import { ScriptFailure, type ScriptOutcome, type ScriptRequest, type ScriptSandbox } from '../../domain/runtime/ports.js';
import { QuickJsRun } from './quickjs.run.js';

/**
 * Default QuickJS stack limit. QuickJS runs as WebAssembly on Node's own (about 1 MB) stack, and
 * for some paths (the parser, JSON.stringify) one byte of QuickJS-accounted stack costs ~15 bytes
 * of real stack. 64 KiB allows ~340 nested calls of ordinary recursion; past it QuickJS throws a
 * catchable `InternalError: stack overflow`. Deliberately pathological nesting can still exhaust
 * the host stack first; that is caught and the WASM module replaced (see `run`).
 */
export const DEFAULT_MAX_STACK_BYTES = 64 * 1024;
/** Default number of `documents.*` calls one run may make. */
export const DEFAULT_MAX_HOST_CALLS = 1_000;

export interface QuickJsSandboxOptions {
  /** QuickJS stack limit per run, in bytes (default {@link DEFAULT_MAX_STACK_BYTES}). */
  maxStackBytes?: number;
  /** `documents.*` calls one run may make (default {@link DEFAULT_MAX_HOST_CALLS}). */
  maxHostCalls?: number;
}

/** The loaded WASM module; once `broken` it is never entered again. */
interface ModuleSlot {
  module: QuickJSWASMModule;
  broken: boolean;
}

/**
 * A ScriptSandbox on quickjs-emscripten: one WASM module loaded on first use, and a new QuickJS
 * runtime + context per run, so runs share nothing and all of a run's memory is freed at its end.
 *
 * If the module itself fails during a run (a host stack overflow or a WASM trap can leave its heap
 * inconsistent), that run fails with ScriptFailure('error'), the module is marked broken, runs
 * still in flight on it fail when they next need it, and the next run loads a fresh module.
 */
export function createQuickJsSandbox(opts: QuickJsSandboxOptions = {}): ScriptSandbox {
  const maxStackBytes = opts.maxStackBytes ?? DEFAULT_MAX_STACK_BYTES;
  const maxHostCalls = opts.maxHostCalls ?? DEFAULT_MAX_HOST_CALLS;
  let slot: ModuleSlot | undefined;
  let loading: Promise<ModuleSlot> | undefined;

  // Always awaited by `run`, which therefore enters the VM from a fresh microtask with a shallow
  // host stack — the stack headroom the limit above relies on.
  const acquire = async (): Promise<ModuleSlot> => {
    if (slot && !slot.broken) return slot;
    loading ??= newQuickJSWASMModule(RELEASE_SYNC)
      .then((module) => (slot = { module, broken: false }))
      .finally(() => (loading = undefined));
    return loading;
  };

  return {
    async run(req: ScriptRequest): Promise<ScriptOutcome> {
      if (req.signal?.aborted) throw new ScriptFailure('aborted', 'Script run was aborted');
      const current = await acquire();
      let run: QuickJsRun | undefined;
      try {
        run = new QuickJsRun(current.module, req, { maxStackBytes, maxHostCalls, moduleBroken: () => current.broken });
        return await run.execute();
      } catch (err) {
        if (err instanceof ScriptFailure) throw err;
        current.broken = true;
        throw crashFailure(err, run?.logs ?? []);
      } finally {
        if (run && !current.broken) {
          try {
            run.dispose();
          } catch {
            current.broken = true; // a failed free (e.g. QuickJS's leak assertion) aborts the module
          }
        }
      }
    },
  };
}

function crashFailure(err: unknown, logs: string[]): ScriptFailure {
  const overflow = err instanceof RangeError && /call stack/i.test(err.message);
  return new ScriptFailure(
    'error',
    overflow ? 'InternalError: stack overflow (the script nests too deeply)' : 'Script crashed the sandbox',
    logs,
  );
}
