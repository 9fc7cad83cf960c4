import { expect } from 'chai';
import { MovableClock } from '../helpers/movable-clock.js';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { AdmissionService, type Admission } from '../../src/domain/admission/admission.service.js';
import { utcDay } from '../../src/domain/clock.js';
import type { Clock } from '../../src/domain/clock.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import type { CreditScope } from '../../src/domain/admission/admission.ports.js';
import { runCreditBound } from '../../src/domain/runtime/run-credits.js';
import type { RunEntry } from '../../src/domain/runtime/run.types.js';
import { LimitExceeded } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { startModelGate, type ModelGate } from '../helpers/model-gate.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { ROOT } from '../helpers/process.js';
import { configureFakeModel, loadAgent } from '../helpers/runtime.js';

/** Polls `probe` until it returns a truthy value; the deadline only bounds a hang. */
async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  deadlineMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function refusal(p: Promise<unknown>): Promise<LimitExceeded> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err, 'expected a LimitExceeded').to.be.instanceOf(LimitExceeded);
  return err as LimitExceeded;
}

describe('admission: credit limits and concurrency', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  const clock = new MovableClock(new Date('2026-03-10T23:59:30Z'));
  const admission = () =>
    new AdmissionService(h().service.store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
    });

  before(async () => {
    ws = await newWorkspace();
  });

  it('refuses an agent over its daily limit until 00:00 UTC, with Retry-After = seconds to midnight', async () => {
    clock.set('2026-03-10T23:59:30Z');
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }`, {
      id,
    });
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
    const usage = await h().service.store.repos.usage.listByAgent(id, '2026-03-10');
    expect(usage).to.deep.equal([{ agentId: id, day: '2026-03-10', credits: 1.2, runs: 2 }]);
  });

  it('sums team and workspace usage over their agents', async () => {
    clock.set('2026-04-01T12:00:00Z');
    const fresh = await newWorkspace();
    const team = (await gqlOk(fresh.adminToken, `mutation { createTeam(name: "Sales", dailyCreditLimit: 2) { id } }`))
      .createTeam.id;
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
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 2) { id } }`, {
      id,
    });
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
    // The leases this instance kept for the agent's next runs go back (as they do once idle).
    await a.close();

    // A lease left behind by a crashed instance stops counting once it expires.
    const repos = h().service.store.repos;
    const crashed = {
      agentId: id,
      workspaceId: agent.workspaceId,
      teamId: null,
      instanceId: 'crashed',
      reservedCredits: 0,
      expiresAt: new Date('2026-05-01T08:00:10Z'),
    };
    await repos.slots.insert({ id: newId('slot'), ...crashed });
    await repos.slots.insert({ id: newId('slot'), ...crashed });
    await refusal(a.admit(agent));
    clock.set('2026-05-01T08:00:10.001Z');
    await (await a.admit(agent)).release();
  });

  it('a burst of 5N concurrent admissions in one process admits exactly N', async () => {
    clock.set('2026-05-02T08:00:00Z');
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 3) { id } }`, {
      id,
    });
    const agent = await loadAgent(id);
    const a = admission();
    const results = await Promise.all(
      Array.from({ length: 15 }, () =>
        a.admit(agent).then(
          (s) => s,
          (e) => e as LimitExceeded,
        ),
      ),
    );
    const admitted = results.filter((r) => !(r instanceof LimitExceeded));
    expect(admitted).to.have.length(3);
    expect(results.filter((r) => r instanceof LimitExceeded && r.reason === 'concurrency_limit')).to.have.length(12);
    for (const s of admitted) await (s as { release(): Promise<void> }).release();
  });
});

describe('admission: the exact limits', function () {
  this.timeout(60_000);
  const clock = new MovableClock(new Date('2026-06-01T12:00:00Z'));
  // idleLeaseMs 0: a lease goes back when its run ends, so the database shows each run's lease.
  const admission = (leaseMs = 30_000) =>
    new AdmissionService(h().service.store, clock, {
      instanceId: 'test',
      leaseMs,
      concurrencyRetryAfterSeconds: 7,
      idleLeaseMs: 0,
    });
  const slotCount = async (agentId: string) => h().service.store.repos.slots.countActive(agentId, clock.now());

  it('a daily limit is used up when usage reaches it exactly, with a message naming the limit', async () => {
    clock.set('2026-06-01T12:00:00Z');
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }`, {
      id,
    });
    const agent = await loadAgent(id);
    const a = admission();
    await a.charge(agent, 0.5);
    await (await a.admit(agent)).release();
    await a.charge(agent, 0.5);
    const err = await refusal(a.admit(agent));
    expect(err.reason).to.equal('daily_credit_limit');
    expect(err.message).to.equal('This agent used its daily credit limit of 1; it resets at 00:00 UTC');
    expect(err.retryAfterSeconds).to.equal(12 * 3600);
  });

  it('team and workspace limits that are set but not reached admit runs; reached exactly, they refuse with their own reason', async () => {
    clock.set('2026-06-02T18:00:00Z');
    const ws = await newWorkspace();
    const team = (await gqlOk(ws.adminToken, `mutation { createTeam(name: "Ops", dailyCreditLimit: 1) { id } }`))
      .createTeam.id;
    await gqlOk(ws.adminToken, `mutation { setWorkspaceLimits(dailyCreditLimit: 3) { id } }`);
    const member = await loadAgent(await createAgent(ws.adminToken, { teamId: team }));
    const solo = await loadAgent(await createAgent(ws.adminToken));
    const a = admission();
    await a.charge(member, 0.25);
    await (await a.admit(member)).release();
    await (await a.admit(solo)).release();
    await a.charge(member, 0.75); // the team's 1 is reached exactly
    const teamErr = await refusal(a.admit(member));
    expect(teamErr.reason).to.equal('team_credit_limit');
    expect(teamErr.message).to.equal("The team's daily credit limit of 1 is used up; it resets at 00:00 UTC");
    expect(teamErr.retryAfterSeconds).to.equal(6 * 3600);
    await (await a.admit(solo)).release(); // 1 of the workspace's 3
    await a.charge(solo, 2); // the workspace's 3 is reached exactly
    const wsErr = await refusal(a.admit(solo));
    expect(wsErr.reason).to.equal('workspace_credit_limit');
    expect(wsErr.message).to.equal("The workspace's daily credit limit of 3 is used up; it resets at 00:00 UTC");
  });

  it('a team without a limit and a workspace without a limit refuse nothing', async () => {
    clock.set('2026-06-02T10:00:00Z');
    const ws = await newWorkspace();
    const team = (await gqlOk(ws.adminToken, `mutation { createTeam(name: "Unlimited") { id } }`)).createTeam.id;
    const agent = await loadAgent(await createAgent(ws.adminToken, { teamId: team }));
    const a = admission();
    await a.charge(agent, 500);
    await (await a.admit(agent)).release();
  });

  it('a concurrency refusal names the limit and carries the configured Retry-After', async () => {
    clock.set('2026-06-03T08:00:00Z');
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 1) { id } }`, {
      id,
    });
    const agent = await loadAgent(id);
    const a = admission();
    const held = await a.admit(agent);
    expect(held.slotId).to.match(/^slot_/);
    const err = await refusal(a.admit(agent));
    expect(err.message).to.equal('This agent is already handling 1 requests, its limit; retry shortly');
    expect(err.retryAfterSeconds).to.equal(7);
    await held.release();
  });

  it('an agent without a concurrency limit takes no slot', async () => {
    const ws = await newWorkspace();
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const s = await admission().admit(agent);
    expect(s.slotId).to.equal(null);
    expect(await slotCount(agent.id)).to.equal(0);
    await s.release();
  });

  it('a slot lease lasts leaseMs from admission; releasing frees it once, and a second release frees no other slot', async () => {
    clock.set('2026-06-04T08:00:00Z');
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 2) { id } }`, {
      id,
    });
    const agent = await loadAgent(id);
    const a = admission(60_000);
    const first = await a.admit(agent);
    const stored = await h().db('run_slots').where({ id: first.slotId }).first();
    expect(new Date(stored.expires_at).toISOString()).to.equal('2026-06-04T08:01:00.000Z');
    expect(stored.instance_id).to.equal('test');
    const second = await a.admit(agent);
    expect(await slotCount(id)).to.equal(2);
    await first.release();
    await first.release();
    expect(await slotCount(id)).to.equal(1);
    await second.release();
    expect(await slotCount(id)).to.equal(0);
  });

  it('a held slot is renewed while its run lasts: its expiry moves to leaseMs past the current time', async () => {
    clock.set('2026-06-05T08:00:00Z');
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 1) { id } }`, {
      id,
    });
    const agent = await loadAgent(id);
    const held = await admission(150).admit(agent); // renewed every 50 ms of real time
    try {
      clock.set('2026-06-05T09:00:00Z'); // an hour later by the service's clock: without renewal the lease is long gone
      const expiry = async () =>
        new Date((await h().db('run_slots').where({ id: held.slotId }).first()).expires_at).toISOString();
      expect(
        await until('the lease to be renewed', async () => (await expiry()) === '2026-06-05T09:00:00.150Z'),
      ).to.equal(true);
      expect(await slotCount(id)).to.equal(1);
    } finally {
      await held.release();
    }
    expect(await slotCount(id)).to.equal(0);
  });
});

describe('admission: credit reservations (a burst cannot overshoot a daily limit)', function () {
  this.timeout(60_000);
  const clock = new MovableClock(new Date('2026-07-01T12:00:00Z'));
  const admission = (leaseMs = 30_000) =>
    new AdmissionService(h().service.store, clock, { instanceId: 'test', leaseMs, concurrencyRetryAfterSeconds: 7 });
  const repos = () => h().service.store.repos;
  const reserved = (scope: CreditScope) => repos().slots.reserved(scope, clock.now());
  const charged = (agentId: string) => repos().usage.agentDay(agentId, utcDay(clock.now()));
  const bound = (credits: number | null) => async () => credits;

  async function limitedAgent(ws: TestWorkspace, limits: string, extra: Record<string, unknown> = {}): Promise<Agent> {
    const id = await createAgent(ws.adminToken, extra);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, ${limits}) { id } }`, { id });
    return loadAgent(id);
  }

  /** Fires `n` admissions at once; returns the admitted handles and the refusals. */
  async function burst(a: AdmissionService, agent: Agent, n: number, credits: number | null) {
    const results = await Promise.all(
      Array.from({ length: n }, () =>
        a.admit(agent, bound(credits)).then(
          (s) => s,
          (e: unknown) => e,
        ),
      ),
    );
    const refused = results.filter((r): r is LimitExceeded => r instanceof LimitExceeded);
    expect(
      refused.length + results.filter((r) => !(r instanceof Error)).length,
      String(results.find((r) => r instanceof Error && !(r instanceof LimitExceeded))),
    ).to.equal(n);
    return { admitted: results.filter((r): r is Admission => !(r instanceof Error)), refused };
  }

  it('a burst of 15 runs that may cost 0.25 each on a limit of 1 admits exactly 4; the rest wait for the runs in flight', async () => {
    clock.set('2026-07-01T12:00:00Z');
    const agent = await limitedAgent(await newWorkspace(), 'dailyCreditLimit: 1');
    const a = admission();
    const { admitted, refused } = await burst(a, agent, 15, 0.25);
    expect(admitted).to.have.length(4);
    expect(admitted.map((s) => s.reservedCredits)).to.deep.equal([0.25, 0.25, 0.25, 0.25]);
    expect(await reserved({ agentId: agent.id })).to.equal(1);
    for (const r of refused) {
      expect(r.reason).to.equal('daily_credit_limit');
      expect(r.retryAfterSeconds).to.equal(7); // the runs in flight may settle for less: retry shortly
      expect(r.message).to.equal("This agent's daily credit limit of 1 is held by its runs in flight; retry shortly");
    }

    // Settling swaps each reservation for the real charge (stored with the next batch, moved out of
    // this instance's slice in the same statement); what the runs did not use stays in the slice,
    // free for this instance's next run.
    for (const s of admitted) await s.settle(0.2);
    await a.flushCharges();
    expect(await reserved({ agentId: agent.id })).to.be.closeTo(0.2, 1e-9);
    expect(await charged(agent.id)).to.be.closeTo(0.8, 1e-9);
    const last = await a.admit(agent, bound(0.25)); // 0.8 charged + 0.2 left: the one run over the limit
    expect((await refusal(a.admit(agent, bound(0.25)))).retryAfterSeconds).to.equal(7); // 0.8 + 0.25 held
    await last.settle(0.25);
    // The limit is now used up by charges alone: refused until midnight. The overshoot (0.05) is
    // less than one run's reservation.
    const err = await refusal(a.admit(agent, bound(0.25)));
    expect(err.message).to.equal('This agent used its daily credit limit of 1; it resets at 00:00 UTC');
    expect(err.retryAfterSeconds).to.equal(12 * 3600);
    expect(await charged(agent.id)).to.be.closeTo(1.05, 1e-9);
    expect(await repos().usage.listByAgent(agent.id, '2026-07-01')).to.deep.equal([
      { agentId: agent.id, day: '2026-07-01', credits: 1.05, runs: 5 },
    ]);
  });

  it('a reservation is admitted while charged + reserved stays under the limit, and refused once it reaches it exactly', async () => {
    clock.set('2026-07-01T13:00:00Z');
    const agent = await limitedAgent(await newWorkspace(), 'dailyCreditLimit: 1');
    const a = admission();
    await a.charge(agent, 0.1);
    const first = await a.admit(agent, bound(0.3)); // 0.1 used
    const second = await a.admit(agent, bound(0.3)); // 0.4 used
    const third = await a.admit(agent, bound(0.3)); // 0.7 used
    const err = await refusal(a.admit(agent, bound(0.000001))); // 1.0 used: the limit, exactly
    expect(err.reason).to.equal('daily_credit_limit');
    await first.release(); // 0.7 used
    const fourth = await a.admit(agent, bound(0.3));
    for (const s of [second, third, fourth]) await s.release();
    await a.close(); // the slice gives back what no run holds
    expect(await reserved({ agentId: agent.id })).to.equal(0);
    expect(await charged(agent.id)).to.equal(0.1);
  });

  it('a refused or failed run releases its reservation: used credits are back to what was charged', async () => {
    clock.set('2026-07-02T08:00:00Z');
    const agent = await limitedAgent(await newWorkspace(), 'dailyCreditLimit: 1, maxConcurrentRequests: 1');
    const a = admission();
    await a.charge(agent, 0.1);
    const held = await a.admit(agent, bound(0.4));
    expect(held.reservedCredits).to.equal(0.4);
    const lease = await h().db('run_slots').where({ id: held.slotId }).first();
    expect(lease.workspace_id).to.equal(agent.workspaceId);
    expect(await reserved({ agentId: agent.id })).to.equal(0.4);
    // Refused by concurrency after the credit check: its reservation goes back to the slice.
    expect((await refusal(a.admit(agent, bound(0.4)))).reason).to.equal('concurrency_limit');
    // The run failed without a cost: settle(0) frees the reservation and charges nothing; once the
    // slice gives back what no run holds, nothing is reserved and no lease is left.
    await held.settle(0);
    await a.close();
    expect(await reserved({ agentId: agent.id })).to.equal(0);
    expect(await h().db('run_slots').where({ agent_id: agent.id })).to.deep.equal([]);
    expect(await repos().usage.listByAgent(agent.id, '2026-07-02')).to.deep.equal([
      { agentId: agent.id, day: '2026-07-02', credits: 0.1, runs: 1 },
    ]);
    // Ending a run twice charges once.
    const again = await a.admit(agent, bound(0.4));
    await again.settle(0.3);
    await again.settle(0.3);
    await again.release();
    await a.close();
    expect(await charged(agent.id)).to.be.closeTo(0.4, 1e-9);
    expect(await reserved({ agentId: agent.id })).to.equal(0);
  });

  it("a team's and a workspace's limits count the reservations of all their agents", async () => {
    clock.set('2026-07-03T18:00:00Z');
    const ws = await newWorkspace();
    const team = (await gqlOk(ws.adminToken, `mutation { createTeam(name: "Burst", dailyCreditLimit: 1) { id } }`))
      .createTeam.id;
    await gqlOk(ws.adminToken, `mutation { setWorkspaceLimits(dailyCreditLimit: 1.5) { id } }`);
    const [m1, m2] = [
      await loadAgent(await createAgent(ws.adminToken, { teamId: team })),
      await loadAgent(await createAgent(ws.adminToken, { teamId: team })),
    ];
    const solo = await loadAgent(await createAgent(ws.adminToken));
    const a = admission();
    const r1 = await a.admit(m1, bound(0.5));
    const r2 = await a.admit(m2, bound(0.5));
    expect(await reserved({ teamId: team })).to.equal(1);
    const teamErr = await refusal(a.admit(m1, bound(0.5)));
    expect(teamErr.reason).to.equal('team_credit_limit');
    expect(teamErr.retryAfterSeconds).to.equal(7);
    expect(teamErr.message).to.equal("The team's daily credit limit of 1 is held by runs in flight; retry shortly");
    const r3 = await a.admit(solo, bound(0.5)); // the workspace: 1 of 1.5 held before it
    const wsErr = await refusal(a.admit(solo, bound(0.5)));
    expect(wsErr.reason).to.equal('workspace_credit_limit');
    expect(wsErr.message).to.equal(
      "The workspace's daily credit limit of 1.5 is held by runs in flight; retry shortly",
    );
    // The team: 0.5 held + 0.1 charged. m2's slice keeps the 0.4 its run did not use until a grant
    // for m1 finds the team's limit held: then it gives it back, and m1 is admitted.
    await r2.settle(0.1);
    await (await a.admit(m1, bound(0.3))).release();
    for (const r of [r1, r3]) await r.release();
    await a.close();
    expect(await reserved({ workspaceId: ws.workspaceId })).to.equal(0);
    expect(await repos().usage.teamDay(team, '2026-07-03')).to.be.closeTo(0.1, 1e-9);
  });

  it('without a known bound a run reserves the largest run the agent was charged for in the last 7 days; with none it runs alone', async () => {
    clock.set('2026-07-10T09:00:00Z');
    const agent = await limitedAgent(await newWorkspace(), 'dailyCreditLimit: 1');
    const a = admission();
    // Never charged: a probe, alone in flight, holding nothing against the limits of the others.
    const probe = await a.admit(agent, bound(null));
    expect(probe.reservedCredits).to.equal(0);
    expect(probe.slotId).to.match(/^slot_/);
    const err = await refusal(a.admit(agent, bound(null)));
    expect(err.reason).to.equal('concurrency_limit');
    expect(err.retryAfterSeconds).to.equal(7);
    expect(err.message).to.match(/cost per run is not known yet/);
    await probe.settle(0.2);

    // The largest run charged (0.2, then 0.3) is the estimate.
    const { admitted } = await burst(a, agent, 10, null);
    expect(admitted.map((s) => s.reservedCredits)).to.deep.equal([0.2, 0.2, 0.2, 0.2]); // 0.2 charged + 4 × 0.2 = 1
    await admitted[0]!.settle(0.3);
    for (const s of admitted.slice(1)) await s.release();
    clock.set('2026-07-16T23:59:59Z'); // 6 days later: the runs of the 10th still count
    const estimated = await a.admit(agent, bound(null));
    expect(estimated.reservedCredits).to.equal(0.3);
    await estimated.release();
    clock.set('2026-07-17T00:00:00Z'); // 7 days later: no run in the window, a probe again
    const again = await a.admit(agent, bound(null));
    expect(again.reservedCredits).to.equal(0);
    expect((await refusal(a.admit(agent, bound(null)))).reason).to.equal('concurrency_limit');
    await again.release();
    // A known bound of 0 (an unpriced model, a free script) reserves nothing and takes no lease.
    const free = await a.admit(agent, bound(0));
    expect(free).to.deep.include({ slotId: null, reservedCredits: 0 });
    await free.settle(0);
  });

  it('an agent under no credit limit reserves nothing, whatever its runs may cost', async () => {
    clock.set('2026-07-11T09:00:00Z');
    const ws = await newWorkspace();
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const s = await admission().admit(agent, bound(5));
    expect(s).to.deep.include({ slotId: null, reservedCredits: 0 });
    await s.settle(5);
    expect(await charged(agent.id)).to.equal(5);
  });

  it("a crashed instance's reservation stops counting when its lease expires; a held one is renewed", async () => {
    clock.set('2026-07-12T08:00:00Z');
    const agent = await limitedAgent(await newWorkspace(), 'dailyCreditLimit: 1');
    await repos().slots.insert({
      id: newId('slot'),
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      teamId: null,
      instanceId: 'crashed',
      reservedCredits: 1,
      expiresAt: new Date('2026-07-12T08:00:10Z'),
    });
    const a = admission(150); // renewed every 50 ms of real time
    expect((await refusal(a.admit(agent, bound(0.5)))).retryAfterSeconds).to.equal(7);
    clock.set('2026-07-12T08:00:10.001Z');
    const held = await a.admit(agent, bound(0.5));
    try {
      clock.set('2026-07-12T09:00:00Z'); // an hour later: without renewal this reservation is long gone
      await until('the reservation to be renewed', async () => (await reserved({ agentId: agent.id })) === 0.5);
      const second = await a.admit(agent, bound(0.5)); // 0.5 held < 1
      expect((await refusal(a.admit(agent, bound(0.5)))).reason).to.equal('daily_credit_limit'); // 1 held
      await second.release();
    } finally {
      await held.release();
    }
  });
});

