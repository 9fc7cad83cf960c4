import { expect } from 'chai';
import { getQuickJS } from 'quickjs-emscripten';
import type { ScriptHost, ScriptLimits, ScriptRequest } from '../../src/domain/core/sandbox.ports.js';
import { newRunRuntime, prepareContext } from '../../src/infra/sandbox/quickjs.context.js';
import { QuickJsRun } from '../../src/infra/sandbox/quickjs.run.js';

// A thread's next context is made while it waits for a run (decisions §23.3): a context that no
// script has run in, in the runtime the previous run used. These tests drive that sequence by hand,
// so that the prepared path is the one taken, whatever the timing of the pool.

const LIMITS: ScriptLimits = {
  cpuMs: 1_000,
  memoryBytes: 32 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  wallMs: 5_000,
};
const host: ScriptHost = {
  documents: { query: async () => [], insert: async () => [], update: async () => [], delete: async () => [] },
  log: () => {},
};
const request = (source: string): ScriptRequest => ({
  source,
  input: { a: 2, b: 40 },
  request: null,
  host,
  limits: LIMITS,
  owner: 'agt',
});
const settings = { maxStackBytes: 256 * 1024, maxHostCalls: 10 };

describe('QuickJS runs in a prepared context', () => {
  it('see nothing of the run before them in the same runtime: globals, changed built-ins, prototypes', async () => {
    const runtime = newRunRuntime(await getQuickJS(), 256 * 1024);
    const first = new QuickJsRun(
      runtime,
      request(
        'globalThis.secret = input; Object.prototype.leak = 1; Array.prototype.push = () => 0; JSON.parse = () => 7; return 1',
      ),
      settings,
    );
    expect((await first.execute()).value).to.equal(1);
    expect(first.dispose(), 'a clean run keeps its runtime').to.equal(true);

    const prepared = prepareContext(runtime);
    expect(prepared).to.not.equal(undefined);
    const second = new QuickJsRun(
      runtime,
      request(
        'const a = []; a.push(1); return [typeof secret, typeof ({}).leak, a.length, JSON.parse("[3]")[0], input.a + input.b]',
      ),
      settings,
      prepared,
    );
    expect((await second.execute()).value).to.deep.equal(['undefined', 'undefined', 1, 3, 42]);
    expect(second.dispose()).to.equal(true);
    runtime.dispose();
  });

  it('a failure in a prepared context is described and located like any other', async () => {
    const runtime = newRunRuntime(await getQuickJS(), 256 * 1024);
    const run = new QuickJsRun(
      runtime,
      request('const x = 1;\nthrow new RangeError("too far")'),
      settings,
      prepareContext(runtime),
    );
    const err = await run.execute().then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('RangeError: too far (line 2, column 21)');
    expect(run.dispose(), 'a failed run frees its runtime itself').to.equal(false);
  });

  it('a script that reaches documents or log without naming them plainly still gets both', async () => {
    // Only scripts that cannot reach them skip making them (decisions §23.9).
    const runtime = newRunRuntime(await getQuickJS(), 256 * 1024);
    const sources = [
      'return [typeof documents.query, typeof log]',
      'return [typeof arguments[2].query, typeof arguments[3]]',
      'return [typeof eval("docu" + "ments").query, typeof eval("l" + "og")]',
      'return [typeof \\u0064ocuments.query, typeof l\\u006fg]',
    ];
    for (const source of sources) {
      const run = new QuickJsRun(runtime, request(source), settings, prepareContext(runtime));
      expect((await run.execute()).value, source).to.deep.equal(['function', 'function']);
      expect(run.dispose()).to.equal(true);
    }
    const logs = new QuickJsRun(
      runtime,
      request('arguments[3]("via", "arguments"); return await arguments[2].query("d")'),
      settings,
      prepareContext(runtime),
    );
    const outcome = await logs.execute();
    expect([outcome.value, outcome.logs]).to.deep.equal([[], ['via arguments']]);
    expect(logs.dispose()).to.equal(true);
    runtime.dispose();
  });
});
