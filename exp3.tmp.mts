import { newQuickJSWASMModule } from 'quickjs-emscripten';
const mod = await newQuickJSWASMModule();
function t(code: string, stack: number, hostDepth: number): any {
  if (hostDepth > 0) return t(code, stack, hostDepth - 1);
  const rt = mod.newRuntime();
  rt.setMemoryLimit(64 * 1024 * 1024);
  rt.setMaxStackSize(stack);
  const dl = Date.now() + 3000; rt.setInterruptHandler(() => Date.now() > dl);
  const ctx = rt.newContext();
  try {
    const r = ctx.evalCode(code);
    let res;
    if (r.error) { res = 'E:' + ctx.getString(r.error).slice(0, 40); r.error.dispose(); } else { res = ctx.dump(r.value); r.value.dispose(); }
    ctx.dispose(); rt.dispose();
    return res;
  } catch (e) { return 'HOST ' + String(e).slice(0, 60); }
}
const codes = {
  plain: 'let d=0; function f(n){d++; return f(n+1)+1}; try { f(0) } catch (e) { String(e) + d }',
  args: 'let d=0; function f(a,b,c,d1,e,g){d++; return f(a,b,c,d1,e,g)+1}; try { f(1,2,3,4,5,6) } catch (e) { String(e) + d }',
  json: 'let s="1"; for(let i=0;i<100000;i++) s="["+s+"]"; try { JSON.parse(s); "ok" } catch (e) { String(e) }',
  stringify: 'let o=[]; let c=o; for(let i=0;i<100000;i++){ const n=[]; c.push(n); c=n }; try { JSON.stringify(o).length } catch (e) { String(e) }',
  getter: 'let d=0; const o={get x(){d++; return this.x}}; try { o.x } catch (e) { String(e)+d }',
  tostr: 'let d=0; const o={toString(){d++; return String(o)}}; try { String(o) } catch (e) { String(e)+d }',
  regex: 'try { /(a|b)*c/.test("ab".repeat(100000)) } catch (e) { String(e) }',
  proxy: 'let p = new Proxy({}, {get(t,k,r){ return r[k] }}); try { p.x } catch (e) { String(e) }',
  asyncrec: 'let d=0; async function f(){d++; return await f()}; f().catch(e => 0); d',
  sort: 'let d=0; const a=[3,2,1]; function cmp(x,y){ d++; a.sort(cmp); return x-y }; try { a.sort(cmp) } catch (e) { String(e)+d }',
};
for (const stack of [64 * 1024, 128 * 1024, 192 * 1024]) for (const depth of [0, 200]) {
  for (const [k, c] of Object.entries(codes)) console.log(stack / 1024, depth, k, t(c, stack, depth));
}
