import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type CustomizeVariantOptions,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import {
  ScriptFailure,
  type ScriptOutcome,
  type ScriptRequest,
  type ScriptSandbox,
} from '../../domain/core/sandbox.ports.js';
import { PRELUDE, SCOPE } from './quickjs.prelude.js';
import { memoryFailure, newRunRuntime, prepareContext, type PreparedContext } from './quickjs.context.js';
import { QuickJsRun } from './quickjs.run.js';

/** Settings of a sandbox running QuickJS on the calling thread. */
export interface InlineSandboxOptions {
  /** QuickJS stack limit per run, in bytes; must leave headroom on the thread's real stack. */
  maxStackBytes: number;
  /** `documents.*` calls one run may make. */
  maxHostCalls: number;
}

/** Per-run extras of the inline sandbox (used by the worker). */
export interface InlineRunHooks {
  /** Receives each VM slice's deadline (epoch ms) when it starts and 0 when it ends. */
  onSlice?: (deadlineEpochMs: number) => void;
  /** Polled while a slice runs; true aborts the run. */
  stopRequested?: () => boolean;
  /** Called once the run's clocks start, after QuickJS is ready (compiled, instantiated). */
  onStart?: () => void;
}

export interface InlineSandbox extends ScriptSandbox {
  run(req: ScriptRequest, hooks?: InlineRunHooks): Promise<ScriptOutcome>;
}

/** The little of the WebAssembly API used here (the project's `lib` has no WebAssembly typings). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
type WasmModule = object;
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<WasmModule>;
      Memory: new (d: { initial: number; maximum: number }) => WasmMemory;
    };
  }
).WebAssembly;

const PAGE = 65_536;
/** The linear memory the QuickJS build starts with (its INITIAL_MEMORY): code data, C stack, heap. */
const BASE_BYTES = 16 * 1024 * 1024;
/** The most memory the QuickJS build can address (its Emscripten MAXIMUM_MEMORY, 2 GiB). */
const MAX_PAGES = 32_768;
/** Idle instances kept for reuse. */
const MAX_IDLE = 8;
/** An instance whose memory grew by more than this is dropped after its run, returning the memory. */
const REUSE_GROWTH_BYTES = 16 * 1024 * 1024;

/** One WASM instance of QuickJS, used by one run at a time. */
interface Instance {
  module: QuickJSWASMModule;
  memory: WasmMemory;
  maxPages: number;
  /** Set when the memory refused to grow: the run hit its memory limit. */
  growFailed: boolean;
  /** Set when the instance must not be used again. */
  broken: boolean;
  /** The QuickJS runtime the next run uses (each run gets a new context in it), while runs end cleanly. */
  runtime: QuickJSRuntime | undefined;
  /** The next run's context, made in `runtime` while the instance was idle. */
  prepared: PreparedContext | undefined;
}

/**
 * Runs scripts with quickjs-emscripten on the calling thread. Each run gets a QuickJS WASM
 * instance of its own — with a linear memory capped at 16 MiB + `memoryBytes` — and a new runtime
 * and context in it. The cap is the real memory limit: QuickJS's own `setMemoryLimit` only bounds
 * single allocations in this build (it cannot measure allocation sizes under Emscripten), so a
 * script piling up small objects would otherwise grow the process without bound. Instances are
 * reused after clean runs (a run's runtime is freed entirely, nothing of it remains reachable).
 *
 * Limits of CPU time rest on QuickJS's interrupt handler, which it polls only every ~10,000
 * bytecode branches and never inside a builtin — a script can overrun its CPU limit by far and
 * block this thread meanwhile. Hence `createQuickJsSandbox` runs this inside worker threads
 * watched by a watchdog; on the server's main thread it is for tools and benchmarks only.
 */
