// The QuickJS script sandbox on its own: latency of a trivial script (sequential runs) and the
// memory each concurrently open run holds, on worker threads (the default) and on the calling
// thread. Run: `node --expose-gc --import tsx bench/sandbox.bench.ts` (or `npx tsx ...`, without
// forced GC the memory figures are noisier). BENCH_RUNS / BENCH_CONCURRENT change the sizes.
import type { Json, ScriptHost, ScriptLimits } from '../src/domain/runtime/ports.js';
import { createQuickJsSandbox, type QuickJsSandbox } from '../src/infra/sandbox/quickjs.sandbox.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 50);
const LIMITS: ScriptLimits = { cpuMs: 5_000, memoryBytes: 64 * 1024 * 1024, maxOutputBytes: 1024 * 1024, wallMs: 30_000 };
const TRIVIAL = 'return { total: input.items.reduce((s, i) => s + i.price * i.qty, 0), n: input.items.length }';
const INPUT: Json = { items: [{ price: 2.5, qty: 2 }, { price: 10, qty: 1 }, { price: 0.99, qty: 12 }] };
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
  const run = () => sandbox.run({ source: TRIVIAL, input: INPUT, request: null, host: host(), limits: LIMITS });
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
 * CONCURRENT runs held open at once, each awaiting a host call that is answered only after all
 * have started: RSS while they are open minus RSS before, per run, and the time until all started.
 * (`gc` collects this thread's heap only; garbage inside worker threads stays counted.)
 */
async function memoryPerRun(sandbox: QuickJsSandbox): Promise<{ mb: number; startMs: number }> {
  const before = await settle();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived = 0;
  let allArrived!: () => void;
  const started = new Promise<void>((resolve) => (allArrived = resolve));
  const query = async () => {
    if (++arrived === CONCURRENT) allArrived();
    await gate;
    return [1, 2, 3];
  };
  const t = performance.now();
  const runs = Array.from({ length: CONCURRENT }, (_, i) =>
    sandbox.run({ source: 'const rows = await documents.query("d"); return rows.length + input.i', input: { i }, request: null, host: host(query), limits: LIMITS }),
  );
  await started;
  const startMs = performance.now() - t;
  const during = await settle();
  release();
  await Promise.all(runs);
  return { mb: round((during - before) / CONCURRENT / 1024 / 1024), startMs: round(startMs, 0) };
}

const rows = [];
for (const [label, opts] of [
  ['worker threads (default)', {}],
  ['calling thread (workers: 0)', { workers: 0 }],
] as const) {
  const sandbox = createQuickJsSandbox(opts);
  const { median, p95 } = await latency(sandbox);
  const mem = await memoryPerRun(sandbox);
  await sandbox.close();
  rows.push({
    sandbox: label,
    'median ms': median,
    'p95 ms': p95,
    [`MB per run (${CONCURRENT} open)`]: mem.mb,
    [`ms until ${CONCURRENT} started`]: mem.startMs,
  });
}
console.log(`QuickJS sandbox: trivial script x${RUNS} sequential; ${CONCURRENT} concurrent runs awaiting the host${gc ? '' : ' (no --expose-gc: memory figures are rough)'}`);
console.table(rows);
