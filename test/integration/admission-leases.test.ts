import { expect } from 'chai';
import { AdmissionService } from '../../src/domain/admission/admission.service.js';
import { newId } from '../../src/domain/ids.js';
import { createAgent, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { loadAgent } from '../helpers/runtime.js';

// Lease keeping as housekeeping sees it: `purgeExpiredLeases` deletes the leases nobody renews any
// more (a crashed instance's) and never one that still counts. The clock is set in 2001, so no other
// test's lease has expired by it.

describe('admission: purging expired leases', function () {
  this.timeout(60_000);
  const config = { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 };

  it('deletes the leases expired by now (one that expires exactly now included) and keeps the others, held ones too', async () => {
    const ws = await newWorkspace();
    const agentId = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 5) { id } }', {
      id: agentId,
    });
    const slots = h().service.store.repos.slots;
    const clock = new MovableClock(new Date('2001-01-01T12:00:00Z'));
    const lease = async (expiresAt: string) => {
      const id = newId('slot');
      await slots.insert({
        id,
        agentId,
        workspaceId: ws.workspaceId,
        teamId: null,
        instanceId: 'crashed-instance',
        reservedCredits: 0,
        expiresAt: new Date(expiresAt),
      });
      return id;
    };
    const expiredLongAgo = await lease('2001-01-01T11:00:00Z');
    const expiresNow = await lease('2001-01-01T12:00:00Z');
    const expiresLater = await lease('2001-01-01T12:00:01Z');
    const a = new AdmissionService(h().service.store, clock, config);
    const held = await a.admit(await loadAgent(agentId)); // a lease of this instance, leaseMs from now
    const leases = async () =>
      ((await h().db('run_slots').where({ agent_id: agentId }).select('id')) as { id: string }[])
        .map((r) => r.id)
        .sort();
    try {
      expect(await leases()).to.have.members([expiredLongAgo, expiresNow, expiresLater, held.slotId!]);
      expect(await a.purgeExpiredLeases()).to.equal(2);
      expect(await leases()).to.deep.equal([expiresLater, held.slotId!].sort());
      // Nothing left to purge until the next one expires.
      expect(await a.purgeExpiredLeases()).to.equal(0);
      clock.advance(1000);
      expect(await a.purgeExpiredLeases()).to.equal(1);
      expect(await leases()).to.deep.equal([held.slotId!]);
      expect(a.leasesHeld()).to.equal(1);
    } finally {
      await held.release();
    }
    // The ended run's lease stays with this instance for the agent's next run until it goes back.
    expect(a.leasesHeld()).to.equal(0);
    expect(await leases()).to.deep.equal([held.slotId!]);
    await a.close();
    expect(await leases()).to.deep.equal([]);
  });
});

describe('admission: the leases this instance holds', function () {
  this.timeout(60_000);
  const config = { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 };

  it('counts each lease of an agent until it ends, and none for a run that takes no lease', async () => {
    const ws = await newWorkspace();
    const limited = await createAgent(ws.adminToken);
    const unlimited = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 3) { id } }', {
      id: limited,
    });
    const a = new AdmissionService(h().service.store, new MovableClock(new Date()), config);
    const free = await a.admit(await loadAgent(unlimited));
    expect(free.slotId).to.equal(null);
    expect(a.leasesHeld()).to.equal(0);
    const first = await a.admit(await loadAgent(limited));
    const second = await a.admit(await loadAgent(limited));
    expect(a.leasesHeld()).to.equal(2);
    await first.release();
    // Ending a run twice ends its lease once.
    await first.release();
    expect(a.leasesHeld()).to.equal(1);
    await second.settle(0);
    expect(a.leasesHeld()).to.equal(0);
    await free.release();
    expect(a.leasesHeld()).to.equal(0);
  });

  it('renews a lease at a third of its length, not sooner', async () => {
    const ws = await newWorkspace();
    const agentId = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 1) { id } }', {
      id: agentId,
    });
    const clock = new MovableClock(new Date('2001-01-01T12:00:00Z'));
    const a = new AdmissionService(h().service.store, clock, config);
    const held = await a.admit(await loadAgent(agentId));
    const expiresAt = async () =>
      (
        (await h().db('run_slots').where({ id: held.slotId! }).first('expires_at')) as { expires_at: Date }
      ).expires_at.getTime();
    try {
      const first = await expiresAt();
      // A renewal now would push the lease to the moved clock's time plus its length.
      clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(await expiresAt()).to.equal(first);
    } finally {
      await held.release();
    }
  });
});

