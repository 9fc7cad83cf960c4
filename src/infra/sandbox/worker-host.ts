import type { ScriptHost } from '../../domain/core/sandbox.ports.js';
import type { Json } from '../../domain/json.js';
import { MAX_LOG_LINES } from './quickjs.prelude.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

// The pool's side of a run's ScriptHost: a worker's documents calls and log lines reach the host on
// this thread, and the answers go back to the worker.

type HostCall = Extract<FromWorker, { type: 'host' }>;

/** The answer to a script's documents call, made through the run's ScriptHost; a failure is its message. */
export async function answerHostCall(host: ScriptHost, msg: HostCall): Promise<ToWorker> {
  const { id, call } = msg;
  try {
    const documents = host.documents;
    const fn = documents[msg.op] as (...args: unknown[]) => Promise<Json>;
    const value = await fn.apply(documents, msg.args);
    return { type: 'hostResult', id, call, ok: true, value: value ?? null };
  } catch (err) {
    return { type: 'hostResult', id, call, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/** The answer sent instead when a call's result could not be cloned for the worker (not JSON). */
export function notJsonAnswer(msg: HostCall): ToWorker {
  return {
    type: 'hostResult',
    id: msg.id,
    call: msg.call,
    ok: false,
    message: `documents.${msg.op} returned a value that is not JSON`,
  };
}

/** Keeps a script's log line (the first MAX_LOG_LINES of a run) and hands it to the run's host. */
export function keepLog(logs: string[], host: ScriptHost, line: string): void {
  if (logs.length < MAX_LOG_LINES) logs.push(line);
  try {
    host.log(line);
  } catch {
    // A failing log sink must not fail the script.
  }
}
