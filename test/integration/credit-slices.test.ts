import { expect } from 'chai';
import { AdmissionService, type AdmissionConfig } from '../../src/domain/admission/admission.service.js';
import { utcDay } from '../../src/domain/clock.js';
import { LimitExceeded } from '../../src/domain/errors.js';
import type { Store } from '../../src/domain/ports.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { loadAgent } from '../helpers/runtime.js';

// Admission under limits without a statement per run (docs/decisions.md §23.7): slices of the daily
// budget granted by a locked transaction now and then, and concurrency leases an instance keeps.

/** The real store, counting its transactions and the statements on leases by name. */
function counted(store: Store): { store: Store; count: Record<string, number> } {
  const count: Record<string, number> = {};
  const bump = (k: string) => (count[k] = (count[k] ?? 0) + 1);
  const slots = new Proxy(store.repos.slots, {
    get: (t, k) => {
      const f = (t as unknown as Record<string | symbol, unknown>)[k];
      return typeof f === 'function'
        ? (...args: unknown[]) => (bump(`slots.${String(k)}`), (f as (...a: unknown[]) => unknown).apply(t, args))
        : f;
    },
  });
  const counting: Store = {
    get repos() {
      return { ...store.repos, slots };
    },
    transaction: (work) => (bump('transaction'), store.transaction(work)),
  } as Store;
  return { store: counting, count };
}

