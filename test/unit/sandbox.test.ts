import { expect } from 'chai';
import {
  ScriptFailure,
  type ScriptHost,
  type ScriptLimits,
  type ScriptOutcome,
  type ScriptRequest,
} from '../../src/domain/core/sandbox.ports.js';
import { type Json } from '../../src/domain/json.js';
import { createQuickJsSandbox, type QuickJsSandbox } from '../../src/infra/sandbox/quickjs.sandbox.js';

// The QuickJS sandbox against hostile scripts. After every test, afterEach checks that a trivial
// script still runs correctly in the same sandbox and that nothing leaked onto host prototypes.
// How fast a limit stops a script is a benchmark figure (bench/sandbox.bench.ts), not asserted here.

const LIMITS: ScriptLimits = { cpuMs: 200, memoryBytes: 64 * 1024 * 1024, maxOutputBytes: 1024 * 1024, wallMs: 3_000 };
const INPUT = { body: { name: 'Ada', tags: ['x', 'y'] }, n: 1 };
const MiB = 1024 * 1024;
/**
 * For cases about memory or nesting, where 200 ms of CPU would end them first. Far above what they
 * need (~1 s of CPU at most), so a busy machine cannot turn their memory or stack failure into a timeout.
 */
const ROOMY = { cpuMs: 20_000, wallMs: 40_000 };

/** A ScriptHost that records its calls; `respond` decides each documents.* answer. */
function fakeHost(
  respond: (op: string, args: unknown[]) => Promise<Json> = async (op, args) => ({ op, args: args as Json }),
) {
  const calls: { op: string; args: unknown[] }[] = [];
  const lines: Json[][] = [];
  const call =
    (op: string) =>
    (...args: unknown[]) => (calls.push({ op, args }), respond(op, args));
  const host: ScriptHost = {
    documents: { query: call('query'), insert: call('insert'), update: call('update'), delete: call('delete') },
    log: (...args) => void lines.push(args),
  };
  return { host, calls, lines };
}

async function failure(promise: Promise<unknown>): Promise<ScriptFailure> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(ScriptFailure);
    return err as ScriptFailure;
  }
  throw new Error('expected the script to fail');
}

function expectFailure(f: ScriptFailure, kind: ScriptFailure['kind'], message: string | RegExp): void {
  expect(f.kind, f.message).to.equal(kind);
  if (typeof message === 'string') expect(f.message).to.equal(message);
  else expect(f.message).to.match(message);
}

