import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, getQuickJS } from 'quickjs-emscripten';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
const req = createRequire(import.meta.url);
const wasmPath = req.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
console.log(wasmPath);
const compiled = await WebAssembly.compile(await readFile(wasmPath));
const variant = newVariant(RELEASE_SYNC, { wasmModule: compiled });
await newQuickJSWASMModule(variant);
let t0 = performance.now();
for (let i = 0; i < 200; i++) { const m = await newQuickJSWASMModule(variant); const rt = m.newRuntime(); const c = rt.newContext(); c.evalCode('1+1').unwrap().dispose(); c.dispose(); rt.dispose(); }
console.log('precompiled module per run', ((performance.now() - t0) / 200).toFixed(2));
t0 = performance.now();
for (let i = 0; i < 200; i++) { const m = await newQuickJSWASMModule(variant); }
console.log('precompiled instantiate only', ((performance.now() - t0) / 200).toFixed(2));