const bound = (credits: number) => async () => credits;
const until = async (what: string, probe: () => Promise<boolean>) => {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('admission: credit slices', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  const clock = new MovableClock(new Date());
  const config = (more: Partial<AdmissionConfig> = {}): AdmissionConfig => ({
    instanceId: 'test',
    leaseMs: 30_000,
    concurrencyRetryAfterSeconds: 1,
    ...more,
  });
  const reserved = (agentId: string) => h().service.store.repos.slots.reserved({ agentId }, clock.now());
  const charged = (agentId: string) => h().service.store.repos.usage.agentDay(agentId, utcDay(clock.now()));

  before(async () => {
    ws = await newWorkspace();
  });

  async function limited(limits: string) {
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, ${limits}) { id } }`, { id });
    return loadAgent(id);
  }

  it('a quiet agent is granted one run at a time; a busy one ever larger slices: 200 runs take a handful of grants', async () => {
    const agent = await limited('dailyCreditLimit: 1000');
    const { store, count } = counted(h().service.store);
    const a = new AdmissionService(store, clock, config({ sliceMs: 60_000 })); // one life: the count does not depend on the machine's speed
    const first = await a.admit(agent, bound(0.5));
    // The first grant is the run's reservation, nothing more.
    expect(await reserved(agent.id)).to.equal(0.5);
    expect(count.transaction).to.equal(1);
    await first.settle(0.5);
    for (let i = 0; i < 199; i++) await (await a.admit(agent, bound(0.5))).settle(0.5);
    // Grants double with the runs admitted: 1, 2, 4, … runs; never one per run.
    expect(count.transaction).to.be.within(2, 10);
    await a.flushCharges();
    expect(await charged(agent.id)).to.equal(100);
    expect(await reserved(agent.id)).to.be.at.most(1000 - 100);
    await a.close();
    expect(await reserved(agent.id)).to.equal(0);
    expect(await h().db('run_slots').where({ agent_id: agent.id })).to.deep.equal([]);
  });

  it('a grant never exceeds what is left under the limit', async () => {
    const agent = await limited('dailyCreditLimit: 2');
    const a = new AdmissionService(h().service.store, clock, config());
    // Grow the slice's appetite, then come near the limit.
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await a.admit(agent, bound(0.25)));
    for (const r of runs) await r.settle(0.25);
    const other = new AdmissionService(h().service.store, clock, config());
    const held = [];
    // As many as the first instance's slice leaves room for (its size depends on when its lives end).
    for (let i = 0; i < 4; i++) {
      const run = await other.admit(agent, bound(0.25)).catch((e: unknown) => {
        if (!(e instanceof LimitExceeded)) throw e;
        return null;
      });
      if (run) held.push(run);
    }
    expect(held.length).to.be.at.least(1);
    // Charged + reserved, over both instances' slices, never goes past the limit.
    expect((await charged(agent.id)) + (await reserved(agent.id))).to.be.at.most(2 + 1e-9);
    await a.flushCharges();
    expect(await charged(agent.id)).to.equal(0.75);
    expect((await charged(agent.id)) + (await reserved(agent.id))).to.be.at.most(2 + 1e-9);
    for (const r of held) await r.release();
    await Promise.all([a.close(), other.close()]);
  });

  it('gives back what no run holds at the end of its life, and ends once unused', async () => {
    const agent = await limited('dailyCreditLimit: 10');
    const a = new AdmissionService(h().service.store, clock, config({ sliceMs: 50 }));
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await a.admit(agent, bound(1)));
    await runs[0]!.settle(1);
    expect(await reserved(agent.id)).to.be.at.least(4);
    // A life later: the charge is stored, the slice holds what the three runs in flight reserve.
    await until('the slice to shrink to its runs in flight', async () => (await reserved(agent.id)) === 3);
    expect(await charged(agent.id)).to.equal(1);
    for (const r of runs.slice(1)) await r.release();
    await until(
      'the unused slice to end',
      async () => (await h().db('run_slots').where({ agent_id: agent.id })).length === 0,
    );
    expect(await charged(agent.id)).to.equal(1);
  });

  it('a slice spent to nothing ends at once, with its charges stored in the same statement', async () => {
    const agent = await limited('dailyCreditLimit: 10');
    const { store, count } = counted(h().service.store);
    const a = new AdmissionService(store, clock, config());
    const run = await a.admit(agent, bound(1));
    await run.settle(1);
    await a.flushCharges();
    expect(count['slots.spend']).to.equal(1);
    expect(await charged(agent.id)).to.equal(1);
    expect(await h().db('run_slots').where({ agent_id: agent.id })).to.deep.equal([]);
  });

  it('a changed limit is not admitted against a slice granted under the old one', async () => {
    const agent = await limited('dailyCreditLimit: 10');
    const a = new AdmissionService(h().service.store, clock, config());
    await (await a.admit(agent, bound(1))).settle(1);
    await (await a.admit(agent, bound(1))).release(); // the slice now has room for more runs
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }', {
      id: agent.id,
    });
    const lowered = await loadAgent(agent.id);
    const err = await a.admit(lowered, bound(1)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(LimitExceeded);
    expect((err as LimitExceeded).message).to.equal(
      'This agent used its daily credit limit of 1; it resets at 00:00 UTC',
    );
    await a.close();
  });

  it('a run ending after midnight UTC is charged to the new day, one ending before it to the old one', async () => {
    const agent = await limited('dailyCreditLimit: 10');
    const moved = new MovableClock(new Date('2026-09-01T23:59:59.500Z'));
    const a = new AdmissionService(h().service.store, moved, config());
    const before = await a.admit(agent, bound(1));
    const across = await a.admit(agent, bound(1));
    await before.settle(0.5);
    moved.set('2026-09-02T00:00:00.500Z');
    await across.settle(0.25);
    await (await a.admit(agent, bound(1))).settle(0.125);
    await a.flushCharges();
    const usage = await h().service.store.repos.usage.listByAgent(agent.id, '2026-09-01');
    expect(usage).to.deep.equal([
      { agentId: agent.id, day: '2026-09-02', credits: 0.375, runs: 2 },
      { agentId: agent.id, day: '2026-09-01', credits: 0.5, runs: 1 },
    ]);
    await a.close();
  });

  it('a changed team or workspace limit is not admitted against a slice granted under the old ones', async () => {
    const fresh = await newWorkspace();
    const team = (await gqlOk(fresh.adminToken, 'mutation { createTeam(name: "Slices", dailyCreditLimit: 10) { id } }'))
      .createTeam.id as string;
    await gqlOk(fresh.adminToken, 'mutation { setWorkspaceLimits(dailyCreditLimit: 100) { id } }');
    const agent = await loadAgent(await createAgent(fresh.adminToken, { teamId: team }));
    const a = new AdmissionService(h().service.store, clock, config());
    await (await a.admit(agent, bound(1))).settle(1);
    await (await a.admit(agent, bound(1))).release(); // the slice has room for more runs
    await gqlOk(fresh.adminToken, 'mutation($t: ID!) { setTeamLimits(teamId: $t, dailyCreditLimit: 1) { id } }', {
      t: team,
    });
    const err = await a.admit(agent, bound(1)).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as LimitExceeded).reason).to.equal('team_credit_limit');
    await gqlOk(fresh.adminToken, 'mutation($t: ID!) { setTeamLimits(teamId: $t, dailyCreditLimit: 10) { id } }', {
      t: team,
    });
    await (await a.admit(agent, bound(1))).release();
    await gqlOk(fresh.adminToken, 'mutation { setWorkspaceLimits(dailyCreditLimit: 1) { id } }');
    const wsErr = await a.admit(agent, bound(1)).then(
      () => null,
      (e: unknown) => e,
    );
    expect((wsErr as LimitExceeded).reason).to.equal('workspace_credit_limit');
    await a.close();
  });

  it("an agent's estimate (its largest recent run) is read again after a minute", async () => {
    const agent = await limited('dailyCreditLimit: 100');
    const moved = new MovableClock(new Date('2026-09-05T10:00:00Z'));
    const a = new AdmissionService(h().service.store, moved, config());
    const unknown = async () => null;
    await a.charge(agent, 2);
    const first = await a.admit(agent, unknown);
    expect(first.reservedCredits).to.equal(2);
    await first.release();
    await a.charge(agent, 3); // a larger run, charged by another instance
    moved.advance(59_000);
    const cached = await a.admit(agent, unknown);
    expect(cached.reservedCredits).to.equal(2);
    await cached.release();
    moved.advance(1_000);
    const fresh = await a.admit(agent, unknown);
    expect(fresh.reservedCredits).to.equal(3);
    // A run of this instance costing more than the estimate raises it at once; a cheaper one, or
    // one ended without a charge, leaves it.
    await fresh.settle(4);
    const raised = await a.admit(agent, unknown);
    expect(raised.reservedCredits).to.equal(4);
    await raised.settle(1);
    const kept = await a.admit(agent, unknown);
    await kept.release();
    const last = await a.admit(agent, unknown);
    expect(last.reservedCredits).to.equal(4);
    expect(a.reservedInFlight(agent.id)).to.equal(4);
    await last.release();
    // Every run ended holds nothing in flight, and each charge was counted once.
    await a.flushCharges();
    expect(a.reservedInFlight(agent.id)).to.equal(0);
    expect(await h().service.store.repos.usage.agentDay(agent.id, '2026-09-05')).to.equal(10);
    await a.close();
  });

  it('a run that reserved nothing and outlives its slice is still charged, at once', async () => {
    const agent = await limited('dailyCreditLimit: 10');
    const a = new AdmissionService(h().service.store, clock, config({ sliceMs: 30 }));
    const sliceGone = async () =>
      !(a as unknown as { slices: { slices: Map<string, unknown> } }).slices.slices.has(agent.id);
    const run = await a.admit(agent, bound(0));
    await until('the slice to end, unused', sliceGone);
    await run.settle(0.5);
    expect(await charged(agent.id)).to.equal(0.5);
    // One that cost nothing is not a run of the day.
    const free = await a.admit(agent, bound(0));
    await until('the slice to end, unused', sliceGone);
    await free.settle(0);
    expect(await h().service.store.repos.usage.listByAgent(agent.id, utcDay(clock.now()))).to.deep.include.members([
      { agentId: agent.id, day: utcDay(clock.now()), credits: 0.5, runs: 1 },
    ]);
    await a.close();
  });

  it("an agent's own limit held by its runs does not take back other agents' slices", async () => {
    const own = await limited('dailyCreditLimit: 1');
    const neighbour = await limited('dailyCreditLimit: 10');
    const a = new AdmissionService(h().service.store, clock, config());
    const held = await a.admit(own, bound(1));
    const theirs = await a.admit(neighbour, bound(1));
    await theirs.release(); // the neighbour's slice keeps 1 credit free
    const err = await a.admit(own, bound(1)).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as LimitExceeded).reason).to.equal('daily_credit_limit');
    expect(await reserved(neighbour.id)).to.equal(1);
    await held.release();
    await a.close();
  });

  it('charges a store refuses are kept in the slice and stored by a later flush', async () => {
    const agent = await limited('dailyCreditLimit: 10');
    const real = h().service.store;
    let refuse = true;
    const store: Store = {
      get repos() {
        const repos = real.repos;
        return {
          ...repos,
          slots: {
            ...repos.slots,
            spend: (id: string, c: Parameters<typeof repos.slots.spend>[1]) =>
              refuse ? Promise.reject(new Error('database unavailable')) : repos.slots.spend(id, c),
          },
        };
      },
      transaction: (work) => real.transaction(work),
    } as Store;
    const a = new AdmissionService(store, clock, config());
    await (await a.admit(agent, bound(1))).settle(0.75);
    expect(
      await a.flushCharges().then(
        () => null,
        (e: Error) => e.message,
      ),
    ).to.equal('database unavailable');
    // Not charged, and still held by the slice: nothing counts less than it should.
    expect(await charged(agent.id)).to.equal(0);
    expect(await reserved(agent.id)).to.equal(1);
    refuse = false;
    await a.flushCharges();
    expect(await charged(agent.id)).to.equal(0.75);
    expect(await reserved(agent.id)).to.equal(0.25);
    await a.close();
  });
});

describe('admission: concurrency leases an instance keeps', function () {
  this.timeout(60_000);
  const clock = new MovableClock(new Date());
  const leases = async (agentId: string) =>
    (await h().db('run_slots').where({ agent_id: agentId }).select('id', 'slot_no')) as {
      id: string;
      slot_no: number;
    }[];

  async function agentWith(max: number) {
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: ${max}) { id } }`,
      { id },
    );
    return { ws, agent: await loadAgent(id) };
  }

  it('k leases admit k runs at once; a new lease is taken only when all are in use; idle ones go back after idleLeaseMs', async () => {
    const { agent } = await agentWith(10);
    const { store, count } = counted(h().service.store);
    const a = new AdmissionService(store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
      idleLeaseMs: 200,
    });
    const three = await Promise.all([a.admit(agent), a.admit(agent), a.admit(agent)]);
    expect(count['slots.acquire']).to.equal(3);
    for (const r of three) await r.release();
    for (let round = 0; round < 5; round++) {
      const again = await Promise.all([a.admit(agent), a.admit(agent), a.admit(agent)]);
      expect(new Set(again.map((r) => r.slotId))).to.deep.equal(new Set(three.map((r) => r.slotId)));
      for (const r of again) await r.release();
    }
    expect(count['slots.acquire']).to.equal(3);
    expect(count['slots.release'] ?? 0).to.equal(0);
    expect(await leases(agent.id)).to.have.length(3);
    await until('the idle leases to go back', async () => (await leases(agent.id)).length === 0);
    expect(count['slots.releaseMany']).to.be.at.least(1);
  });

  it('a lowered limit leaves the leases numbered above it unused', async () => {
    const { ws, agent } = await agentWith(3);
    const a = new AdmissionService(h().service.store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
      idleLeaseMs: 60_000,
    });
    const three = await Promise.all([a.admit(agent), a.admit(agent), a.admit(agent)]);
    for (const r of three) await r.release();
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 1) { id } }', {
      id: agent.id,
    });
    const lowered = await loadAgent(agent.id);
    const only = await a.admit(lowered);
    const numbers = new Map((await leases(agent.id)).map((l) => [l.id, l.slot_no]));
    expect(numbers.get(only.slotId!)).to.equal(0);
    const err = await a.admit(lowered).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as LimitExceeded).reason).to.equal('concurrency_limit');
    await only.release();
    await a.close();
    expect(await leases(agent.id)).to.deep.equal([]);
  });
});
