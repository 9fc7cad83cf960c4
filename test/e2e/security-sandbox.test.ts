import { expect } from 'chai';
import type { ScriptLimits, ScriptSandbox } from '../../src/domain/core/sandbox.ports.js';
import { DEFAULT_SCRIPT_LIMITS } from '../../src/domain/services.js';
import { createLogger } from '../../src/infra/logger.js';
import { createQuickJsSandbox, type QuickJsSandboxOptions } from '../../src/infra/sandbox/quickjs.sandbox.js';
import { buildService, type Service } from '../../src/server.js';
import { createAgent, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import {
  activityOf,
  addHttpEndpoint,
  call,
  createAgentKey,
  httpApiPath,
  type Reply,
} from '../helpers/surface-calls.js';

// Security: the script sandbox is one pool of worker threads shared by every agent. One agent's
// key flooding it with endless loops must not starve another agent's scripts, and a call that
// cannot get a worker in time answers 503 + Retry-After ("busy") — not a script timeout.
//
// Each test starts the service (the same composition root, on the harness database) with a pool
// of 2 workers and small script limits of its own, so CPU-bound scripts end fast. The pool is
// wrapped to observe, never to change, the runs: which agent's run arrived, and its log lines as
// the worker sends them (so a test knows a script is running — without waiting on the clock).

interface Started {
  service: Service;
  url: string;
  /** Resolves once `count` runs of `agentId` have reached the sandbox. */
  arrived(agentId: string, count: number): Promise<void>;
  /** Resolves once `count` log lines of `agentId`'s running scripts have come back. */
  logged(agentId: string, count: number): Promise<void>;
  /** Log lines of `agentId`'s scripts so far. */
  logLines(agentId: string): number;
  stop(): Promise<void>;
}

async function startService(pool: QuickJsSandboxOptions, limits: Partial<ScriptLimits>): Promise<Started> {
  const sandbox = createQuickJsSandbox(pool);
  const counts = new Map<string, number>();
  const countOf = (key: string) => counts.get(key) ?? 0;
  let waiters: { key: string; count: number; resolve(): void }[] = [];
  const bump = (key: string) => {
    counts.set(key, countOf(key) + 1);
    const due = waiters.filter((w) => countOf(w.key) >= w.count);
    waiters = waiters.filter((w) => !due.includes(w));
    for (const w of due) w.resolve();
  };
  const reached = (key: string, count: number) =>
    countOf(key) >= count
      ? Promise.resolve()
      : new Promise<void>((resolve) => void waiters.push({ key, count, resolve }));
  const observed: ScriptSandbox = {
    run: (req) => {
      bump(`run:${req.owner}`);
      return sandbox.run({
        ...req,
        host: { ...req.host, log: (...args) => (bump(`log:${req.owner}`), req.host.log(...args)) },
      });
    },
  };
  const service = await buildService(h().config, {
    db: h().db,
    skipMigrations: true,
    logger: createLogger('silent'),
    sandbox: observed,
    scriptLimits: { ...DEFAULT_SCRIPT_LIMITS, ...limits },
    housekeepingMs: 0,
  });
  const { url } = await service.listen(0, '127.0.0.1');
  return {
    service,
    url,
    arrived: (agentId, count) => reached(`run:${agentId}`, count),
    logged: (agentId, count) => reached(`log:${agentId}`, count),
    logLines: (agentId) => countOf(`log:${agentId}`),
    stop: async () => {
      await service.close();
      await sandbox.close();
    },
  };
}

describe('e2e security: one agent cannot take the script sandbox from the others', function () {
  this.timeout(120_000);
  let ws: TestWorkspace;
  let started: Started | undefined;

  before(async () => (ws = await newWorkspace()));
  afterEach(async () => {
    await started?.stop();
    started = undefined;
  });

  /** An agent with a key and one script endpoint. */
  async function agentWith(path: string, script: string): Promise<{ agent: string; key: string }> {
    const agent = await createAgent(ws.adminToken);
    const key = await createAgentKey(ws.adminToken, agent);
    await addHttpEndpoint(ws.adminToken, agent, { path, handler: { script } });
    return { agent, key };
  }

  it("agent B's one-line script answers 200 while agent A floods the sandbox with 20 concurrent endless loops", async () => {
    // 20 loops of 200 ms CPU on 2 workers take 2 s. B's call reaches the sandbox after all 20: had
    // it to wait behind them (or share a thread with them), its 1 s wall-clock limit would end it.
    started = await startService({ workers: 2 }, { cpuMs: 200, wallMs: 1_000 });
    const a = await agentWith('spin', 'while (true) {}');
    const b = await agentWith('one', 'return 1');
    const { url } = started;

    let floodAnswered = 0;
    const flood = Array.from({ length: 20 }, () =>
      call('POST', httpApiPath(a.agent, 'spin'), { key: a.key, json: {}, baseUrl: url }).finally(() => floodAnswered++),
    );
    await started.arrived(a.agent, 20);
    const one = await call('POST', httpApiPath(b.agent, 'one'), { key: b.key, json: {}, baseUrl: url });
    const answeredBefore = floodAnswered;

    expect(one.status, one.text).to.equal(200);
    expect(one.json.output).to.equal(1);
    expect(answeredBefore, 'flood calls answered before B').to.be.below(20);
    for (const r of await Promise.all(flood)) {
      expect(r.status, r.text).to.equal(500);
      expect(r.json).to.deep.equal({ error: 'Script exceeded its CPU time limit of 200 ms' });
    }
  });

  it('a call that waited too long for a worker answers 503 with Retry-After and {"error": ...}; it never ran', async () => {
    // A's two scripts hold both workers (limits they cannot reach in this test); B's call waits
    // 100 ms in the queue, then gives up. A's calls are then abandoned by their client, which
    // stops their scripts and frees the workers for the next call.
    started = await startService({ workers: 2, queueWaitMs: 100 }, { cpuMs: 600_000, wallMs: 600_000 });
    const a = await agentWith('hold', 'log("holding"); while (true) {}');
    const b = await agentWith('one', 'log("ran"); return 1');
    const { url } = started;

    const client = new AbortController();
    const holds = [1, 2].map(() =>
      fetch(`${url}${httpApiPath(a.agent, 'hold')}`, {
        method: 'POST',
        headers: { 'x-agent-access-key': a.key },
        signal: client.signal,
      }).catch((err: Error) => err),
    );
    await started.logged(a.agent, 2);

    const busy: Reply = await call('POST', httpApiPath(b.agent, 'one'), { key: b.key, json: {}, baseUrl: url });
    expect(busy.status, busy.text).to.equal(503);
    expect(busy.headers.get('retry-after')).to.equal('2');
    expect(busy.headers.get('content-type') ?? '').to.match(/^application\/json/);
    expect(busy.json).to.deep.equal({ error: 'Script sandbox is busy; retry shortly' });

    client.abort();
    for (const r of await Promise.all(holds)) expect(r).to.be.instanceOf(Error);
    const after = await call('POST', httpApiPath(b.agent, 'one'), { key: b.key, json: {}, baseUrl: url });
    expect(after.status, after.text).to.equal(200);
    // B's script ran once: for the call answered 200, not for the one refused as busy.
    expect(started.logLines(b.agent)).to.equal(1);
    await started.service.services.activityLog.flush();
    const entries = await activityOf(ws.adminToken, b.agent);
    expect(entries.map((e) => [e.status, e.error])).to.deep.equal([
      [200, null],
      [503, 'Script sandbox is busy; retry shortly'],
    ]);
  });
});
