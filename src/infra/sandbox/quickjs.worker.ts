// Entry of a QuickJS worker thread (see worker-pool.ts). It runs scripts with the inline sandbox
// (the pool sends it one run at a time), forwards their host calls and log lines to the pool, and
// publishes each VM slice's deadline in shared memory so the pool can terminate this thread if
// QuickJS fails to interrupt a slice.
import { parentPort, workerData } from 'node:worker_threads';
import { ScriptFailure, type ScriptHost } from '../../domain/core/sandbox.ports.js';
import { type Json } from '../../domain/json.js';
import { createInlineQuickJsSandbox } from './quickjs.inline.js';
import type { DocumentOp } from './quickjs.prelude.js';
import {
  WATCHDOG_DEADLINE,
  WATCHDOG_RUN,
  WATCHDOG_STARTED_AT,
  WATCHDOG_STARTED_RUN,
  WATCHDOG_STOP,
  type FromWorker,
  type ToWorker,
  type WorkerConfig,
} from './worker-protocol.js';

interface HostCall {
  resolve(value: Json): void;
  reject(err: Error): void;
}

interface WorkerRun {
  abort: AbortController;
  calls: Map<number, HostCall>;
}

const config = workerData as WorkerConfig;
const port = parentPort!;
const watchdog = new BigInt64Array(config.watchdog);
const sandbox = createInlineQuickJsSandbox({ maxStackBytes: config.maxStackBytes, maxHostCalls: config.maxHostCalls });
const runs = new Map<number, WorkerRun>();
let nextCall = 1;

const post = (msg: FromWorker) => port.postMessage(msg);

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'run') void start(msg);
  else if (msg.type === 'abort') runs.get(msg.id)?.abort.abort();
  else {
    const run = runs.get(msg.id);
    const call = run?.calls.get(msg.call);
    if (!run || !call) return; // the run has ended; nothing waits for this result any more
    run.calls.delete(msg.call);
    if (msg.ok) call.resolve(msg.value);
    else call.reject(new Error(msg.message));
  }
});

async function start(msg: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const run: WorkerRun = { abort: new AbortController(), calls: new Map() };
  runs.set(msg.id, run);
  const forward =
    (op: DocumentOp) =>
    (...args: unknown[]) =>
      new Promise<Json>((resolve, reject) => {
        const call = nextCall++;
        run.calls.set(call, { resolve, reject });
        post({ type: 'host', id: msg.id, call, op, args });
      });
  const host: ScriptHost = {
    documents: {
      query: forward('query'),
      insert: forward('insert'),
      update: forward('update'),
      delete: forward('delete'),
    },
    log: (line) => post({ type: 'log', id: msg.id, line: String(line) }),
  };
  // Run id first, then the deadline: the pool reads the deadline first, so a non-zero deadline
  // always comes with the id of the run it belongs to.
  const onSlice = (deadline: number) => {
    if (deadline !== 0) Atomics.store(watchdog, WATCHDOG_RUN, BigInt(msg.id));
    Atomics.store(watchdog, WATCHDOG_DEADLINE, BigInt(Math.ceil(deadline)));
  };
  const runId = BigInt(msg.id);
  const stopRequested = () => Atomics.load(watchdog, WATCHDOG_STOP) === runId;
  try {
    const { source, input, request, limits, compileOnly } = msg;
    // (`owner` only matters to the pool, which has already shared the workers out.)
    // The start time first, then the run's id: the pool reads the id first, so a start time it
    // takes for this run's is never an earlier run's.
    const onStart = () => {
      Atomics.store(watchdog, WATCHDOG_STARTED_AT, BigInt(Date.now()));
      Atomics.store(watchdog, WATCHDOG_STARTED_RUN, runId);
    };
    const outcome = await sandbox.run(
      { source, input, request, limits, compileOnly, host, owner: '', signal: run.abort.signal },
      { onSlice, stopRequested, onStart },
    );
    post({ type: 'done', id: msg.id, outcome });
  } catch (err) {
    const failure = err instanceof ScriptFailure ? err : new ScriptFailure('error', 'Script crashed the sandbox');
    post({
      type: 'failed',
      id: msg.id,
      kind: failure.kind,
      message: failure.message,
      logs: failure.logs,
      position: failure.position,
    });
  } finally {
    runs.delete(msg.id);
  }
}