export function createInlineQuickJsSandbox(opts: InlineSandboxOptions): InlineSandbox {
  let compiled: Promise<WasmModule> | undefined;
  const idle: Instance[] = [];

  const acquire = async (memoryBytes: number): Promise<Instance> => {
    const maxPages = Math.min(MAX_PAGES, Math.ceil((BASE_BYTES + memoryBytes) / PAGE));
    const reusable = idle.findIndex((i) => i.maxPages === maxPages);
    if (reusable >= 0) return idle.splice(reusable, 1)[0]!;
    compiled ??= compileQuickJs().catch((err: unknown) => {
      compiled = undefined;
      throw err;
    });
    return instantiate(await compiled, maxPages);
  };

  const release = (instance: Instance) => {
    if (instance.broken || instance.growFailed) return;
    if (instance.memory.buffer.byteLength > BASE_BYTES + REUSE_GROWTH_BYTES) return;
    idle.push(instance);
    if (idle.length > MAX_IDLE) idle.shift();
    // Once the run's answer is on its way (the caller continues first), the next run's context is
    // made while the thread waits: most of a short script's cost leaves its path.
    if (instance.runtime) setImmediate(() => prepare(instance));
  };

  const prepare = (instance: Instance) => {
    if (instance.prepared || !instance.runtime || instance.broken || !idle.includes(instance)) return;
    try {
      instance.prepared = prepareContext(instance.runtime);
    } catch {
      // The WASM instance itself failed: it is not used again.
      instance.broken = true;
      idle.splice(idle.indexOf(instance), 1);
    }
  };

  return {
    async run(req: ScriptRequest, hooks: InlineRunHooks = {}): Promise<ScriptOutcome> {
      if (req.signal?.aborted) throw new ScriptFailure('aborted', 'Script run was aborted');
      // Awaited, so the VM is always entered from a fresh microtask with a shallow host stack —
      // the headroom `maxStackBytes` is sized against.
      const instance = await acquire(req.limits.memoryBytes);
      instance.growFailed = false;
      let run: QuickJsRun | undefined;
      try {
        instance.runtime ??= newRunRuntime(instance.module, opts.maxStackBytes);
        const prepared = instance.prepared;
        instance.prepared = undefined;
        run = new QuickJsRun(
          instance.runtime,
          req,
          { ...opts, onSlice: hooks.onSlice, stopRequested: hooks.stopRequested },
          prepared,
        );
        hooks.onStart?.();
        return await run.execute();
      } catch (err) {
        const logs = run?.logs ?? [];
        if (!(err instanceof ScriptFailure)) {
          instance.broken = true;
          throw instance.growFailed ? memoryFailure(req.limits.memoryBytes, logs) : crashFailure(err, logs);
        }
        // Out of memory, QuickJS may fail in ways that look like script errors; the cap knows.
        if (instance.growFailed && (err.kind === 'error' || err.kind === 'invalid_output')) {
          throw memoryFailure(req.limits.memoryBytes, logs);
        }
        throw err;
      } finally {
        if (run && !instance.broken) {
          try {
            if (!run.dispose()) instance.runtime = undefined;
          } catch {
            instance.broken = true; // a failed free (e.g. QuickJS's leak assertion) aborts the instance
          }
        } else if (!run && instance.runtime && !instance.broken) {
          // The context could not be created (too little memory): start the next run afresh.
          instance.runtime.dispose();
          instance.runtime = undefined;
        }
        release(instance);
      }
    },
  };
}

/**
 * Compiles the QuickJS WASM once per thread, then runs the prelude and SCOPE once in a throwaway instance:
 * V8 compiles WASM functions lazily on first call, and that compilation must not be billed as
 * CPU time to the first script.
 */
async function compileQuickJs(): Promise<WasmModule> {
  const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  const compiled = await wasm.compile(await readFile(path));
  try {
    const { module } = await instantiate(compiled, BASE_BYTES / PAGE + 256);
    const runtime = module.newRuntime();
    const context = runtime.newContext();
    const script = 'log(input); return JSON.stringify(await documents.query("d"))';
    const scope = `(${SCOPE})(api.originals, async () => '[]', () => {})`;
    context
      .evalCode(
        `((api) => { const scope = ${scope}; return api.start(scope[0], scope[1], '{"a":[1]}', 'null', ${JSON.stringify(script)}, false); })(${PRELUDE})`,
      )
      .dispose();
    runtime.executePendingJobs().dispose();
    context.dispose();
    runtime.dispose();
  } catch {
    // Only a warm-up: the instance is dropped either way.
  }
  return compiled;
}

async function instantiate(wasmModule: WasmModule, maxPages: number): Promise<Instance> {
  const memory = new wasm.Memory({ initial: BASE_BYTES / PAGE, maximum: maxPages });
  const module = await newQuickJSWASMModule(
    newVariant(RELEASE_SYNC, {
      wasmModule,
      wasmMemory: memory,
      // QuickJS's own aborts (e.g. a leak assertion it trips after an interrupted async chain)
      // surface as exceptions and retire the instance; Emscripten's stderr copy is only noise.
      emscriptenModule: { printErr: () => {} } as unknown as CustomizeVariantOptions['emscriptenModule'],
    }),
  );
  const instance: Instance = {
    module,
    memory,
    maxPages,
    growFailed: false,
    broken: false,
    runtime: undefined,
    prepared: undefined,
  };
  // Emscripten grows the heap with `wasmMemory.grow`; note a refusal (it then returns NULL to
  // QuickJS, which throws "out of memory" or, on some paths, aborts).
  const grow = memory.grow.bind(memory);
  memory.grow = (pages: number) => {
    try {
      return grow(pages);
    } catch (err) {
      instance.growFailed = true;
      throw err;
    }
  };
  return instance;
}

function crashFailure(err: unknown, logs: string[]): ScriptFailure {
  const overflow = err instanceof RangeError && /call stack/i.test(err.message);
  return new ScriptFailure(
    'error',
    overflow ? 'InternalError: stack overflow (the script nests too deeply)' : 'Script crashed the sandbox',
    logs,
  );
}
