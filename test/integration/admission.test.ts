import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { AdmissionService } from '../../src/domain/admission/admission.service.js';
import type { Clock } from '../../src/domain/clock.js';
import { LimitExceeded } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { ROOT } from '../helpers/process.js';
import { configureFakeModel, loadAgent } from '../helpers/runtime.js';

class MovableClock implements Clock {
  constructor(public t: Date) {}
  now() {
    return new Date(this.t);
  }
  set(iso: string) {
    this.t = new Date(iso);
  }
}

async function refusal(p: Promise<unknown>): Promise<LimitExceeded> {
  const err = await p.then(() => null, (e) => e);
  expect(err, 'expected a LimitExceeded').to.be.instanceOf(LimitExceeded);
  return err as LimitExceeded;
}

describe('admission: credit limits and concurrency', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  const clock = new MovableClock(new Date('2026-03-10T23:59:30Z'));
  const admission = () => new AdmissionService(h().service.services.store, clock, { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 });

  before(async () => {
    ws = await newWorkspace();
  });

  it('refuses an agent over its daily limit until 00:00 UTC, with Retry-After = seconds to midnight', async () => {
    clock.set('2026-03-10T23:59:30Z');
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }`, { id });
    const agent = await loadAgent(id);
    const a = admission();
    await (await a.admit(agent)).release();
    await a.charge(agent, 0.6);
    await (await a.admit(agent)).release(); // 0.6 < 1: still admitted
    await a.charge(agent, 0.6);
    const err = await refusal(a.admit(agent));
    expect(err.reason).to.equal('daily_credit_limit');
    expect(err.retryAfterSeconds).to.equal(30);
    clock.set('2026-03-10T23:59:59.200Z');
    expect((await refusal(a.admit(agent))).retryAfterSeconds).to.equal(1);
    clock.set('2026-03-11T00:00:00.000Z');
    await (await a.admit(agent)).release();
    const usage = await h().service.services.store.repos.usage.listByAgent(id, '2026-03-10');
    expect(usage).to.deep.equal([{ agentId: id, day: '2026-03-10', credits: 1.2, runs: 2 }]);
  });

  it('sums team and workspace usage over their agents', async () => {
    clock.set('2026-04-01T12:00:00Z');
    const fresh = await newWorkspace();
    const team = (await gqlOk(fresh.adminToken, `mutation { createTeam(name: "Sales", dailyCreditLimit: 2) { id } }`)).createTeam.id;
    const a1 = await loadAgent(await createAgent(fresh.adminToken, { teamId: team }));
    const a2 = await loadAgent(await createAgent(fresh.adminToken, { teamId: team }));
    const solo = await loadAgent(await createAgent(fresh.adminToken));
    const a = admission();
    await a.charge(a1, 1.5);
    await (await a.admit(a2)).release();
    await a.charge(a2, 0.5);
    expect((await refusal(a.admit(a1))).reason).to.equal('team_credit_limit');
    expect((await refusal(a.admit(a2))).reason).to.equal('team_credit_limit');
    await (await a.admit(solo)).release(); // not in the team

    await gqlOk(fresh.adminToken, `mutation { setWorkspaceLimits(dailyCreditLimit: 2.5) { id } }`);
    await a.charge(solo, 0.5);
    const err = await refusal(a.admit(solo));
    expect(err.reason).to.equal('workspace_credit_limit');
    expect(err.retryAfterSeconds).to.equal(12 * 3600);
  });

  it('holds at most maxConcurrentRequests slots; a released or expired slot frees a place', async () => {
    clock.set('2026-05-01T08:00:00Z');
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 2) { id } }`, { id });
    const agent = await loadAgent(id);
    const a = admission();
    const s1 = await a.admit(agent);
    const s2 = await a.admit(agent);
    const err = await refusal(a.admit(agent));
    expect(err.reason).to.equal('concurrency_limit');
    expect(err.retryAfterSeconds).to.equal(1);
    await s1.release();
    const s3 = await a.admit(agent);
    await s2.release();
    await s3.release();

    // A lease left behind by a crashed instance stops counting once it expires.
    const repos = h().service.services.store.repos;
    await repos.slots.insert({ id: newId('slot'), agentId: id, instanceId: 'crashed', expiresAt: new Date('2026-05-01T08:00:10Z') });
    await repos.slots.insert({ id: newId('slot'), agentId: id, instanceId: 'crashed', expiresAt: new Date('2026-05-01T08:00:10Z') });
    await refusal(a.admit(agent));
    clock.set('2026-05-01T08:00:10.001Z');
    await (await a.admit(agent)).release();
  });

  it('a burst of 5N concurrent admissions in one process admits exactly N', async () => {
    clock.set('2026-05-02T08:00:00Z');
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 3) { id } }`, { id });
    const agent = await loadAgent(id);
    const a = admission();
    const results = await Promise.all(Array.from({ length: 15 }, () => a.admit(agent).then((s) => s, (e) => e as LimitExceeded)));
    const admitted = results.filter((r) => !(r instanceof LimitExceeded));
    expect(admitted).to.have.length(3);
    expect(results.filter((r) => r instanceof LimitExceeded && r.reason === 'concurrency_limit')).to.have.length(12);
    for (const s of admitted) await (s as { release(): Promise<void> }).release();
  });
});

describe('admission across processes sharing one PostgreSQL', function () {
  this.timeout(120_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  before(async function () {
    if (!h().onPostgres) {
      console.log('      (skipped: needs TEST_DATABASE_URL — the embedded database serves one process)');
      this.skip();
    }
    fake = await startOpenAiServer();
    ws = await newWorkspace();
    await configureFakeModel(ws.adminToken, fake);
  });
  after(async () => fake?.close());

  function worker(env: Record<string, string>): { lines: Promise<any[]>; kill: () => void; firstLine: Promise<any> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/admission-worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let resolveFirst: (v: any) => void;
    const firstLine = new Promise<any>((r) => (resolveFirst = r));
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolveFirst(JSON.parse(out.slice(0, nl)));
    });
    child.stderr.on('data', (d) => (err += d));
    const lines = new Promise<any[]>((resolve, reject) =>
      child.on('exit', (code, signal) => {
        if (code !== 0 && signal !== 'SIGKILL') return reject(new Error(`worker exited ${code}: ${err}`));
        resolve(out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l)) : []);
      }),
    );
    return { lines, firstLine, kill: () => child.kill('SIGKILL') };
  }

  it('two instances under a burst of 5N slow calls never run more than N at once; the rest get 429 reasons', async () => {
    const N = 3;
    const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: ${N}) { id } }`, { id });
    fake.reset();
    for (let i = 0; i < 5 * N; i++) fake.enqueue({ text: 'slow answer', delayMs: 1500 });
    const goAt = Date.now() + 6000;
    const common = { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL!, AGENT_ID: id, GO_AT: String(goAt) };
    const [a, b] = [worker({ ...common, CALLS: '8' }), worker({ ...common, CALLS: '7' })];
    const results = [...(await a.lines), ...(await b.lines)];
    expect(results).to.have.length(15);
    const ok = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok);
    expect(results.filter((r) => r.crash)).to.deep.equal([]);
    expect(ok.length).to.be.within(1, N);
    expect(ok.every((r) => r.error === null)).to.equal(true);
    expect(refused.length).to.equal(15 - ok.length);
    for (const r of refused) expect(r).to.deep.equal({ ok: false, reason: 'concurrency_limit', retryAfter: 1 });

    // Overlap measured from the model calls themselves (start/end as the upstream server saw them).
    const spans = fake.requests.map((r) => [r.receivedAt, r.endedAt ?? Date.now()] as const);
    let maxOverlap = 0;
    for (const [start] of spans) maxOverlap = Math.max(maxOverlap, spans.filter(([s, e]) => s <= start && start < e).length);
    expect(spans.length).to.equal(ok.length);
    expect(maxOverlap).to.be.at.most(N);
  });

  it("a killed instance's slot is free again once its lease expires", async () => {
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 1) { id } }`, { id });
    const holder = worker({ TEST_DATABASE_URL: process.env.TEST_DATABASE_URL!, AGENT_ID: id, MODE: 'hold', LEASE_MS: '2000' });
    expect(await holder.firstLine).to.deep.equal({ admitted: true });
    const admission = h().service.services.admission;
    const agent = await loadAgent(id);
    // The holder renews its lease while alive: still refused well after the first lease would have run out.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await refusal(admission.admit(agent))).reason).to.equal('concurrency_limit');
    holder.kill();
    await holder.lines;
    const killedAt = Date.now();
    let admittedAfter = -1;
    while (Date.now() - killedAt < 10_000) {
      const r = await admission.admit(agent).then((s) => s, () => null);
      if (r) {
        admittedAfter = Date.now() - killedAt;
        await r.release();
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(admittedAfter).to.be.within(0, 2600);
  });
});