describe('what a run can cost, as the pipeline reserves it', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  before(async () => {
    fake = await startOpenAiServer();
  });
  after(async () => fake.close());

  const entry = (handler: RunEntry['handler'], modelOverride: string | null = null): RunEntry => ({
    kind: 'http',
    id: null,
    name: 'x',
    handler,
    modelOverride,
  });
  const boundOf = async (agent: Agent, e: RunEntry) => runCreditBound(agent, e)(h().service.store.repos);

  it("a script run: the workspace's scriptRunCredits; a prompt run: 0 on an unpriced model, else maxCreditsPerRun or unknown", async () => {
    const ws = await newWorkspace();
    await gqlOk(
      ws.adminToken,
      'mutation { updateWorkspaceSettings(input: {creditDefaults: {scriptRunCredits: 0.75}}) { id } }',
    );
    await configureFakeModel(ws.adminToken, fake, { input: 1, output: 0 }, 'priced');
    await configureFakeModel(ws.adminToken, fake, { input: 0, output: 0 }, 'free');
    const id = await createAgent(ws.adminToken, { defaultModel: 'priced' });
    let agent = await loadAgent(id);
    expect(await boundOf(agent, entry({ kind: 'script', body: 'return 1' }))).to.equal(0.75);
    expect(await boundOf(agent, entry({ kind: 'prompt', body: 'hi' }))).to.equal(null);
    expect(await boundOf(agent, entry({ kind: 'prompt', body: 'hi' }, 'free'))).to.equal(0);
    expect(await boundOf(agent, entry({ kind: 'prompt', body: 'hi' }, 'gpt-from-the-environment'))).to.equal(0);
    await gqlOk(
      ws.adminToken,
      'mutation($id: ID!) { setGuardrails(agentId: $id, input: {maxCreditsPerRun: 0.5}) { id } }',
      { id },
    );
    agent = await loadAgent(id);
    expect(await boundOf(agent, entry({ kind: 'prompt', body: 'hi' }))).to.equal(0.5);
    expect(await boundOf(agent, entry({ kind: 'prompt', body: 'hi' }, 'free'))).to.equal(0);
    // No model at all: the run fails before it costs anything.
    const bare = await loadAgent(await createAgent(ws.adminToken));
    expect(await boundOf(bare, entry({ kind: 'prompt', body: 'hi' }))).to.equal(0);
  });
});

