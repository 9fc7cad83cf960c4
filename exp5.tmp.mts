import { newQuickJSWASMModule } from 'quickjs-emscripten';
function t(mod: any, code: string, stack: number): any {
  const rt = mod.newRuntime();
  rt.setMemoryLimit(128 * 1024 * 1024);
  rt.setMaxStackSize(stack);
  const ctx = rt.newContext();
  try {
    const r = ctx.evalCode(code);
    let res;
    if (r.error) { res = 'E:' + ctx.getString(r.error).slice(0, 60); r.error.dispose(); } else { res = ctx.dump(r.value); r.value.dispose(); }
    ctx.dispose(); rt.dispose();
    return String(res).slice(0, 60);
  } catch (e) { return 'HOST ' + String(e).slice(0, 60); }
}
const kind = process.argv[2];
for (const stack of [16384, 32768, 65536]) for (const n of [50, 100, 200, 400, 800, 1600, 3200]) {
  const mod = await newQuickJSWASMModule();
  await null;
  const code = kind === 'paren' ? '('.repeat(n) + '1' + ')'.repeat(n) : kind === 'arr' ? '['.repeat(n) + ']'.repeat(n) + '.length' : kind === 'fn' ? '(()=>'.repeat(n) + '1' + ')'.repeat(n) : kind === 'block' ? '{'.repeat(n) + '}'.repeat(n) : 'JSON.stringify(' + '['.repeat(n) + ']'.repeat(n) + ').length';
  console.log(kind, stack / 1024, n, t(mod, code, stack));
}
