import { expect } from 'chai';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { call } from '../helpers/surface-calls.js';
import { until } from '../helpers/until.js';

// A delivery shows what its latest run did (output, error, credits: from that run's activity
// entry) and, while it waits for a retry, when it runs next.

const DELIVERIES = `query($a: ID!, $i: String) { webhookDeliveries(agentId: $a, integration: $i, first: 5) {
  nodes { id status attempts failures nextAttemptAt run { runId output error credits } } } }`;

describe('GraphQL: a webhook delivery shows its run and its next attempt', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agent: string;

  beforeEach(async () => {
    ws = await newWorkspace();
    agent = await createAgent(ws.adminToken);
  });

  async function addAndSend(integration: string, script: string) {
    await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { integration, handler: { script } },
    });
    const r = await call('POST', `/agents/${agent}/webhook/${integration}`, { json: { orderId: 42 } });
    expect(r.status, r.text).to.equal(200);
  }

  const deliveries = async (integration: string) => {
    await h().service.services.activityLog.flush();
    return (await gqlOk(ws.adminToken, DELIVERIES, { a: agent, i: integration })).webhookDeliveries.nodes as any[];
  };

  it("a done delivery: run holds the handler's output and credits, nextAttemptAt is null", async () => {
    await addAndSend('ok', 'return { seen: input.orderId };');
    const [d] = await until('the delivery is done and its run logged', async () => {
      const list = await deliveries('ok');
      return list[0]?.status === 'DONE' && list[0].run ? list : undefined;
    });
    expect(d.run).to.deep.include({ output: { seen: 42 }, error: null });
    expect(d.run.runId).to.match(/^run_/);
    expect(d.run.credits).to.be.a('number');
    expect(d.nextAttemptAt).to.equal(null);
  });

  it('a failed attempt waiting for its retry: run holds the error, nextAttemptAt is in the future', async () => {
    await addAndSend('broken', 'throw new Error("no such order");');
    const [d] = await until('the first attempt has failed and its run is logged', async () => {
      const list = await deliveries('broken');
      return list[0]?.failures === 1 && list[0].status === 'PENDING' && list[0].run ? list : undefined;
    });
    expect(d.run.output).to.equal(null);
    expect(d.run.error).to.contain('no such order');
    expect(new Date(d.nextAttemptAt).getTime()).to.be.greaterThan(Date.now());
  });
});
