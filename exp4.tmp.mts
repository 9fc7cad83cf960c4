import { newQuickJSWASMModule } from 'quickjs-emscripten';
const deep = (open: string, close: string, n: number, mid = '1') => `${JSON.stringify(open)}.repeat(${n}) + ${JSON.stringify(mid)} + ${JSON.stringify(close)}.repeat(${n})`;
const codes: Record<string, string> = {
  stringify: 'let o=[]; let c=o; for(let i=0;i<100000;i++){ const n=[]; c.push(n); c=n }; JSON.stringify(o).length',
  stringifyObj: 'let o={}; let c=o; for(let i=0;i<100000;i++){ const n={}; c.a=n; c=n }; JSON.stringify(o).length',
  toJSON: 'let d=0; const o={toJSON(){d++; return [o]}}; try { JSON.stringify(o) } catch(e) { String(e)+d }',
  join: 'let o=[]; let c=o; for(let i=0;i<100000;i++){ const n=[]; c.push(n); c=n }; String(o).length',
  flat: 'let o=[]; let c=o; for(let i=0;i<100000;i++){ const n=[]; c.push(n); c=n }; o.flat(Infinity).length',
  parseJson: `JSON.parse(${deep('[', ']', 100000)}).length`,
  evalArr: `eval(${deep('[', ']', 100000)}).length`,
  evalParen: `eval(${deep('(', ')', 100000)})`,
  evalFn: `eval(${deep('(()=>', ')', 100000)})`,
  regexNest: `new RegExp(${deep('(', ')', 100000, 'a')}).test('a')`,
  regexBack: 'new RegExp("(a|b)*c").test("ab".repeat(200000))',
  bind: 'let f=function(){return 1}; for(let i=0;i<100000;i++) f=f.bind(null); f()',
  proxyChain: 'let p={x:1}; for(let i=0;i<100000;i++) p=new Proxy(p,{}); p.x',
  protoChain: 'let p={}; for(let i=0;i<100000;i++) p=Object.create(p); p.zz',
  proxyProto: 'let p={}; for(let i=0;i<100000;i++) p=new Proxy(Object.create(p),{}); p.zz',
  apply: 'let d=0; function f(){d++; return Reflect.apply(f, null, [])}; try { f() } catch(e) { String(e)+d }',
  call: 'let d=0; function f(){d++; return f.call(null)}; try { f() } catch(e) { String(e)+d }',
  toPrim: 'let d=0; const o={[Symbol.toPrimitive](){d++; return +o}}; try { +o } catch(e) { String(e)+d }',
  hasInst: 'let d=0; const o={[Symbol.hasInstance](x){d++; return x instanceof o}}; try { 1 instanceof o } catch(e) { String(e)+d }',
  ctor: 'let d=0; class A { constructor(){ d++; new A() } }; try { new A() } catch(e) { String(e)+d }',
  gen: 'let d=0; function* g(){ d++; yield* g() }; try { [...g()] } catch(e) { String(e)+d }',
  tmpl: 'let d=0; function f(){ d++; return `${f()}` }; try { f() } catch(e) { String(e)+d }',
  spread: 'let d=0; function f(...a){ d++; return f(...a, ...a.slice(0,1)) }; try { f(1) } catch(e) { String(e)+d }',
  mapfn: 'let d=0; function f(){ d++; return [1].map(f) }; try { f() } catch(e) { String(e)+d }',
  replacer: 'let d=0; function f(){ d++; return "a".replace(/a/, f) }; try { f() } catch(e) { String(e)+d }',
  sortc: 'let d=0; function f(a,b){ d++; [2,1].sort(f); return 0 }; try { [2,1].sort(f) } catch(e) { String(e)+d }',
  setter: 'let d=0; const o={set x(v){d++; this.x=v}}; try { o.x=1 } catch(e) { String(e)+d }',
  proxyGet: 'let d=0; const p=new Proxy({}, {get(t,k){d++; return p[k]}}); try { p.x } catch(e) { String(e)+d }',
  evalRec: 'let d=0; function f(){ d++; return eval("f()") }; try { f() } catch(e) { String(e)+d }',
  fnCtor: 'let d=0; function f(){ d++; return new Function("f", "return f()")(f) }; try { f() } catch(e) { String(e)+d }',
  asyncRec: 'let d=0; async function f(){ d++; await f() }; f(); d',
  promThen: 'let p=Promise.resolve(1); for(let i=0;i<100000;i++) p=p.then(x=>x); 1',
  structured: 'let d=0; const o={get a(){ d++; return JSON.stringify(o) }}; try { JSON.stringify(o) } catch(e) { String(e)+d }',
  localeCmp: 'let d=0; const o={toString(){ d++; return [o].join() }}; try { String(o) } catch(e) { String(e)+d }',
};
function t(mod: any, code: string, stack: number): any {
  const rt = mod.newRuntime();
  rt.setMemoryLimit(128 * 1024 * 1024);
  rt.setMaxStackSize(stack);
  const dl = Date.now() + 3000; rt.setInterruptHandler(() => Date.now() > dl);
  const ctx = rt.newContext();
  try {
    const r = ctx.evalCode(code);
    let res;
    if (r.error) { res = 'E:' + ctx.getString(r.error).slice(0, 60); r.error.dispose(); } else { res = ctx.dump(r.value); r.value.dispose(); }
    rt.executePendingJobs().dispose();
    ctx.dispose(); rt.dispose();
    return String(res).slice(0, 60);
  } catch (e) { return 'HOST ' + String(e).slice(0, 60); }
}
const stacks = process.argv.slice(2).map(Number);
for (const stack of stacks) {
  for (const [k, c] of Object.entries(codes)) {
    const mod = await newQuickJSWASMModule();
    await null;
    console.log(stack / 1024, k, t(mod, c, stack));
  }
}