function suite(name: string, make: () => QuickJsSandbox, heavy: boolean, parallel: number) {
  describe(name, function () {
    this.timeout(60_000);
    let sandbox: QuickJsSandbox;
    const run = (
      source: string,
      opts: { limits?: Partial<ScriptLimits>; host?: ScriptHost; input?: Json; signal?: AbortSignal } = {},
    ): Promise<ScriptOutcome> =>
      sandbox.run({
        source,
        input: opts.input ?? INPUT,
        request: { method: 'POST', path: '/x' },
        host: opts.host ?? fakeHost().host,
        limits: { ...LIMITS, ...opts.limits },
        owner: 'agent-a',
        signal: opts.signal,
      });
    const fails = (source: string, opts?: Parameters<typeof run>[1]) => failure(run(source, opts));

    before(() => (sandbox = make()));
    after(() => sandbox.close());
    afterEach(async () => {
      expect((await run('return input')).value).to.deep.equal(INPUT);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect(typeof ({} as object).toString).to.equal('function');
    });

    it('returns the JSON of its value, with input and request in scope', async () => {
      const out = await run('return { input, method: request.method, sum: input.n + 1 }');
      expect(out.value).to.deep.equal({ input: INPUT, method: 'POST', sum: 2 });
      expect(out.cpuMs).to.be.a('number').and.at.least(0);
      expect((await run('return undefined')).value).to.equal(null);
      expect((await run('const x = await Promise.resolve(3); return [x, "é€😀"]')).value).to.deep.equal([3, 'é€😀']);
    });

    it('has no process, require, fetch, timers or module loading', async () => {
      const out = await run('return [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof Buffer]');
      expect(out.value).to.deep.equal(['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
      expectFailure(
        await fails('require("fs")'),
        'error',
        "ReferenceError: 'require' is not defined (line 1, column 1)",
      );
      expectFailure(await fails('await import("fs")'), 'error', "ReferenceError: could not load module 'fs'");
      expect(
        (await run('try { await import("node:child_process"); return "loaded" } catch (e) { return e.name }')).value,
      ).to.equal('ReferenceError');
    });

    it('gives the Function-constructor escape nothing of the host', async () => {
      // (The position is the one in the code the Function constructor built: QuickJS names both sources alike.)
      expectFailure(
        await fails('return constructor.constructor("return process")()'),
        'error',
        "ReferenceError: 'process' is not defined (line 1, column 8)",
      );
      const names = (
        await run('return Object.getOwnPropertyNames(this.constructor.constructor("return globalThis")())')
      ).value as string[];
      expect(names).to.include('JSON');
      for (const host of [
        'process',
        'require',
        'module',
        'Buffer',
        'global',
        'fetch',
        'setTimeout',
        'console',
        'WebAssembly',
      ]) {
        expect(names).not.to.include(host);
      }
    });

    it('keeps prototype pollution inside the run', async () => {
      const input = { a: { b: 1 } };
      const out = await run(
        'Object.prototype.polluted = 1; input.__proto__.polluted = 1; ({}).__proto__.toString = null; input.a.b = 2; return ({}).polluted',
        { input },
      );
      expect(out.value).to.equal(1);
      expect(input).to.deep.equal({ a: { b: 1 } }); // the host's input object is untouched
      const later = await run(
        'return [({}).polluted === undefined, typeof ({}).toString, input.polluted === undefined]',
      );
      expect(later.value).to.deep.equal([true, 'function', true]);
    });

    it('shares nothing between runs, though runs reuse the engine', async () => {
      // Globals, built-ins changed in place, and work a run left queued behind its answer.
      await run(
        'globalThis.secret = input; Object.prototype.leak = 1; Array.prototype.push = () => 0; JSON.stringify = () => "x"; Math.max = () => -1; return 1',
      );
      expect(
        (await run('const a = []; a.push(1); return [typeof secret, typeof ({}).leak, a.length, Math.max(1, 2)]'))
          .value,
      ).to.deep.equal(['undefined', 'undefined', 1, 2]);
      await run('Promise.resolve().then(() => { globalThis.late = 1; }); return 1');
      expect((await run('await null; return typeof late')).value).to.equal('undefined');
      for (let i = 0; i < 5; i++) {
        expect((await run(`return [typeof mark, (globalThis.mark = ${i})]`)).value, `run ${i}`).to.deep.equal([
          'undefined',
          i,
        ]);
      }
    });

    it('stops an infinite loop at the CPU limit, even inside try/catch', async () => {
      expectFailure(await fails('while (true) {}'), 'timeout', 'Script exceeded its CPU time limit of 200 ms');
      expectFailure(
        await fails('for (;;) { try { while (true) {} } catch (e) {} }'),
        'timeout',
        /CPU time limit of 200 ms/,
      );
    });

    it('stops an endless chain of awaits at the CPU limit', async () => {
      expectFailure(await fails('for (;;) await null'), 'timeout', 'Script exceeded its CPU time limit of 200 ms');
      expectFailure(
        await fails('const f = async () => { await Promise.resolve(); return f() }; return f()'),
        'timeout',
        /CPU time limit/,
      );
    });

    it('fails allocations beyond the memory limit', async () => {
      const oom = 'Script exceeded its memory limit of 64 MiB';
      expectFailure(await fails('new Uint8Array(1024 ** 3)', { limits: ROOMY }), 'memory', oom);
      expectFailure(await fails('return "x".repeat(2 ** 29).length', { limits: ROOMY }), 'memory', oom);
      expectFailure(
        await fails('const a = []; for (;;) a.push(new Array(1e5).fill(1))', { limits: ROOMY }),
        'memory',
        oom,
      );
      // Many small allocations: QuickJS's own limit cannot see these under Emscripten.
      expectFailure(await fails('const a = []; for (;;) a.push({ i: a.length })', { limits: ROOMY }), 'memory', oom);
      expectFailure(
        await fails('const a = []; for (;;) a.push("x".repeat(1e6) + a.length)', { limits: ROOMY }),
        'memory',
        oom,
      );
      expectFailure(
        await fails('const a = []; for (;;) a.push(new Float64Array(1e5))', { limits: ROOMY }),
        'memory',
        oom,
      );
      // Within the limit, the same patterns are fine, and a script may catch its own OOM.
      expect(
        (
          await run('const a = []; for (let i = 0; i < 40; i++) a.push(new Float64Array(1e5)); return a.length', {
            limits: ROOMY,
          })
        ).value,
      ).to.equal(40);
      expect(
        (await run('try { new Uint8Array(1024 ** 3) } catch (e) { return String(e) }', { limits: ROOMY })).value,
      ).to.equal('InternalError: out of memory');
    });

    it('refuses an oversized return value before copying it out', async () => {
      const big = 'return "x".repeat(50 * 1024 * 1024)';
      // With room for the string and its JSON, the output limit refuses it...
      expectFailure(
        await fails(big, { limits: { ...ROOMY, memoryBytes: 256 * MiB } }),
        'output_too_large',
        'Script output exceeds the limit of 1048576 bytes',
      );
      // ...with the default 64 MiB the JSON copy itself runs out of memory first.
      expectFailure(await fails(big, { limits: ROOMY }), 'memory', 'Script exceeded its memory limit of 64 MiB');
      expectFailure(
        await fails('return "é".repeat(600 * 1024)', { limits: ROOMY }),
        'output_too_large',
        /limit of 1048576 bytes/,
      ); // bytes, not chars
    });

    it('refuses values that are not JSON', async () => {
      expectFailure(await fails('return () => 1'), 'invalid_output', /not JSON/);
      expectFailure(await fails('return 10n'), 'invalid_output', /BigInt/);
      expectFailure(await fails('const a = {}; a.self = a; return a'), 'invalid_output', /circular/);
    });

    it('describes a failure with the builtins as they were before the script replaced them', async () => {
      // The helpers that describe a failure are compiled only once a run fails — after the script
      // ran — so they must use the originals the prelude captured, not the globals of that moment.
      const tamper =
        'String.prototype.slice = () => "hacked"; Reflect.apply = () => "hacked"; RegExp.prototype.exec = () => null; ' +
        'JSON.stringify = () => "hacked"; String = () => "hacked"; globalThis.Error = function () {};';
      expectFailure(
        await fails(`${tamper}\nthrow new TypeError("bad thing")`),
        'error',
        'TypeError: bad thing (line 2, column 20)',
      );
      expectFailure(await fails(`${tamper}\nthrow { a: 1 }`), 'error', 'Error: {"a":1}');
    });

    it('reports thrown errors as Name: message, without host stacks', async () => {
      expectFailure(
        await fails('throw new TypeError("bad thing")'),
        'error',
        'TypeError: bad thing (line 1, column 20)',
      );
      expectFailure(await fails('throw "plain"'), 'error', 'Error: plain');
      expectFailure(await fails('return (('), 'error', /^SyntaxError: /);
      expectFailure(
        await fails('await new Promise(() => {})'),
        'error',
        'Script is awaiting a promise that can never settle',
      );
      const f = await fails('throw new Error("x".repeat(10000))');
      expect(f.message.length).to.be.at.most(2_000);
      expect(f.message).to.match(/… \(line 1, column 16\)$/);
    });

    it('reports where in the script an error is, as the user wrote it (not the wrapper)', async () => {
      const runtime = await fails('const a = 1;\n\n  let x = input.missing.x;\nreturn x');
      expectFailure(runtime, 'error', "TypeError: cannot read property 'x' of undefined (line 3, column 24)");
      expect(runtime.position).to.deep.equal({ line: 3, column: 24 });
      const nested = await fails('function f() {\n  throw new RangeError("deep")\n}\nreturn f()');
      expect(nested.position).to.deep.equal({ line: 2, column: 23 });
      const syntax = await fails('const a = 1;\nconst b c = 2;');
      expectFailure(syntax, 'error', 'SyntaxError: missing initializer for const variable (line 2, column 9)');
      // A thrown non-Error has no stack to tell: no position rather than a wrong one.
      expect((await fails('throw 5')).position).to.equal(undefined);
    });

    it('compiles without running when asked (the save-time check), with the same wrapper as a run', async () => {
      const { host, calls } = fakeHost();
      const compile = (source: string) =>
        sandbox.run({ source, input: null, request: null, host, limits: LIMITS, owner: 'agent-a', compileOnly: true });
      expect((await compile('await documents.insert("d", [{ a: 1 }]); log("ran"); return input.x')).value).to.equal(
        null,
      );
      expect(calls).to.have.length(0);
      const syntax = await failure(compile('return 1;\n  if (x {'));
      expectFailure(syntax, 'error', /^SyntaxError: .* \(line 2, column 9\)$/);
      // Ending too early points at the end of the script, not at the wrapper's closing brace.
      const early = await failure(compile('const a = [1,\n  2,'));
      expectFailure(early, 'error', 'SyntaxError: unexpected end of the script (line 2, column 5)');
      // A body that closes the generated function would be another program: refused.
      expectFailure(
        await failure(compile('}); globalThis.x = 1; (async function () {')),
        'error',
        /^SyntaxError: unmatched '}'/,
      );
      expectFailure(await fails('}); (async function () { return 1'), 'error', /^SyntaxError: unmatched '}'/);
    });

    it('contains deep recursion and deeply nested source', async () => {
      const limits = ROOMY;
      expectFailure(
        await fails('function f(n) { return f(n + 1) + 1 } return f(0)', { limits }),
        'error',
        'InternalError: stack overflow (line 1, column 25)',
      );
      expectFailure(
        await fails(`return ${'('.repeat(20_000)}1${')'.repeat(20_000)}`, { limits }),
        'error',
        /stack overflow/,
      );
      expectFailure(
        await fails('let o = []; for (let i = 0; i < 1e5; i++) o = [o]; return JSON.stringify(o).length', { limits }),
        'error',
        /stack overflow/,
      );
      expect(
        (await run('function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } return f(250)', { limits })).value,
      ).to.equal(250);
    });

    it('calls the host for documents.* with JSON arguments and results', async () => {
      const { host, calls } = fakeHost(async (op) => (op === 'query' ? [{ id: 1, a: 1 }] : { ok: op }));
      const out = await run(
        `const rows = await documents.query('doc1', { a: 1 });
         const ins = await documents.insert('doc1', [{ a: 2 }]);
         const up = await documents.update('doc1', { a: 2 }, { a: 3 });
         const del = await documents.delete('doc1', { a: 3 }, { all: true });
         return { rows, ins, up, del }`,
        { host },
      );
      expect(out.value).to.deep.equal({
        rows: [{ id: 1, a: 1 }],
        ins: { ok: 'insert' },
        up: { ok: 'update' },
        del: { ok: 'delete' },
      });
      expect(calls.map((c) => [c.op, c.args.slice(0, 2)])).to.deep.equal([
        ['query', ['doc1', { a: 1 }]],
        ['insert', ['doc1', [{ a: 2 }]]],
        ['update', ['doc1', { a: 2 }]],
        ['delete', ['doc1', { a: 3 }]],
      ]);
      expect(calls[2]!.args[2]).to.deep.equal({ a: 3 });
      expect(calls[3]!.args[2]).to.deep.equal({ all: true });
      expectFailure(await fails('await documents.query(42)', { host }), 'error', /document id/);
    });

    it('turns a host rejection into a catchable error carrying only the message', async () => {
      const { host } = fakeHost(async () => {
        throw new Error('document doc9 not found');
      });
      const out = await run(
        'try { await documents.query("doc9") } catch (e) { return [e.name, e.message, String(e.stack).includes("/")] }',
        { host },
      );
      expect(out.value).to.deep.equal(['Error', 'document doc9 not found', false]);
      expectFailure(await fails('await documents.query("doc9")', { host }), 'error', 'Error: document doc9 not found');
    });

    it('collects log lines, capped in number and length', async () => {
      const { host, lines } = fakeHost();
      const out = await run('log("a", { b: 1 }); log(undefined, 2, [3]); return 1', { host });
      expect(out.logs).to.deep.equal(['a {"b":1}', 'undefined 2 [3]']);
      expect(lines).to.deep.equal([['a {"b":1}'], ['undefined 2 [3]']]);
      const many = await run('for (let i = 0; i < 150; i++) log("y".repeat(5000)); return 1');
      expect(many.logs).to.have.length(100);
      expect(many.logs.every((l) => l.length === 2_000)).to.equal(true);
      const f = await fails('log("before"); throw new Error("after")');
      expect(f.logs).to.deep.equal(['before']);
    });

    it('aborts a run waiting on the host', async () => {
      // The caller gives up while the script waits on a host call that never answers: the run ends
      // as aborted (not at its 3 s wall-clock limit, which would be a timeout).
      const controller = new AbortController();
      const { host, calls } = fakeHost(() => (controller.abort(), new Promise(() => {})));
      expectFailure(
        await fails('await documents.query("slow"); return 1', { host, signal: controller.signal }),
        'aborted',
        'Script run was aborted',
      );
      expect(calls.map((c) => c.op)).to.deep.equal(['query']);
      // A signal already aborted stops the run before it starts.
      expectFailure(await fails('return 1', { signal: controller.signal }), 'aborted', 'Script run was aborted');
    });

    it('stops a run waiting on the host at the wall-clock limit, not the CPU limit', async () => {
      // Waiting on the host for five times the CPU limit costs no CPU time. CPU time is the time
      // spent in the engine, so the limit leaves a loaded machine room for the run's own work,
      // and the wall-clock limit is ten times the wait.
      const { host } = fakeHost(() => new Promise((resolve) => setTimeout(() => resolve(1), 1_000)));
      expect(
        (await run('return await documents.query("d")', { host, limits: { cpuMs: 200, wallMs: 10_000 } })).value,
      ).to.equal(1);
      const hang = fakeHost(() => new Promise(() => {})).host;
      expectFailure(
        await fails('await documents.query("d")', { host: hang, limits: { wallMs: 300 } }),
        'timeout',
        'Script exceeded its wall-clock time limit of 300 ms',
      );
    });

    it(`runs 20 scripts, ${parallel} at once`, async () => {
      // Every host call is answered only once ${parallel} runs are waiting on one: the runs finish
      // only if that many are in flight together — and never more (a worker runs one at a time).
      // (How long they take is in bench/sandbox.bench.ts.)
      let release!: () => void;
      const enoughWaiting = new Promise<void>((resolve) => (release = resolve));
      let waiting = 0;
      let peak = 0;
      const { host } = fakeHost(async (_op, args) => {
        peak = Math.max(peak, ++waiting);
        if (waiting === parallel) release();
        await enoughWaiting;
        waiting--;
        return args[0] as Json;
      });
      const limits = { wallMs: 30_000 }; // only bounds a hang, well within the test's own timeout
      const outs = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          run('return [await documents.query(`doc${input.id}`), input.id * 2]', { host, input: { id: i }, limits }),
        ),
      );
      expect(peak).to.equal(parallel);
      expect(outs.map((o) => o.value)).to.deep.equal(Array.from({ length: 20 }, (_, i) => [`doc${i}`, i * 2]));
    });

    it('refuses host-call arguments and return values nested deeper than 64 levels, with an error that settles', async () => {
      const nested = (levels: number) => `let o = 1; for (let i = 0; i < ${levels}; i++) o = i % 2 ? [o] : { o };`;
      const { host, calls } = fakeHost();
      expect((await run(`${nested(64)} await documents.insert("d", o); return "stored"`, { host })).value).to.equal(
        'stored',
      );
      expect(
        (
          await run(
            `await documents.insert("d", { s: "[{".repeat(1000) }); return "brackets in a string are no nesting"`,
            { host },
          )
        ).value,
      ).to.be.a('string');
      expect(calls).to.have.length(2);
      const deeper = `Error: documents.insert: arguments are nested deeper than 64 levels`;
      expectFailure(await fails(`${nested(65)} await documents.insert("d", o)`, { host }), 'error', deeper);
      expect(
        (await run(`${nested(65)} try { await documents.insert("d", o) } catch (e) { return e.message }`, { host }))
          .value,
      ).to.equal(deeper.slice('Error: '.length));
      // Thousands of levels (these used to leave the run waiting on its host call until the wall-clock
      // limit: the server thread could not read the worker's message and dropped it).
      expectFailure(
        await fails(`${nested(5_000)} await documents.insert("d", o)`, { host, limits: ROOMY }),
        'error',
        /nested deeper than 64 levels|stack overflow/,
      );
      expect(calls).to.have.length(2);

      let o: Json = 1;
      for (let i = 0; i < 64; i++) o = i % 2 ? [o] : { o };
      expect((await run(`${nested(64)} return o`)).value).to.deep.equal(o);
      expectFailure(
        await fails(`${nested(65)} return o`),
        'invalid_output',
        'Script returned a value nested deeper than 64 levels',
      );
      expectFailure(
        await fails(`${nested(5_000)} return o`, { limits: ROOMY }),
        'invalid_output',
        /nested deeper than 64 levels|stack overflow/,
      );
    });

    it('fails a run whose input nests too deeply to copy into the sandbox, rather than throwing', async () => {
      // The HTTP layer parses bodies of any depth (JSON.parse does not recurse); copying one to a
      // worker, or serialising it for QuickJS, does — past the server thread's stack.
      let input: Json = 1;
      for (let i = 0; i < 100_000; i++) input = [input];
      expectFailure(await fails('return 1', { input }), 'error', /nested too deeply|stack overflow/);
    });

    if (!heavy) return;

    it('stops a builtin QuickJS cannot interrupt, keeping the event loop free', async () => {
      // A 1 ms timer of this thread is due long before the watchdog (a timer of this thread too) may
      // end a run — after 200 ms of CPU plus its grace — so it fires first unless the script blocks
      // this thread. Counted per run: each run must let the event loop turn while it is stuck.
      const ticksDuring = async (source: string) => {
        let ticks = 0;
        const timer = setInterval(() => ticks++, 1);
        try {
          return { f: await fails(source), ticks };
        } finally {
          clearInterval(timer);
        }
      };
      const builtin = await ticksDuring('return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)');
      expectFailure(builtin.f, 'timeout', 'Script exceeded its CPU time limit of 200 ms');
      expect(builtin.ticks).to.be.at.least(1);
      const loop = await ticksDuring('const s = "a".repeat(2 ** 22); for (;;) s.indexOf("b")');
      expectFailure(loop.f, 'timeout', /CPU time limit/);
      expect(loop.ticks).to.be.at.least(1);
    });
  });
}

