import { newQuickJSWASMModule } from 'quickjs-emscripten';
const mod = await newQuickJSWASMModule();
const N = 2 ** 24;
const codes = [
  `Array.prototype.indexOf.call({length: ${N}}, 1)`,
  `new Array(${N}).indexOf(1)`,
  `Array.prototype.includes.call({length: ${N}}, 1)`,
  `Array.prototype.forEach.call({length: ${N}}, () => {})`,
  `Array.prototype.reduce.call({length: ${N}, 0: 1}, (a) => a)`,
  `Array.prototype.reverse.call({length: ${N}})`,
  `Array.prototype.sort.call({length: ${N}})`,
  `Array.prototype.copyWithin.call({length: ${N}}, 1, 0)`,
  `Array.prototype.lastIndexOf.call({length: ${N}}, 1)`,
  `Array.prototype.filter.call({length: ${N}}, () => 1)`,
  `Array.prototype.join.call({length: ${N}}).length`,
  `Array.prototype.splice.call({length: ${N}}, 0, 0, 1)`,
  `Array.prototype.unshift.call({length: ${N}}, 1)`,
  `Array.prototype.shift.call({length: ${N}})`,
  `Array.prototype.fill.call({length: ${N}}, 0); 1`,
  `Array.from({length: ${N}}).length`,
  `Object.keys(new Array(${N})).length`,
  `[].concat(new Array(${N})).length`,
  `String(new Array(${N})).length`,
  `"a".repeat(${N}).split("").length`,
];
for (const c of codes) {
  const rt = mod.newRuntime(); rt.setMemoryLimit(64 * 1024 * 1024); rt.setMaxStackSize(64 * 1024);
  let polls = 0; rt.setInterruptHandler(() => { polls++; return false; });
  const ctx = rt.newContext();
  const t = performance.now();
  const r = ctx.evalCode(c);
  const dt = performance.now() - t;
  let out; if (r.error) { out = 'E ' + ctx.getString(r.error).slice(0, 50); r.error.dispose(); } else { out = String(ctx.dump(r.value)).slice(0, 30); r.value.dispose(); }
  ctx.dispose(); rt.dispose();
  console.log(c.slice(0, 60).padEnd(60), dt.toFixed(0).padStart(6), 'ms polls', polls, out);
}