describe('admission: the lease of a probe (a run whose cost is not known yet, under a credit limit)', function () {
  this.timeout(60_000);
  const unknown = async () => null;

  async function probeAgent(limits: string) {
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, ${limits}) { id } }`, { id });
    return loadAgent(id);
  }

  it('takes a numbered lease under a concurrency limit, counted as held by its agent until it ends, renewed while it lasts', async () => {
    const agent = await probeAgent('dailyCreditLimit: 1, maxConcurrentRequests: 2');
    const other = await loadAgent(await createAgent((await newWorkspace()).adminToken));
    const clock = new MovableClock(new Date('2001-02-01T12:00:00Z'));
    const a = new AdmissionService(h().service.store, clock, {
      instanceId: 'test',
      leaseMs: 150,
      concurrencyRetryAfterSeconds: 1,
    });
    const probe = await a.admit(agent, unknown);
    const row = await h().db('run_slots').where({ id: probe.slotId! }).first();
    expect(row.slot_no).to.be.oneOf([0, 1]); // a number below the limit, picked at random
    expect([row.budget, Number(row.reserved_credits)]).to.deep.equal([false, 0]);
    expect(a.leasesHeld(agent.id)).to.equal(1);
    expect(a.leasesHeld(other.id)).to.equal(0);
    expect(a.leasesHeld()).to.equal(1);
    clock.advance(3_600_000);
    const expiry = async () =>
      new Date((await h().db('run_slots').where({ id: probe.slotId! }).first()).expires_at).getTime();
    const deadline = Date.now() + 20_000; // bounds a hang only
    while ((await expiry()) <= clock.now().getTime() && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(await expiry()).to.be.above(clock.now().getTime());
    await probe.settle(0);
    expect(a.leasesHeld(agent.id)).to.equal(0);
    expect(await h().db('run_slots').where({ agent_id: agent.id })).to.deep.equal([]);
    expect(await h().service.store.repos.usage.listByAgent(agent.id, '2001-02-01')).to.deep.equal([]);
  });

  it('a probe that cost something is charged with its lease ended, in one transaction, at once; a released one is not charged', async () => {
    const agent = await probeAgent('dailyCreditLimit: 1');
    const clock = new MovableClock(new Date('2001-02-02T12:00:00Z'));
    const a = new AdmissionService(h().service.store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
    });
    const [first, second] = [await a.admit(agent, unknown), await a.admit(agent, unknown).catch((e: unknown) => e)];
    expect((second as { reason?: string }).reason).to.equal('concurrency_limit'); // one probe at a time
    await first.release();
    expect(await h().service.store.repos.usage.listByAgent(agent.id, '2001-02-02')).to.deep.equal([]);
    const again = await a.admit(agent, unknown);
    expect(a.leasesHeld(agent.id)).to.equal(1);
    await again.settle(0.25);
    expect(a.leasesHeld(agent.id)).to.equal(0);
    expect(await h().service.store.repos.usage.listByAgent(agent.id, '2001-02-02')).to.deep.equal([
      { agentId: agent.id, day: '2001-02-02', credits: 0.25, runs: 1 },
    ]);
    expect(await h().db('run_slots').where({ agent_id: agent.id })).to.deep.equal([]);
  });

  it('a probe under a used-up limit is refused until midnight, and remembered: the next refusal takes no transaction', async () => {
    // A limit of 0 is used up with nothing charged: no run measured, so every run is a probe.
    const agent = await probeAgent('dailyCreditLimit: 0');
    const clock = new MovableClock(new Date('2001-02-03T12:00:00Z'));
    const real = h().service.store;
    let transactions = 0;
    const store = {
      get repos() {
        return real.repos;
      },
      transaction: (work: never) => (transactions++, real.transaction(work)),
    } as unknown as typeof real;
    const a = new AdmissionService(store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
    });
    const err = (await a.admit(agent, unknown).catch((e: unknown) => e)) as {
      reason: string;
      retryAfterSeconds: number;
    };
    expect([err.reason, err.retryAfterSeconds]).to.deep.equal(['daily_credit_limit', 12 * 3600]);
    expect(transactions).to.equal(1);
    await a.admit(agent, unknown).catch(() => {});
    expect(transactions).to.equal(1);
    expect(await h().db('run_slots').where({ agent_id: agent.id })).to.deep.equal([]);
  });
});
