import { createQuickJsSandbox } from './src/infra/sandbox/quickjs.sandbox.ts';
const sb = createQuickJsSandbox();
const host = { documents: { query: async (...a: any[]) => ({ got: a }), insert: async () => { throw new Error('nope') }, update: async () => 1, delete: async () => 2 }, log: () => {} };
const limits = { cpuMs: 200, memoryBytes: 64 * 1024 * 1024, maxOutputBytes: 1024 * 1024, wallMs: 2000 };
async function r(source: string, extra: any = {}) {
  const t = performance.now();
  try { const o = await sb.run({ source, input: { a: 1 }, request: { b: 2 }, host, limits, ...extra }); return ['OK', JSON.stringify(o).slice(0, 200), (performance.now() - t).toFixed(0)]; }
  catch (e: any) { return ['FAIL', e.kind, e.message?.slice(0, 200), (performance.now() - t).toFixed(0)]; }
}
const cases = [
  'return input',
  'return [typeof process, typeof require, typeof fetch, typeof setTimeout]',
  'require("fs")',
  'return constructor.constructor("return typeof process")()',
  'return this.constructor.constructor("return Object.getOwnPropertyNames(globalThis)")()',
  'await import("fs")',
  'Object.prototype.polluted = 1; input.__proto__.polluted2 = 1; ({}).__proto__.toString = null; return 1',
  'return ({}).polluted',
  'while(true){}',
  'try { while(true){} } catch (e) { return "caught" }',
  'while(true) await null',
  'for(;;) { try { await Promise.resolve(); } catch {} }',
  'new Array(1e9).fill(0)',
  'let s="x"; while(true) s+=s;',
  'try { let s="x"; while(true) s+=s; } catch (e) { return String(e) }',
  'function f(){ return f()+1 }; return f()',
  'return "x".repeat(2*1024*1024)',
  'return () => 1',
  'return 10n',
  'const a = {}; a.a = a; return a',
  'return await documents.query("doc1", {a: 1})',
  'try { await documents.insert("d", [1]) } catch (e) { return "caught " + e.message + " " + e.name }',
  'log("a", {b: 1}, undefined, 5); return 1',
  'for (let i=0;i<200;i++) log("x".repeat(5000)); return 1',
  'throw new TypeError("bad thing")',
  'throw "str"',
  'throw {code: 1}',
  'return (',
  'await new Promise(() => {})',
  'return undefined',
  'return ' + '('.repeat(1000) + '1' + ')'.repeat(1000),
  'return JSON.stringify(' + '['.repeat(1000) + ']'.repeat(1000) + ').length',
  'return input',
];
for (const c of cases) console.log(c.slice(0, 60).padEnd(60), ...(await r(c)));
const ac = new AbortController();
const h2 = { ...host, documents: { ...host.documents, query: () => new Promise(() => {}) } };
setTimeout(() => ac.abort(), 100);
console.log('abort', await r('await documents.query("x"); return 1', { host: h2, signal: ac.signal }));
console.log('wall', await r('await documents.query("x"); return 1', { host: h2 }));
console.log('after', await r('return input'));
