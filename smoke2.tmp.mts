import { createQuickJsSandbox } from './src/infra/sandbox/quickjs.sandbox.ts';
const sb = createQuickJsSandbox();
const host = { documents: { query: async (...a: any[]) => ({ got: a }), insert: async () => 1, update: async () => 1, delete: async () => 2 }, log: () => {} };
const limits = { cpuMs: 200, memoryBytes: 64 * 1024 * 1024, maxOutputBytes: 1024 * 1024, wallMs: 20000 };
async function r(source: string, extra: any = {}) {
  const t = performance.now();
  try { const o = await sb.run({ source, input: { a: 1 }, request: { b: 2 }, host, limits, ...extra }); return ['OK', JSON.stringify(o).slice(0, 200), (performance.now() - t).toFixed(0)]; }
  catch (e: any) { return ['FAIL', e.kind, e.message?.slice(0, 200), (performance.now() - t).toFixed(0)]; }
}
const cases = process.argv.slice(2);
for (const c of cases) console.log(c.slice(0, 60).padEnd(60), ...(await r(c)));
