import { expect } from 'chai';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent } from '../helpers/runtime.js';
import { activityOf, addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';

// DESIGN §6 and docs/decisions.md §12: everything that can refuse a request without running it
// (endpoint, body, input guardrails) answers before admission. So an agent at its limit still says
// 404 or 400 where that is due, and a refused request never takes a concurrency slot.

describe('HTTP API: refusals come before admission', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;

  before(async () => {
    ws = await newWorkspace();
  });

  /** An agent with a script endpoint `echo` and a blocked-input guardrail, and its key. */
  async function guardedAgent(limits: string): Promise<{ agent: string; key: string }> {
    const agent = await createAgent(ws.adminToken);
    await addHttpEndpoint(ws.adminToken, agent, { path: 'echo', handler: { script: 'return input;' } });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["forbidden"] }) { id } }',
      { a: agent },
    );
    await gqlOk(ws.adminToken, `mutation($a: ID!) { setAgentLimits(agentId: $a, ${limits}) { id } }`, { a: agent });
    return { agent, key: await createAgentKey(ws.adminToken, agent) };
  }

  // Leases in use by runs (a lease kept for the agent's next run is not one).
  const activeSlots = async (agentId: string) => h().service.services.admission.leasesHeld(agentId);

  it('an agent at its daily credit limit: blocked input 400, unknown endpoint 404, malformed body 400 — only a valid request gets 429', async () => {
    const { agent, key } = await guardedAgent('dailyCreditLimit: 1');
    await h().service.services.admission.charge(await loadAgent(agent), 1);

    const blocked = await call('POST', httpApiPath(agent, 'echo'), { key, json: { text: 'something forbidden' } });
    expect(blocked.status, blocked.text).to.equal(400);
    expect(blocked.json.error).to.match(/guardrails/);
    expect((await call('POST', httpApiPath(agent, 'nowhere'), { key, json: {} })).status).to.equal(404);
    expect((await call('POST', httpApiPath(agent, 'echo'), { key, raw: '{"text":' })).status).to.equal(400);

    const valid = await call('POST', httpApiPath(agent, 'echo'), { key, json: { text: 'fine' } });
    expect(valid.status, valid.text).to.equal(429);
    expect(valid.json.reason).to.equal('daily_credit_limit');

    const statuses = (await activityOf(ws.adminToken, agent)).map((e) => e.status);
    expect(statuses).to.deep.equal([429, 400, 404, 400]);
  });

  it('an agent whose one concurrency slot is held: blocked input is 400 and takes no slot; a valid request is 429', async () => {
    const { agent, key } = await guardedAgent('maxConcurrentRequests: 1');
    const held = await h().service.services.admission.admit(await loadAgent(agent));
    try {
      expect(await activeSlots(agent)).to.equal(1);
      const blocked = await call('POST', httpApiPath(agent, 'echo'), { key, json: { text: 'forbidden' } });
      expect(blocked.status, blocked.text).to.equal(400);
      expect(await activeSlots(agent)).to.equal(1);

      const valid = await call('POST', httpApiPath(agent, 'echo'), { key, json: { text: 'fine' } });
      expect(valid.status, valid.text).to.equal(429);
      expect(valid.json.reason).to.equal('concurrency_limit');
    } finally {
      await held.release();
    }
    const ok = await call('POST', httpApiPath(agent, 'echo'), { key, json: { text: 'fine' } });
    expect(ok.status, ok.text).to.equal(200);
    expect(await activeSlots(agent)).to.equal(0);
  });

  it('a refused input never reaches admission: with a free slot, the refusal leaves the slot table untouched', async () => {
    const { agent, key } = await guardedAgent('maxConcurrentRequests: 1');
    const admission = h().service.services.admission;
    const admit = admission.admit.bind(admission);
    let admitted = 0;
    admission.admit = async (a) => {
      if (a.id === agent) admitted++;
      return admit(a);
    };
    try {
      expect((await call('POST', httpApiPath(agent, 'echo'), { key, json: 'forbidden' })).status).to.equal(400);
      expect(admitted).to.equal(0);
      expect((await call('POST', httpApiPath(agent, 'echo'), { key, json: 'fine' })).status).to.equal(200);
      expect(admitted).to.equal(1);
    } finally {
      admission.admit = admit;
    }
  });
});
