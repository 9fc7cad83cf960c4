// The QuickJS script sandbox on its own: latency of a trivial script (sequential runs), the memory
// each concurrently open run holds, how fast its limits stop a script, on worker threads (the
// default) and on the calling thread, and how long one agent's flood of endless loops delays
// another agent's trivial script on the worker pool. Run: `npm run bench -- sandbox` (or `node --expose-gc
// --import tsx bench/sandbox.bench.ts`; without forced GC the memory figures are noisier).
// BENCH_RUNS / BENCH_CONCURRENT change the sizes. The limit timings have targets (the bounds the
// unit tests used to assert): a missed target is printed and makes the benchmark exit non-zero.
import { ScriptFailure, type ScriptHost, type ScriptLimits } from '../src/domain/core/sandbox.ports.js';
import type { Json } from '../src/domain/json.js';
import { createQuickJsSandbox, defaultWorkerCount, type QuickJsSandbox } from '../src/infra/sandbox/quickjs.sandbox.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 50);
const LIMITS: ScriptLimits = {
  cpuMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  wallMs: 30_000,
};
const TRIVIAL = 'return { total: input.items.reduce((s, i) => s + i.price * i.qty, 0), n: input.items.length }';
const INPUT: Json = {
  items: [
    { price: 2.5, qty: 2 },
    { price: 10, qty: 1 },
    { price: 0.99, qty: 12 },
  ],
};
const gc = (globalThis as { gc?: () => void }).gc;

const host = (query: ScriptHost['documents']['query'] = async () => []): ScriptHost => ({
  documents: { query, insert: async () => null, update: async () => null, delete: async () => null },
  log: () => {},
});

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function settle(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage().rss;
}

/** Sequential runs of the trivial script: median and p95 in ms. */
async function latency(sandbox: QuickJsSandbox): Promise<{ median: number; p95: number }> {
  const run = () =>
    sandbox.run({ source: TRIVIAL, input: INPUT, request: null, host: host(), limits: LIMITS, owner: 'bench' });
  for (let i = 0; i < 50; i++) await run(); // warm-up: worker start, WASM compile, JIT
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const out = await run();
    times.push(performance.now() - t);
    if ((out.value as { n: number }).n !== 3) throw new Error('wrong result');
  }
  times.sort((a, b) => a - b);
  return { median: round(quantile(times, 0.5), 3), p95: round(quantile(times, 0.95), 3) };
}

/**
 * `open` runs held open at once, each awaiting a host call that is answered only after all have
 * started: RSS while they are open minus RSS before, per run, and the time until all started.
 * (`gc` collects this thread's heap only; garbage inside worker threads stays counted.)
 */
async function memoryPerRun(sandbox: QuickJsSandbox, open: number): Promise<{ mb: number; startMs: number }> {
  const before = await settle();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived = 0;
  let allArrived!: () => void;
  const started = new Promise<void>((resolve) => (allArrived = resolve));
  const query = async () => {
    if (++arrived === open) allArrived();
    await gate;
    return [1, 2, 3];
  };
  const t = performance.now();
  const runs = Array.from({ length: open }, (_, i) =>
    sandbox.run({
      source: 'const rows = await documents.query("d"); return rows.length + input.i',
      input: { i },
      request: null,
      host: host(query),
      limits: LIMITS,
      owner: 'bench',
    }),
  );
  await started;
  const startMs = performance.now() - t;
  const during = await settle();
  release();
  await Promise.all(runs);
  return { mb: round((during - before) / open / 1024 / 1024), startMs: round(startMs, 0) };
}

/**
 * Milliseconds until `source` fails with `kind`, the median of `times` runs; measured from the start
 * of the run, or from the instant `from()` gives when set.
 */
async function msUntilFailure(
  sandbox: QuickJsSandbox,
  source: string,
  kind: ScriptFailure['kind'],
  times: number,
  opts: {
    limits?: Partial<ScriptLimits>;
    prepare?: () => { host?: ScriptHost; signal?: AbortSignal; from?: () => number };
  } = {},
): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const { host: h = host(), signal, from } = opts.prepare?.() ?? {};
    const started = performance.now();
    const failure = await sandbox
      .run({
        source,
        input: null,
        request: null,
        host: h,
        limits: { ...LIMITS, ...opts.limits },
        owner: 'bench',
        signal,
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    if (!(failure instanceof ScriptFailure) || failure.kind !== kind)
      throw new Error(`expected a ${kind} failure, got ${String(failure)}`);
    ms.push(performance.now() - (from?.() ?? started));
  }
  ms.sort((a, b) => a - b);
  return round(quantile(ms, 0.5), 1);
}

/**
 * How fast the limits act: an infinite loop at a 200 ms CPU limit; an abort of a run waiting on the
 * host (from abort() to the failure); on worker threads, a builtin QuickJS cannot interrupt (the
 * watchdog terminates and replaces the worker); and 20 runs with one host call each, all at once.
 */