describe('admission across processes sharing one PostgreSQL', function () {
  this.timeout(120_000);
  let fake: FakeOpenAi;
  let gate: ModelGate;
  let ws: TestWorkspace;

  before(async function () {
    if (!h().onPostgres) {
      console.log('      (skipped: needs TEST_DATABASE_URL — the embedded database serves one process)');
      this.skip();
    }
    fake = await startOpenAiServer();
    gate = await startModelGate(fake);
    ws = await newWorkspace();
    await configureFakeModel(ws.adminToken, { url: gate.url } as FakeOpenAi);
  });
  after(async () => {
    gate?.open();
    await gate?.close();
    await fake?.close();
  });

  function worker(env: Record<string, string>): {
    lines: Promise<any[]>;
    kill: () => void;
    firstLine: Promise<any>;
    seen: () => any[];
  } {
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
        resolve(
          out.trim()
            ? out
                .trim()
                .split('\n')
                .map((l) => JSON.parse(l))
            : [],
        );
      }),
    );
    /** The complete lines printed so far. */
    const seen = () =>
      out
        .split('\n')
        .slice(0, -1)
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    return { lines, firstLine, kill: () => child.kill('SIGKILL'), seen };
  }

  /** A PostgreSQL session of the test's own. */
  async function session(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await c.connect();
    return c;
  }

  it('two instances under a burst of 10N slow calls never run more than N at once; the rest get 429 concurrency_limit', async () => {
    const N = 3;
    const total = 10 * N;
    const id = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
    await gqlOk(
      ws.adminToken,
      `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: ${N}) { id } }`,
      { id },
    );
    fake.reset();
    for (let i = 0; i < total; i++) fake.enqueue({ text: 'slow answer' });
    // The admitted model calls wait at the gate, which opens only once every call is decided: no
    // slot frees during the burst, so exactly N are admitted however the two processes and their
    // statements interleave (the slot numbers are unique per agent: no lock orders them).
    gate.shut();
    const common = { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL!, AGENT_ID: id };
    const [a, b] = [worker({ ...common, CALLS: String(total / 2) }), worker({ ...common, CALLS: String(total / 2) })];
    try {
      await until(
        'every call decided: held at the gate or refused',
        async () => gate.held() + a.seen().length + b.seen().length === total,
      );
      expect(gate.held()).to.equal(N);
    } finally {
      gate.open();
    }
    const results = [...(await a.lines), ...(await b.lines)];
    expect(results).to.have.length(total);
    const ok = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok);
    expect(results.filter((r) => r.crash)).to.deep.equal([]);
    expect(ok.length).to.equal(N);
    expect(ok.every((r) => r.error === null)).to.equal(true);
    expect(refused.length).to.equal(total - N);
    for (const r of refused) expect(r).to.deep.equal({ ok: false, reason: 'concurrency_limit', retryAfter: 1 });

    // Overlap measured from the model calls themselves (start/end as the upstream server saw them).
    const spans = fake.requests.map((r) => [r.receivedAt, r.endedAt ?? Date.now()] as const);
    let maxOverlap = 0;
    for (const [start] of spans)
      maxOverlap = Math.max(maxOverlap, spans.filter(([s, e]) => s <= start && start < e).length);
    expect(spans.length).to.equal(ok.length);
    expect(maxOverlap).to.be.at.most(N);
    expect(gate.maxInFlight()).to.equal(N);
    // Every lease was given back.
    expect(await h().db('run_slots').where({ agent_id: id }).andWhere('expires_at', '>', new Date())).to.deep.equal([]);
  });

  it('two instances sharing a daily budget that runs out mid-burst: charges stay within the limit plus one run per instance, and are exact', async () => {
    // Script runs cost exactly what they reserve: the workspace's scriptRunCredits.
    const RUN = 0.01;
    const fresh = await newWorkspace();
    await gqlOk(
      fresh.adminToken,
      `mutation { updateWorkspaceSettings(input: {creditDefaults: {scriptRunCredits: ${RUN}}}) { id } }`,
    );
    const id = await createAgent(fresh.adminToken);
    const limit = 30 * RUN;
    await gqlOk(
      fresh.adminToken,
      `mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: ${limit}) { id } }`,
      { id },
    );
    const common = { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL!, AGENT_ID: id, MODE: 'script', CALLS: '100' };
    const [a, b] = [worker(common), worker(common)];
    const results = [...(await a.lines), ...(await b.lines)];
    expect(results.filter((r) => r.crash)).to.deep.equal([]);
    const ok = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok);
    expect(ok.every((r) => r.error === null)).to.equal(true);
    // The budget ran out during the burst: some calls ran, the others were refused by the limit.
    expect(ok.length).to.be.within(1, 30 + 2);
    expect(refused.length).to.equal(200 - ok.length);
    for (const r of refused) expect(r.reason).to.equal('daily_credit_limit');
    // Both instances stored every charge and gave back every slice when they stopped.
    const day = utcDay(new Date());
    const usage = await h().service.store.repos.usage.listByAgent(id, day);
    expect(usage).to.deep.equal([
      { agentId: id, day, credits: Math.round(ok.length * RUN * 1e6) / 1e6, runs: ok.length },
    ]);
    expect(usage[0]!.credits).to.be.at.most(limit + 2 * RUN + 1e-9);
    expect(await h().service.store.repos.slots.reserved({ agentId: id }, new Date())).to.equal(0);
    expect(await h().db('run_slots').where({ agent_id: id })).to.deep.equal([]);
  });

  it("a killed instance's slot is free again once its lease expires", async () => {
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, `mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 1) { id } }`, {
      id,
    });
    const appName = `admission-holder-${id}`;
    const holder = worker({
      TEST_DATABASE_URL: process.env.TEST_DATABASE_URL!,
      AGENT_ID: id,
      MODE: 'hold',
      LEASE_MS: '1500',
      PGAPPNAME: appName,
    });
    expect(await holder.firstLine).to.deep.equal({ admitted: true });
    const agent = await loadAgent(id);
    /** The expiry of the agent's one slot, as the database holds it. */
    const expiry = async () => {
      const rows = await h().db('run_slots').where({ agent_id: id }).select('instance_id', 'expires_at');
      expect(rows.map((r: { instance_id: string }) => r.instance_id)).to.have.length(1);
      return new Date(rows[0].expires_at).getTime();
    };
    // Lease expiry is judged by the admitting instance's clock: this one is moved by the test.
    const clock = new MovableClock(new Date());
    const admission = new AdmissionService(h().service.store, clock, {
      instanceId: 'test',
      leaseMs: 30_000,
      concurrencyRetryAfterSeconds: 1,
    });

    // The holder renews its lease while alive: the expiry moves on, and the slot still counts after
    // the first lease ran out.
    const first = await expiry();
    await until('the holder renewed its lease', async () => (await expiry()) > first);
    clock.t = new Date(first + 1);
    expect((await refusal(admission.admit(agent))).reason).to.equal('concurrency_limit');

    // Once the killed holder's sessions are gone, no renewal of it can still reach the table.
    const c = await session();
    try {
      const sessions = async () =>
        (await c.query('select count(*)::int as n from pg_stat_activity where application_name = $1', [appName]))
          .rows[0].n as number;
      expect(await sessions()).to.be.at.least(1);
      holder.kill();
      await holder.lines;
      await until('the killed holder’s sessions ended', async () => (await sessions()) === 0);
    } finally {
      await c.end();
    }
    // Killing the holder released nothing: its slot counts until the lease's end, and no longer.
    const last = await expiry();
    clock.t = new Date(last - 1);
    expect((await refusal(admission.admit(agent))).reason).to.equal('concurrency_limit');
    clock.t = new Date(last);
    await (await admission.admit(agent)).release();
  });
});
