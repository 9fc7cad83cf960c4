import { expect } from 'chai';
import { AdmissionService } from '../../src/domain/admission/admission.service.js';
import { utcDay } from '../../src/domain/clock.js';
import { LimitExceeded } from '../../src/domain/errors.js';
import type { ChargeSink, UsageRepo } from '../../src/domain/admission/admission.ports.js';
import type { Store } from '../../src/domain/ports.js';
import { bufferedChargeSink } from '../../src/infra/credits/buffered-charges.js';
import { createLogger } from '../../src/infra/logger.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { loadAgent } from '../helpers/runtime.js';

const silent = createLogger('silent');

/** The store with its usage repo replaced by `usage` (everything else real). */
function withUsage(store: Store, usage: UsageRepo): Store {
  return { ...store, repos: { ...store.repos, usage } };
}

describe('credit charges of runs no credit limit waits on are stored in batches', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  const clock = new MovableClock(new Date('2026-08-01T10:00:00Z'));
  const store = () => h().service.store;
  const usageOf = (agentId: string) => store().repos.usage.listByAgent(agentId, '2026-08-01');

  before(async () => {
    ws = await newWorkspace();
  });

  /** An agent with `limits` (GraphQL arguments, or none), and an admission whose batch waits a minute unless flushed. */
  async function setUp(limits?: string) {
    const id = await createAgent(ws.adminToken);
    if (limits)
      await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, ${limits}) { id } }`, { id });
    const charges = bufferedChargeSink(store(), silent, { delayMs: 60_000 });
    const a = new AdmissionService(
      store(),
      clock,
      { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 },
      charges,
    );
    return { id, agent: await loadAgent(id), charges, a };
  }

  it('a run of an agent without any limit is charged once the batch is stored: credits summed, runs counted, the largest run kept', async () => {
    const { agent, charges, a } = await setUp();
    for (const credits of [0.25, 1.5, 0.125]) await (await a.admit(agent)).settle(credits);
    await (await a.admit(agent)).settle(0); // a run that cost nothing is no run of the day
    expect(await usageOf(agent.id)).to.deep.equal([]); // still in the batch (its timer is a minute away)
    await charges.flush();
    expect(await usageOf(agent.id)).to.deep.equal([{ agentId: agent.id, day: '2026-08-01', credits: 1.875, runs: 3 }]);
    expect(await store().repos.usage.largestRun(agent.id, '2026-08-01')).to.equal(1.5);
    // A later batch adds to the day's row.
    await (await a.admit(agent)).settle(2);
    await charges.flush();
    expect(await usageOf(agent.id)).to.deep.equal([{ agentId: agent.id, day: '2026-08-01', credits: 3.875, runs: 4 }]);
    expect(await store().repos.usage.largestRun(agent.id, '2026-08-01')).to.equal(2);
  });

  it('an agent with only a concurrency limit is charged in the batch too, and gives its lease back at once', async () => {
    const { id, agent, charges, a } = await setUp('maxConcurrentRequests: 1');
    const run = await a.admit(agent);
    expect(
      (
        await a.admit(agent).then(
          () => null,
          (e) => e,
        )
      )?.reason,
    ).to.equal('concurrency_limit');
    await run.settle(0.5);
    await (await a.admit(agent)).release(); // the lease is free before the charge is stored
    expect(await usageOf(id)).to.deep.equal([]); // the charge waits in the batch
    await charges.flush();
    expect(await usageOf(id)).to.deep.equal([{ agentId: id, day: '2026-08-01', credits: 0.5, runs: 1 }]);
  });

  it("a run under a credit limit is charged with its slice's next batch; the next grant stores it first and counts it", async () => {
    const { id, agent, a } = await setUp('dailyCreditLimit: 1');
    await (await a.admit(agent)).settle(1);
    expect(
      await a.admit(agent).then(
        () => null,
        (e) => e,
      ),
    ).to.be.instanceOf(LimitExceeded);
    expect(await usageOf(id)).to.deep.equal([{ agentId: id, day: '2026-08-01', credits: 1, runs: 1 }]);
  });

  it("a limit set after batched runs counts them: admission first stores this instance's pending charges", async () => {
    const id = await createAgent(ws.adminToken);
    let agent = await loadAgent(id);
    const charges = bufferedChargeSink(store(), silent, { delayMs: 60_000 });
    const a = new AdmissionService(
      store(),
      clock,
      { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 },
      charges,
    );
    await (await a.admit(agent)).settle(0.75);
    await (await a.admit(agent)).settle(0.25);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }', {
      id,
    });
    agent = await loadAgent(id);
    const err = await a.admit(agent).then(
      () => null,
      (e) => e,
    );
    expect(err).to.be.instanceOf(LimitExceeded);
    expect(err.reason).to.equal('daily_credit_limit');
  });

  it('a batch the database refuses is kept and stored by a later flush: nothing charged is lost', async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const real = store().repos.usage;
    let refuse = true;
    const flaky: UsageRepo = {
      ...real,
      chargeMany: async (cs) => (refuse ? Promise.reject(new Error('connection terminated')) : real.chargeMany(cs)),
    };
    const charges: ChargeSink = bufferedChargeSink(withUsage(store(), flaky), silent, {
      delayMs: 60_000,
      retryMs: 60_000,
    });
    const day = utcDay(clock.now());
    charges.charge({ agentId: agent.id, workspaceId: agent.workspaceId, teamId: null, day, credits: 0.5 });
    const failed = await charges.flush().then(
      () => null,
      (e: Error) => e,
    );
    expect(failed?.message).to.equal('connection terminated');
    charges.charge({ agentId: agent.id, workspaceId: agent.workspaceId, teamId: null, day, credits: 0.25 });
    refuse = false;
    await charges.flush();
    expect(await usageOf(agent.id)).to.deep.equal([{ agentId: agent.id, day: '2026-08-01', credits: 0.75, runs: 2 }]);
  });

  it("usage read through the API right after a run shows its charge (the service's own batch is stored first)", async () => {
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const run = await h().service.services.admission.admit(agent);
    await run.settle(0.5);
    const today = utcDay(new Date());
    const d = await gqlOk(ws.adminToken, 'query($id: ID!) { agent(id: $id) { usage(days: 1) { day credits runs } } }', {
      id: agent.id,
    });
    expect(d.agent.usage).to.deep.equal([{ day: today, credits: 0.5, runs: 1 }]);
  });
});

describe('a concurrency limit lowered while runs are in flight', function () {
  this.timeout(60_000);
  it('admits nothing more until the runs in flight are fewer than the new limit', async () => {
    const ws = await newWorkspace();
    const clock = new MovableClock(new Date('2026-08-02T10:00:00Z'));
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 3) { id } }', {
      id,
    });
    const a = new AdmissionService(h().service.store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
    });
    let agent = await loadAgent(id);
    const runs = [await a.admit(agent), await a.admit(agent), await a.admit(agent)];
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 1) { id } }', {
      id,
    });
    agent = await loadAgent(id);
    const refused = async () =>
      (
        (await a.admit(agent).then(
          () => null,
          (e) => e,
        )) as LimitExceeded | null
      )?.reason;
    expect(await refused()).to.equal('concurrency_limit'); // 3 in flight, limit 1
    await runs[0]!.release();
    await runs[1]!.release();
    expect(await refused()).to.equal('concurrency_limit'); // 1 in flight: the limit is reached
    await runs[2]!.release();
    const next = await a.admit(agent);
    expect(await refused()).to.equal('concurrency_limit');
    await next.release();
  });
});
