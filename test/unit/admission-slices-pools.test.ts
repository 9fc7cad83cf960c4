import { expect } from 'chai';
import { AdmissionService } from '../../src/domain/admission/admission.service.js';
import { CreditSlices } from '../../src/domain/admission/credit-slices.js';
import { SlotPools } from '../../src/domain/admission/slot-pools.js';
import type { RunSlot, SummedCharge } from '../../src/domain/admission/admission.ports.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { Repositories, Store } from '../../src/domain/ports.js';
import { MovableClock } from '../helpers/movable-clock.js';

// The parts of admission that keep limits in memory (docs/decisions.md §23.7), against a store that
// records every statement: which statements a slice or a pool makes, and when.

interface Lease extends RunSlot {
  no: number | null;
}

/** An in-memory store of leases and charges, recording the statements made on it. */
function fakeStore() {
  const leases = new Map<string, Lease>();
  const charges: SummedCharge[] = [];
  const calls: string[] = [];
  let failSpend = 0;
  const slots = {
    acquire: async (s: RunSlot, max: number) => {
      calls.push('acquire');
      const used = new Set([...leases.values()].map((l) => l.no));
      for (let n = 0; n < max; n++) if (!used.has(n)) return (leases.set(s.id, { ...s, no: n }), n);
      return null;
    },
    insert: async (s: RunSlot) => void (calls.push('insert'), leases.set(s.id, { ...s, no: null })),
    resize: async (id: string, reservedCredits: number, expiresAt: Date) => {
      calls.push('resize');
      const l = leases.get(id);
      if (l) Object.assign(l, { reservedCredits, expiresAt });
      return !!l;
    },
    spend: async (id: string, c: SummedCharge) => {
      calls.push('spend');
      if (failSpend > 0) {
        failSpend--;
        throw new Error('database unavailable');
      }
      const l = leases.get(id);
      if (l) l.reservedCredits = Math.max(0, l.reservedCredits - c.credits);
      charges.push({ ...c });
    },
    release: async (id: string) => void (calls.push('release'), leases.delete(id)),
    releaseMany: async (ids: string[]) =>
      void (calls.push(`releaseMany:${ids.length}`), ids.forEach((id) => leases.delete(id))),
    renewMany: async (ids: string[], expiresAt: Date) =>
      void (
        calls.push(`renewMany:${ids.length}`),
        ids.forEach((id) => leases.get(id) && (leases.get(id)!.expiresAt = expiresAt))
      ),
    lockAgent: async () => void calls.push('lockAgent'),
    lockLimit: async (scope: object) => void calls.push(`lockLimit:${Object.keys(scope)[0]}`),
  };
  const usage = { chargeMany: async (cs: SummedCharge[]) => void (calls.push('chargeMany'), charges.push(...cs)) };
  const repos = { slots, usage } as unknown as Repositories;
  const store = {
    repos,
    transaction: (work: (r: Repositories) => Promise<unknown>) => work(repos),
  } as unknown as Store;
  return { store, leases, charges, calls, failNextSpends: (n: number) => (failSpend = n) };
}