describe('QuickJS sandbox options', () => {
  it('caps the number of host calls per run', async () => {
    const sandbox = createQuickJsSandbox({ workers: 0, maxHostCalls: 2 });
    const { host, calls } = fakeHost();
    const out = await sandbox.run({
      source:
        'const r = []; for (let i = 0; i < 3; i++) { try { await documents.query("d"); r.push("ok") } catch (e) { r.push(e.message) } } return r',
      input: null,
      request: null,
      host,
      limits: LIMITS,
      owner: 'agent-a',
    });
    expect(out.value).to.deep.equal(['ok', 'ok', 'documents.query: a script may make at most 2 host calls']);
    expect(calls).to.have.length(2);
  });
});

describe('QuickJS worker pool: one run per worker, shared fairly between agents', function () {
  this.timeout(60_000);
  /** Limits a run cannot reach in this test: only its abort can end it early. */
  const ENDLESS = { cpuMs: 600_000, wallMs: 600_000 };
  let sandbox: QuickJsSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  const request = (
    owner: string,
    source: string,
    opts: { host?: ScriptHost; limits?: Partial<ScriptLimits>; signal?: AbortSignal } = {},
  ): ScriptRequest => ({
    source,
    input: null,
    request: null,
    host: opts.host ?? fakeHost().host,
    limits: { ...LIMITS, ...opts.limits },
    owner,
    signal: opts.signal,
  });

  /** A host whose calls wait until `open()`; `waiting` resolves once `n` calls wait. */
  function heldHost(n: number) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    let arrived!: () => void;
    const waiting = new Promise<void>((resolve) => (arrived = resolve));
    let count = 0;
    const { host } = fakeHost(async () => {
      if (++count === n) arrived();
      await opened;
      return 'held';
    });
    return { host, waiting, open };
  }

  /** Takes every worker of `sandbox` with runs of `owner` that wait on the host until `open()`. */
  async function holdWorkers(pool: QuickJsSandbox, workers: number, owner = 'holder') {
    const held = heldHost(workers);
    const runs = Array.from({ length: workers }, () =>
      pool.run(request(owner, 'return await documents.query("d")', { host: held.host })),
    );
    await held.waiting;
    return { runs, open: held.open };
  }

  it("answers another agent's one-line script while one agent floods the pool with 20 endless loops", async () => {
    // 20 runs of 200 ms of CPU on 2 workers take 2 s: had the other agent's run to wait behind
    // them (or share a thread with them), its 1 s wall-clock limit would end it first.
    sandbox = createQuickJsSandbox({ workers: 2 });
    const limits = { cpuMs: 200, wallMs: 1_000 };
    let floodEnded = 0;
    const flood = Array.from({ length: 20 }, () =>
      failure(sandbox!.run(request('flooder', 'while (true) {}', { limits }))).finally(() => floodEnded++),
    );
    const other = await sandbox.run(request('other', 'return 1', { limits }));
    expect(other.value).to.equal(1);
    expect(floodEnded, 'flood runs ended before the other agent was answered').to.be.below(20);
    for (const f of await Promise.all(flood))
      expectFailure(f, 'timeout', 'Script exceeded its CPU time limit of 200 ms');
  });

  it('gives a freed worker to the waiting agent holding the fewest, round-robin among equals', async () => {
    sandbox = createQuickJsSandbox({ workers: 1 });
    const held = await holdWorkers(sandbox, 1);
    const order: string[] = [];
    const queue = (owner: string, n: number) =>
      sandbox!.run(request(owner, `return ${n}`)).then(() => void order.push(`${owner}${n}`));
    const runs = [queue('a', 1), queue('a', 2), queue('a', 3), queue('b', 1), queue('c', 1), queue('b', 2)];
    held.open();
    await Promise.all([...held.runs, ...runs]);
    expect(order).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('takes a waiting run whose caller went away out of the queue: it frees its place and never takes a worker', async () => {
    // One worker, one place in the queue per agent. Had the aborted run kept its place, the next
    // run of the same agent would be refused as busy; had it started (an endless loop), the next
    // run would wait behind it until the test times out.
    sandbox = createQuickJsSandbox({ workers: 1, maxQueuedPerOwner: 1 });
    const held = await holdWorkers(sandbox, 1);
    const controller = new AbortController();
    const gone = sandbox.run(request('caller', 'while (true) {}', { limits: ENDLESS, signal: controller.signal }));
    controller.abort();
    expectFailure(await failure(gone), 'aborted', 'Script run was aborted');
    const next = sandbox.run(request('caller', 'return 2'));
    held.open();
    await Promise.all(held.runs);
    expect((await next).value).to.equal(2);
  });

  it('stops a running endless loop at once when its caller goes away, freeing the worker', async () => {
    // The abort cannot wait for the worker's event loop, which the loop holds: the worker polls a
    // stop flag in shared memory. Otherwise the next run would wait for the 10-minute CPU limit.
    sandbox = createQuickJsSandbox({ workers: 1 });
    const controller = new AbortController();
    let started!: () => void;
    const looping = new Promise<void>((resolve) => (started = resolve));
    const host: ScriptHost = { ...fakeHost().host, log: () => started() };
    const loop = sandbox.run(
      request('caller', 'log("looping"); while (true) {}', { host, limits: ENDLESS, signal: controller.signal }),
    );
    await looping;
    controller.abort();
    expectFailure(await failure(loop), 'aborted', 'Script run was aborted');
    expect((await sandbox.run(request('other', 'return 3'))).value).to.equal(3);
  });

  it('fails a run that waited longer than the queue limit as busy, without starting it', async () => {
    sandbox = createQuickJsSandbox({ workers: 1, queueWaitMs: 50 });
    const held = await holdWorkers(sandbox, 1);
    // The worker stays held until the waiting run has failed, so it cannot have started.
    expectFailure(
      await failure(sandbox.run(request('other', 'return 1'))),
      'busy',
      'Script sandbox is busy; retry shortly',
    );
    held.open();
    expect((await Promise.all(held.runs)).map((o) => o.value)).to.deep.equal(['held']);
    expect((await sandbox.run(request('other', 'return 1'))).value).to.equal(1);
  });

  it("refuses a run at once as busy when its agent's queue is full; other agents still queue", async () => {
    sandbox = createQuickJsSandbox({ workers: 1, maxQueuedPerOwner: 2 });
    const held = await holdWorkers(sandbox, 1);
    const waiting = [sandbox.run(request('flooder', 'return 1')), sandbox.run(request('flooder', 'return 2'))];
    expectFailure(
      await failure(sandbox.run(request('flooder', 'return 3'))),
      'busy',
      'Script sandbox is busy: this agent already has as many scripts waiting as allowed (2); retry shortly',
    );
    const other = sandbox.run(request('other', 'return 4'));
    held.open();
    expect((await Promise.all([...waiting, other])).map((o) => o.value)).to.deep.equal([1, 2, 4]);
  });

  it('fails waiting runs when the pool closes', async () => {
    const pool = createQuickJsSandbox({ workers: 1 });
    const held = await holdWorkers(pool, 1);
    const waiting = pool.run(request('other', 'return 1'));
    const failures = [...held.runs, waiting].map(failure);
    await pool.close();
    for (const f of await Promise.all(failures)) expectFailure(f, 'error', 'Script sandbox is shut down');
  });
});

suite('QuickJS sandbox (worker threads)', () => createQuickJsSandbox({ workers: 2 }), true, 2);
// On the calling thread there is no watchdog, so the uninterruptible-builtin case is left out.
suite('QuickJS sandbox (inline)', () => createQuickJsSandbox({ workers: 0 }), false, 20);