async function limits(sandbox: QuickJsSandbox, threads: boolean): Promise<Record<string, number | null>> {
  const cpuStop = await msUntilFailure(sandbox, 'while (true) {}', 'timeout', 5, { limits: { cpuMs: 200 } });
  const abortMs = await msUntilFailure(sandbox, 'await documents.query("d"); return 1', 'aborted', 20, {
    prepare: () => {
      const controller = new AbortController();
      let abortedAt = 0;
      const waitForever = () => {
        abortedAt = performance.now();
        controller.abort();
        return new Promise<Json>(() => {});
      };
      return { host: host(waitForever), signal: controller.signal, from: () => abortedAt };
    },
  });
  const builtinStop = threads
    ? await msUntilFailure(sandbox, 'return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)', 'timeout', 3, {
        limits: { cpuMs: 200 },
      })
    : null;
  // The second of two batches: the first starts the pool's threads (the builtin case replaced one).
  const batch = () =>
    Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sandbox.run({
          source: 'return [await documents.query("d"), input.i]',
          input: { i },
          request: null,
          host: host(async () => [i]),
          limits: LIMITS,
          owner: 'bench',
        }),
      ),
    );
  await batch();
  const t = performance.now();
  const outs = await batch();
  const concurrent20 = round(performance.now() - t, 1);
  if (outs.some((o, i) => JSON.stringify(o.value) !== JSON.stringify([[i], i]))) throw new Error('wrong result');
  return { cpuStop, abortMs, builtinStop, concurrent20 };
}

/**
 * One agent floods the pool with FLOOD runs of `while (true) {}` (200 ms CPU limit each) and,
 * right after, another agent sends the trivial script: ms until the trivial script answered, and
 * until the flood ended (medians of 3 rounds). Fair sharing bounds the first by about one flood
 * run (200 ms), whatever the size of the flood.
 */
async function fairness(sandbox: QuickJsSandbox): Promise<{ otherMs: number; floodMs: number }> {
  const other: number[] = [];
  const flood: number[] = [];
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    const loops = Array.from({ length: FLOOD }, () =>
      sandbox
        .run({
          source: 'while (true) {}',
          input: null,
          request: null,
          host: host(),
          limits: { ...LIMITS, cpuMs: 200 },
          owner: 'flooder',
        })
        .catch(() => null),
    );
    const out = await sandbox.run({
      source: TRIVIAL,
      input: INPUT,
      request: null,
      host: host(),
      limits: LIMITS,
      owner: 'other',
    });
    other.push(performance.now() - t);
    if ((out.value as { n: number }).n !== 3) throw new Error('wrong result');
    await Promise.all(loops);
    flood.push(performance.now() - t);
  }
  const median = (xs: number[]) =>
    round(
      quantile(
        xs.sort((a, b) => a - b),
        0.5,
      ),
      0,
    );
  return { otherMs: median(other), floodMs: median(flood) };
}

const FLOOD = 20;

/** Targets for the limit timings (ms, medians): what the unit tests asserted before they moved here. */
const TARGETS: Record<string, number> = { cpuStop: 1_500, abortMs: 900, builtinStop: 3_000 };

const rows = [];
const timings = [];
let fair: { otherMs: number; floodMs: number } | undefined;
const missed: string[] = [];
for (const [label, opts] of [
  ['worker threads (default)', {}],
  ['calling thread (workers: 0)', { workers: 0 }],
] as const) {
  const sandbox = createQuickJsSandbox(opts);
  const { median, p95 } = await latency(sandbox);
  const threads = label.startsWith('worker');
  // On worker threads only as many runs are in flight as there are workers; the rest wait.
  const open = threads ? Math.min(CONCURRENT, defaultWorkerCount()) : CONCURRENT;
  const mem = await memoryPerRun(sandbox, open);
  const t = await limits(sandbox, threads);
  if (threads) fair = await fairness(sandbox);
  await sandbox.close();
  rows.push({
    sandbox: label,
    'median ms': median,
    'p95 ms': p95,
    'runs open': open,
    'MB per open run': mem.mb,
    'ms until all open': mem.startMs,
  });
  timings.push({
    sandbox: label,
    'CPU limit 200 ms: stopped after ms': t.cpuStop,
    'abort: ms until failed': t.abortMs,
    'uninterruptible builtin: stopped after ms': t.builtinStop ?? 'n/a',
    '20 concurrent runs: ms': t.concurrent20,
  });
  for (const [name, target] of Object.entries(TARGETS)) {
    const value = t[name];
    if (value != null && value >= target) missed.push(`${label}: ${name} ${value} ms, target < ${target} ms`);
  }
}
console.log(
  `QuickJS sandbox: trivial script x${RUNS} sequential; up to ${CONCURRENT} runs open at once, awaiting the host${gc ? '' : ' (no --expose-gc: memory figures are rough)'}`,
);
console.table(rows);
console.log(
  `Limits (medians; targets: ${Object.entries(TARGETS)
    .map(([k, v]) => `${k} < ${v} ms`)
    .join(', ')})`,
);
console.table(timings);
if (fair) {
  console.log(
    `Sharing (worker pool of ${defaultWorkerCount()}): one agent sends ${FLOOD} endless loops (200 ms CPU limit), another a trivial script right after (medians of 3)`,
  );
  console.table([{ 'trivial script answered after ms': fair.otherMs, 'flood ended after ms': fair.floodMs }]);
}
if (missed.length) {
  console.log(`Missed targets:\n  ${missed.join('\n  ')}`);
  process.exitCode = 1;
}