const agent = (id: string, workspaceId = 'ws_1'): Agent => ({ id, workspaceId, teamId: null }) as Agent;
/** Polls `probe` until it holds: timers fire late on a busy machine; the deadline only bounds a hang. */
async function eventually(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
const config = { instanceId: 'test', leaseMs: 30_000, sliceMs: 60_000, chargeDelayMs: 60_000 };

describe('credit slices, statement by statement', () => {
  const clock = new MovableClock(new Date('2026-10-01T12:00:00Z'));

  async function granted(slices: CreditSlices, store: Store, a: Agent, credits: number, limits = 'L') {
    const apply = await slices.serially(a, limits, () => slices.grant(store.repos, a, limits, credits));
    apply();
  }

  it('admits a run that fits exactly; one that does not only as the partial run; a run reserving nothing only while anything is left', async () => {
    const { store } = fakeStore();
    const slices = new CreditSlices(store, clock, config);
    const a = agent('agt_a');
    expect(slices.inFlight(a.id)).to.equal(0);
    expect(slices.admit(a, 'L', 1)).to.equal(false); // no slice yet
    await granted(slices, store, a, 1);
    expect(slices.admit(a, 'other limits', 1)).to.equal(false);
    expect(slices.admit(a, 'L', 1.000001)).to.equal(false);
    expect(slices.admit(a, 'L', 1)).to.equal(true); // exactly what is left
    expect(slices.inFlight(a.id)).to.equal(1);
    expect(slices.admit(a, 'L', 0)).to.equal(false); // nothing left
    expect(slices.admit(a, 'L', 0.5, true)).to.equal(false); // nothing left, even for the partial run
    slices.settle(a, 1, null);
    expect(slices.inFlight(a.id)).to.equal(0);
    expect(slices.admit(a, 'L', 0)).to.equal(true);
    expect(slices.admit(a, 'L', 1.5)).to.equal(false);
    expect(slices.admit(a, 'L', 1.5, true)).to.equal(true); // the one run over what is left
    await slices.close();
  });

  it('sums the charges of ended runs per day and stores them with one statement after the delay', async () => {
    const { store, calls, charges, leases } = fakeStore();
    const slices = new CreditSlices(store, clock, { ...config, chargeDelayMs: 30 });
    const a = agent('agt_b');
    expect(slices.settle(a, 0, 1)).to.equal(false); // no slice: the caller charges it
    await granted(slices, store, a, 10);
    for (const credits of [0.5, 2, 0.25]) {
      slices.admit(a, 'L', 2);
      expect(slices.settle(a, 2, credits)).to.equal(true);
    }
    slices.admit(a, 'L', 2);
    expect(slices.settle(a, 2, 0)).to.equal(true); // a run that cost nothing is not a charge
    expect(calls.filter((c) => c === 'spend')).to.deep.equal([]);
    await eventually('the batch to be stored', () => calls.includes('spend'));
    expect(calls.filter((c) => c === 'spend')).to.deep.equal(['spend']);
    expect(charges).to.deep.equal([
      { agentId: a.id, workspaceId: 'ws_1', teamId: null, day: '2026-10-01', credits: 2.75, runs: 3, maxRunCredits: 2 },
    ]);
    // The slice keeps what was not spent, in the database too.
    expect([...leases.values()].map((l) => l.reservedCredits)).to.deep.equal([7.25]);
    expect(slices.admit(a, 'L', 7.25)).to.equal(true);
    await slices.close();
  });

  it('charges a refused statement kept are merged with later ones and stored by the retry', async () => {
    const { store, charges, failNextSpends } = fakeStore();
    const slices = new CreditSlices(store, clock, config);
    const a = agent('agt_c');
    await granted(slices, store, a, 10);
    slices.admit(a, 'L', 1);
    slices.settle(a, 1, 1);
    failNextSpends(1);
    const refused = slices.flush();
    // A run ends while the refused statement is on its way: the two are merged.
    slices.admit(a, 'L', 3);
    slices.settle(a, 3, 3);
    expect(
      await refused.then(
        () => null,
        (e: Error) => e.message,
      ),
    ).to.equal('database unavailable');
    await slices.flush();
    expect(charges).to.deep.equal([
      { agentId: a.id, workspaceId: 'ws_1', teamId: null, day: '2026-10-01', credits: 4, runs: 2, maxRunCredits: 3 },
    ]);
    // A refused flush also retries by itself, a second later.
    slices.admit(a, 'L', 1);
    slices.settle(a, 1, 0.5);
    failNextSpends(1);
    await slices.flush().catch(() => {});
    await eventually('the retry', () => charges.length === 2);
    expect(charges.at(-1)).to.deep.include({ credits: 0.5, runs: 1 });
    await slices.close();
  });

  it('storing pending charges for a grant makes no statement when there are none', async () => {
    const { store, calls } = fakeStore();
    const slices = new CreditSlices(store, clock, config);
    await slices.storePending('agt_none');
    const a = agent('agt_d');
    await granted(slices, store, a, 1);
    calls.length = 0;
    await slices.storePending(a.id);
    expect(calls).to.deep.equal([]);
    slices.admit(a, 'L', 1);
    slices.settle(a, 1, 1);
    await slices.storePending(a.id);
    expect(calls).to.deep.equal(['spend', 'release']); // spent to nothing: the slice ends
    await slices.close();
  });

  it('a grant under other limits first shrinks the slice to what its runs hold; a grant of nothing writes no lease', async () => {
    const { store, leases, calls } = fakeStore();
    const slices = new CreditSlices(store, clock, config);
    const a = agent('agt_e');
    await granted(slices, store, a, 0);
    expect(calls).to.deep.equal([]);
    await granted(slices, store, a, 5);
    slices.admit(a, 'L', 2);
    slices.admit(a, 'L', 1);
    slices.settle(a, 1, 1); // 2 in flight, 1 pending, 2 free
    await granted(slices, store, a, 0.5, 'M');
    expect([...leases.values()].map((l) => l.reservedCredits)).to.deep.equal([3.5]);
    expect(slices.admit(a, 'L', 0.1)).to.equal(false);
    expect(slices.admit(a, 'M', 0.5)).to.equal(true);
    await slices.close();
  });

  it('a lease gone from the database (expired and purged) is written anew', async () => {
    const { store, leases } = fakeStore();
    const slices = new CreditSlices(store, clock, config);
    const a = agent('agt_f');
    await granted(slices, store, a, 2);
    leases.clear();
    await granted(slices, store, a, 1);
    expect([...leases.values()].map((l) => [l.reservedCredits, l.budget])).to.deep.equal([[3, true]]);
    await slices.close();
  });

  it('at the end of a life: shrinks to the runs in flight, restarts its life while used, ends once a life passes unused', async () => {
    const { store, leases, charges } = fakeStore();
    const slices = new CreditSlices(store, clock, { ...config, sliceMs: 40 });
    const a = agent('agt_g');
    await granted(slices, store, a, 10);
    slices.admit(a, 'L', 2);
    slices.admit(a, 'L', 1);
    const held = () => [...leases.values()].map((l) => l.reservedCredits);
    await eventually('the slice to shrink to its runs in flight', () => held().length === 1 && held()[0] === 3);
    slices.settle(a, 2, 2);
    slices.settle(a, 1, null);
    // A later life: the charge is stored, nothing held, and the lease ends.
    await eventually('the lease to end', () => held().length === 0);
    expect(charges).to.have.length(1);
    await eventually('the unused slice to end', () => !slices.settle(a, 0, null));
    expect(slices.admit(a, 'L', 0)).to.equal(false);
    expect(slices.settle(a, 0, 1)).to.equal(false); // the slice is gone
    await slices.close();
  });

  it('gives back the free credits of the other agents of its workspace only, and says how many gave', async () => {
    const { store, leases } = fakeStore();
    const slices = new CreditSlices(store, clock, config);
    const [a, b, c, d, other] = [
      agent('agt_h1'),
      agent('agt_h2'),
      agent('agt_h3'),
      agent('agt_h5'),
      agent('agt_h4', 'ws_2'),
    ];
    for (const x of [a, b, c, d, other]) await granted(slices, store, x, 2);
    slices.admit(c, 'L', 2); // c has nothing free
    slices.admit(d, 'L', 2);
    slices.settle(d, 2, 2); // nor has d: its run's charge is pending
    expect(await slices.giveBackOthers(a)).to.equal(1);
    const held = new Map([...leases.values()].map((l) => [l.agentId, l.reservedCredits]));
    expect(Object.fromEntries(held)).to.deep.equal({ agt_h1: 2, agt_h3: 2, agt_h4: 2, agt_h5: 2 });
    expect(await slices.giveBackOthers(a)).to.equal(0);
    await slices.close();
    expect([...leases.values()].map((l) => l.agentId)).to.deep.equal(['agt_h3']); // c's run still holds it; d's charge is stored
    expect(slices.admit(c, 'L', 0)).to.equal(false);
  });
});

describe('slot pools, statement by statement', () => {
  const clock = new MovableClock(new Date('2026-10-01T12:00:00Z'));

  it('a run ended leaves its lease for the next; a full pool says so; a lease numbered at or above the limit is not taken', async () => {
    const { store, calls } = fakeStore();
    const pools = new SlotPools(store, clock, { instanceId: 'test', leaseMs: 30_000, idleLeaseMs: 60_000 });
    const a = agent('agt_p');
    expect(pools.take(a.id, 2)).to.equal(null);
    const first = (await pools.acquire(a, 2))!;
    const second = (await pools.acquire(a, 2))!;
    expect([first.no, second.no]).to.deep.equal([0, 1]);
    expect(await pools.acquire(a, 2)).to.equal(null);
    expect(pools.take(a.id, 2)).to.equal('full');
    expect(pools.busy(a.id)).to.equal(2);
    expect(pools.busy('agt_other')).to.equal(0);
    await pools.put(a.id, second);
    await pools.put(a.id, first);
    expect(pools.busy()).to.equal(0);
    // The limit lowered to 1: lease number 1 stays unused.
    expect(pools.take(a.id, 1)).to.deep.equal({ id: first.id, no: 0 });
    expect(pools.take(a.id, 1)).to.equal('full');
    expect(pools.take(a.id, 2)).to.deep.equal({ id: second.id, no: 1 });
    expect(calls.filter((c) => c.startsWith('release'))).to.deep.equal([]);
    await pools.put(a.id, first);
    await pools.put(a.id, second);
    await pools.close();
    expect(calls.filter((c) => c.startsWith('release'))).to.deep.equal(['releaseMany:2']);
    expect(pools.take(a.id, 2)).to.equal(null); // nothing kept any more
    expect((pools as unknown as { pools: Map<string, unknown> }).pools.size).to.equal(0);
  });

  it('with its limit lowered, an agent takes a kept lease numbered below it, never one at or above it', async () => {
    const { store } = fakeStore();
    const pools = new SlotPools(store, clock, { instanceId: 'test', leaseMs: 30_000, idleLeaseMs: 60_000 });
    const a = agent('agt_p2');
    const [x, y, z] = [(await pools.acquire(a, 3))!, (await pools.acquire(a, 3))!, (await pools.acquire(a, 3))!];
    expect([x.no, y.no, z.no]).to.deep.equal([0, 1, 2]);
    await pools.put(a.id, y);
    await pools.put(a.id, z); // x still runs; y and z wait, z last
    expect(pools.take(a.id, 2)).to.deep.equal({ id: y.id, no: 1 });
    expect(pools.take(a.id, 3)).to.deep.equal({ id: z.id, no: 2 });
    // Runs in flight keep their pool while its idle leases go back.
    await pools.close();
    expect(pools.take(a.id, 3)).to.equal('full');
    expect(pools.busy(a.id)).to.equal(3);
  });

  it('gives back leases idle for idleLeaseMs in one statement, keeps the recently used, and renews every lease held', async () => {
    const { store, leases, calls } = fakeStore();
    const pools = new SlotPools(store, clock, { instanceId: 'test', leaseMs: 150, idleLeaseMs: 60 });
    const sweep = () => (pools as unknown as { giveBackIdle(): Promise<void> }).giveBackIdle();
    const a = agent('agt_q');
    const [x, y] = [(await pools.acquire(a, 5))!, (await pools.acquire(a, 5))!];
    await pools.put(a.id, x);
    await sweep(); // just used: kept
    expect([...leases.keys()].sort()).to.deep.equal([x.id, y.id].sort());
    await eventually('the idle lease to go back', () => !leases.has(x.id));
    expect([...leases.keys()]).to.deep.equal([y.id]); // idle past idleLeaseMs: given back; y is in use
    expect(calls).to.include('releaseMany:1');
    clock.advance(10_000);
    // Renewed every 50 ms, to leaseMs past the moved clock.
    await eventually('the lease to be renewed', () => leases.get(y.id)!.expiresAt.getTime() >= clock.now().getTime());
    await pools.put(a.id, y);
    await eventually('the last lease to go back', () => leases.size === 0);
    expect(pools.take(a.id, 5)).to.equal(null);
  });

  it('with idleLeaseMs 0 a lease goes back as its run ends', async () => {
    const { store, leases, calls } = fakeStore();
    const pools = new SlotPools(store, clock, { instanceId: 'test', leaseMs: 30_000, idleLeaseMs: 0 });
    const a = agent('agt_r');
    const x = (await pools.acquire(a, 1))!;
    await pools.put(a.id, x);
    expect(calls).to.deep.equal(['acquire', 'release']);
    expect(leases.size).to.equal(0);
    expect(pools.take(a.id, 1)).to.equal(null);
  });
});

describe('admission in memory: what reaches the store', () => {
  const clock = new MovableClock(new Date('2026-10-01T12:00:00Z'));
  const scopes = (store: Store, team: object | null, workspace: object | null) => {
    Object.assign(store.repos, { teams: { get: async () => team }, workspaces: { get: async () => workspace } });
    return store;
  };

  it('a grant under a team and a workspace limit locks the agent, then the team, then the workspace', async () => {
    const { store, calls } = fakeStore();
    Object.assign(store.repos, {
      usage: { ...store.repos.usage, agentDay: async () => 0, teamDay: async () => 0, workspaceDay: async () => 0 },
    });
    Object.assign(store.repos.slots, { reserved: async () => 0 });
    scopes(store, { id: 'team_1', dailyCreditLimit: 5 }, { id: 'ws_1', dailyCreditLimit: 9 });
    const a = new AdmissionService(store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
      sliceMs: 60_000,
      chargeDelayMs: 60_000,
    });
    const run = await a.admit(
      { ...agent('agt_s'), teamId: 'team_1', dailyCreditLimit: null, maxConcurrentRequests: null } as Agent,
      async () => 1,
    );
    expect(calls).to.deep.equal(['lockAgent', 'lockLimit:teamId', 'lockLimit:workspaceId', 'insert']);
    await run.settle(1);
    await a.close();
  });

  it('an agent under no limit charges a run that cost nothing not at all, one that cost something to the batch', async () => {
    const { store, calls } = fakeStore();
    scopes(store, null, { id: 'ws_1', dailyCreditLimit: null });
    const batched: unknown[] = [];
    const a = new AdmissionService(
      store,
      clock,
      { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 },
      { charge: (c) => void batched.push(c), flush: async () => {} },
    );
    const free = { ...agent('agt_t'), dailyCreditLimit: null, maxConcurrentRequests: null } as Agent;
    await (await a.admit(free)).settle(0);
    await (await a.admit(free)).release();
    expect(batched).to.deep.equal([]);
    await (await a.admit(free)).settle(0.5);
    expect(batched).to.have.length(1);
    expect(calls).to.deep.equal([]);
  });
});
