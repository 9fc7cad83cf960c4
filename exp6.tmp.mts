import { newQuickJSWASMModule, getQuickJS } from 'quickjs-emscripten';
const g = (globalThis as any).gc;
await getQuickJS();
g?.(); const rss0 = process.memoryUsage();
let t0 = performance.now();
const mods = [];
for (let i = 0; i < 50; i++) { mods.push(await newQuickJSWASMModule()); }
const t1 = performance.now();
g?.(); const rss1 = process.memoryUsage();
console.log('50 modules', ((t1 - t0) / 50).toFixed(2), 'ms each; rss/module MB', ((rss1.rss - rss0.rss) / 50 / 1048576).toFixed(2), 'ab', ((rss1.arrayBuffers - rss0.arrayBuffers) / 50 / 1048576).toFixed(2));
// per-run with a runtime
t0 = performance.now();
for (let i = 0; i < 200; i++) { const m = await newQuickJSWASMModule(); const rt = m.newRuntime(); const c = rt.newContext(); c.evalCode('1+1').unwrap().dispose(); c.dispose(); rt.dispose(); }
console.log('fresh module per run', ((performance.now() - t0) / 200).toFixed(2));
const mod = await getQuickJS();
t0 = performance.now();
for (let i = 0; i < 1000; i++) { const rt = mod.newRuntime(); const c = rt.newContext(); c.evalCode('1+1').unwrap().dispose(); c.dispose(); rt.dispose(); }
console.log('shared module per run', ((performance.now() - t0) / 1000).toFixed(3));
