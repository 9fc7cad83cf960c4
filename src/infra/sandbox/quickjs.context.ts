import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { ScriptFailure } from '../../domain/core/sandbox.ports.js';
import { PRELUDE } from './quickjs.prelude.js';

/** The failure of a run that ran out of memory. */
export function memoryFailure(memoryBytes: number, logs: string[]): ScriptFailure {
  const mib = Math.round((memoryBytes / 1_048_576) * 10) / 10;
  return new ScriptFailure('memory', `Script exceeded its memory limit of ${mib} MiB`, logs);
}

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

/** Uses a handle that lives only for the call, and frees it whatever `use` does. */
export function useThenDispose<T>(handle: QuickJSHandle, use: (h: QuickJSHandle) => T): T {
  try {
    return use(handle);
  } finally {
    handle.dispose();
  }
}
