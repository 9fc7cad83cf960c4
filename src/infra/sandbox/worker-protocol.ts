// Messages between the sandbox pool (server thread) and a QuickJS worker thread. Values are Json
// or plain data, so structured cloning copies them; no function or host object crosses.
import type { Json } from '../../domain/json.js';
import type {
  ScriptFailureKind,
  ScriptLimits,
  ScriptOutcome,
  ScriptPosition,
} from '../../domain/core/sandbox.ports.js';
import type { DocumentOp } from './quickjs.prelude.js';

/** Passed as `workerData`. */
export interface WorkerConfig {
  maxStackBytes: number;
  maxHostCalls: number;
  /**
   * Shared with the pool: the worker stores `[deadline epoch ms of the running VM slice (0 when
   * idle), id of its run]`, so the pool can tell a slice QuickJS failed to interrupt; the pool
   * stores in the third slot the id of a run to stop, which the worker polls while a slice runs
   * (an `abort` message waits until the slice ends). The worker also stores when a run's clocks
   * started (epoch ms, then that run's id), so the pool knows its wall-clock deadline without a
   * message per run.
   */
  watchdog: SharedArrayBuffer;
}

/** BigInt64Array slots of `WorkerConfig.watchdog`. */
export const WATCHDOG_DEADLINE = 0;
export const WATCHDOG_RUN = 1;
export const WATCHDOG_STOP = 2;
export const WATCHDOG_STARTED_AT = 3;
export const WATCHDOG_STARTED_RUN = 4;
export const WATCHDOG_SLOTS = 5;

export type ToWorker =
  | { type: 'run'; id: number; source: string; input: Json; request: Json; limits: ScriptLimits; compileOnly: boolean }
  | { type: 'abort'; id: number }
  | { type: 'hostResult'; id: number; call: number; ok: true; value: Json }
  | { type: 'hostResult'; id: number; call: number; ok: false; message: string };

export type FromWorker =
  /** `args` are already shape-checked for `host.documents[op]` (see invokeHost). */
  | { type: 'host'; id: number; call: number; op: DocumentOp; args: unknown[] }
  | { type: 'log'; id: number; line: string }
  | { type: 'done'; id: number; outcome: ScriptOutcome }
  | { type: 'failed'; id: number; kind: ScriptFailureKind; message: string; logs: string[]; position?: ScriptPosition };
