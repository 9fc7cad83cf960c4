import { expect } from 'chai';
import { AdmissionService } from '../../src/domain/admission/admission.service.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { LimitExceeded } from '../../src/domain/errors.js';
import type { Store } from '../../src/domain/ports.js';
import { createAgent, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { loadAgent } from '../helpers/runtime.js';

// A daily limit found used up stays used up until midnight UTC (charges only add up), so later
// requests are refused from memory: a flood of refused calls costs no statement (decisions §23).

/**
 * The real store, except that every statement admission could make — a transaction, a usage read,
 * a lease — fails and is recorded. Team and workspace reads (served from the cache) still work.
 */
function statementFree(store: Store): { store: Store; tried: string[] } {
  const tried: string[] = [];
  const refuse = (what: string) => () => {
    tried.push(what);
    return Promise.reject(new Error(`no statement expected: ${what}`));
  };
  const repos = {
    ...store.repos,
    usage: new Proxy(store.repos.usage, { get: (_t, k) => refuse(`usage.${String(k)}`) }),
    slots: new Proxy(store.repos.slots, { get: (_t, k) => refuse(`slots.${String(k)}`) }),
  };
  return { store: { ...store, repos, transaction: refuse('transaction') as Store['transaction'] }, tried };
}

async function refusal(p: Promise<unknown>): Promise<LimitExceeded> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err, String(err)).to.be.instanceOf(LimitExceeded);
  return err as LimitExceeded;
}

describe('admission: a used-up daily limit is refused from memory until midnight UTC', function () {
  this.timeout(60_000);
  const config = { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 };

  /** One AdmissionService: first over the real store (to find the limit used up), then without statements. */
  function admissionPair(clock: MovableClock) {
    const real = h().service.store;
    const { store, tried } = statementFree(real);
    const a = new AdmissionService(real, clock, config);
    // The memo lives in the service: swap the store it talks to, keep the service.
    const swap = () => Object.assign(a as unknown as { store: Store }, { store });
    return { a, swap, tried };
  }

  it("the agent's own limit: refused with its reason, words and Retry-After, without a statement, by a memo that ends at midnight", async () => {
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }', {
      id,
    });
    const agent = await loadAgent(id);
    const clock = new MovableClock(new Date('2026-09-01T22:00:00Z'));
    const { a, swap, tried } = admissionPair(clock);
    await a.charge(agent, 1);
    const first = await refusal(a.admit(agent)); // found used up in the database
    swap();
    clock.set('2026-09-01T23:59:00Z');
    const again = await refusal(a.admit(agent));
    expect([again.reason, again.message, again.retryAfterSeconds]).to.deep.equal([
      'daily_credit_limit',
      first.message,
      60,
    ]);
    expect(first.message).to.equal('This agent used its daily credit limit of 1; it resets at 00:00 UTC');
    expect(tried).to.deep.equal([]);
    // At midnight the memo is over: admission asks the database again.
    clock.set('2026-09-02T00:00:00Z');
    const next = await a.admit(agent).then(
      () => null,
      (e: Error) => e,
    );
    expect(next).to.not.be.instanceOf(LimitExceeded);
    expect(tried).to.deep.equal(['transaction']);
  });

  it('a changed limit is another limit: raised, the agent is admitted again at once', async () => {
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }', {
      id,
    });
    const clock = new MovableClock(new Date('2026-09-03T10:00:00Z'));
    const a = new AdmissionService(h().service.store, clock, config);
    const agent = await loadAgent(id);
    await a.charge(agent, 1);
    await refusal(a.admit(agent));
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 2) { id } }', {
      id,
    });
    await (await a.admit(await loadAgent(id))).release();
    // Lowered back to the used-up amount: refused again.
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, dailyCreditLimit: 1) { id } }', {
      id,
    });
    expect((await refusal(a.admit(await loadAgent(id)))).reason).to.equal('daily_credit_limit');
  });

  it("a team's and a workspace's used-up limits are remembered for each of their agents, side by side", async () => {
    const ws = await newWorkspace();
    const team = (await gqlOk(ws.adminToken, 'mutation { createTeam(name: "Support", dailyCreditLimit: 1) { id } }'))
      .createTeam.id as string;
    const member = await loadAgent(await createAgent(ws.adminToken, { teamId: team }));
    const colleague = await loadAgent(await createAgent(ws.adminToken, { teamId: team }));
    const other = await newWorkspace();
    await gqlOk(other.adminToken, 'mutation { setWorkspaceLimits(dailyCreditLimit: 2) { id } }');
    const solo = await loadAgent(await createAgent(other.adminToken));
    const clock = new MovableClock(new Date('2026-09-04T12:00:00Z'));
    const { a, swap, tried } = admissionPair(clock);
    await a.charge(member, 1);
    await a.charge(solo, 2);
    const teamFirst = await refusal(a.admit(member));
    const wsFirst = await refusal(a.admit(solo));
    swap();
    const seen = async (agent: Agent) => {
      const e = await refusal(a.admit(agent));
      return [e.reason, e.message, e.retryAfterSeconds];
    };
    expect(await seen(colleague)).to.deep.equal(['team_credit_limit', teamFirst.message, 12 * 3600]);
    expect(await seen(member)).to.deep.equal([
      'team_credit_limit',
      "The team's daily credit limit of 1 is used up; it resets at 00:00 UTC",
      12 * 3600,
    ]);
    expect(await seen(solo)).to.deep.equal(['workspace_credit_limit', wsFirst.message, 12 * 3600]);
    expect(wsFirst.message).to.equal("The workspace's daily credit limit of 2 is used up; it resets at 00:00 UTC");
    expect(tried).to.deep.equal([]);
  });
});

describe('admission: a concurrency limit this instance fills itself is refused from memory', function () {
  this.timeout(60_000);
  const config = { instanceId: 'test', leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 };

  it('refuses without a statement while its own leases reach the limit, and asks the database again once one ends', async () => {
    const ws = await newWorkspace();
    const id = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { setAgentLimits(agentId: $id, maxConcurrentRequests: 2) { id } }', {
      id,
    });
    const agent = await loadAgent(id);
    const real = h().service.store;
    const { store: free, tried } = statementFree(real);
    // The store every part of admission uses, switched between the real one and the statement-free one.
    let current = real;
    const store: Store = {
      get repos() {
        return current.repos;
      },
      transaction: (work) => current.transaction(work),
    } as Store;
    const a = new AdmissionService(store, new MovableClock(new Date()), config);
    const held = [await a.admit(agent), await a.admit(agent)];
    current = free;
    const full = await refusal(a.admit(agent));
    expect([full.reason, full.message]).to.deep.equal([
      'concurrency_limit',
      'This agent is already handling 2 requests, its limit; retry shortly',
    ]);
    expect(tried).to.deep.equal([]);
    // One run ends: its lease stays with this instance, and the next run takes it without a statement.
    await held[0]!.release();
    const next = await a.admit(agent);
    expect(next.slotId).to.equal(held[0]!.slotId);
    expect(tried).to.deep.equal([]);
    // Once the idle leases went back, the next admission asks the database again.
    current = real;
    await next.release();
    await a.close();
    current = free;
    await a.admit(agent).then(
      () => null,
      (e: Error) => e,
    );
    expect(tried).to.deep.equal(['slots.acquire']);
    current = real;
    await held[1]!.release();
  });
});
