import { expect } from 'chai';
import { startE2eService, type E2eService, type InProcessService } from '../helpers/surface-service.js';

// `notifications/cancelled` on the stateless MCP server arrives as a POST of its own, which a load
// balancer may send to any instance. It stops the call it names (same agent, same key, same
// JSON-RPC id) wherever that call runs: on the instance it reaches, or on another one through the
// database's notification channel. The call ends cancelled, its activity entry says so, and its
// concurrency slot is free for the next call at once. A cancel sent with another key stops nothing.
// The same-instance cases run on either database; a second instance needs PostgreSQL (an embedded
// database belongs to one process).

const ADMIN_TOKEN = 'mcp-cancel-admin-token-0123456789';
/** A cancelled call ends within this long; one left running would take 10 s more (generous for a busy machine). */
const WITHIN_MS = 7_000;
const LONG_ANSWER = { text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 300 };

describe('e2e: MCP cancellation on any instance', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let other: InProcessService | undefined;
  let agent: string;
  let key: string;
  let otherKey: string;

  before(async () => {
    svc = await startE2eService('mcp_cancel', { adminToken: ADMIN_TOKEN });
    if (process.env.TEST_DATABASE_URL) other = await svc.another();
    agent = (await svc.gql('mutation { createAgent(input: { name: "Canceller", defaultModel: "fake-model" }) { id } }'))
      .createAgent.id;
    const newKey = async (name: string) =>
      (
        await svc.gql('mutation($a: ID!, $n: String!) { createAgentApiKey(agentId: $a, name: $n) { key } }', {
          a: agent,
          n: name,
        })
      ).createAgentApiKey.key as string;
    [key, otherKey] = [await newKey('caller'), await newKey('someone else')];
    await svc.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { name: 'ask', description: 'Answers', handler: { prompt: 'Answer.' } },
    });
    await svc.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { name: 'ping', description: 'Pong', handler: { script: 'return "pong";' } },
    });
    // One call at a time: a slot the cancelled call kept would refuse the next call with 429.
    await svc.gql('mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 1) { id } }', { a: agent });
  });

  after(async () => {
    await svc?.stop();
  });

  function post(on: InProcessService, accessKey: string, message: unknown): Promise<Response> {
    return fetch(`${on.url}/agents/${agent}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'x-agent-access-key': accessKey,
      },
      body: JSON.stringify(message),
    });
  }

  const cancelOf = (requestId: string | number) => ({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, reason: 'stop' },
  });

  /** Starts a prompt call on `on` and resolves once the model is answering it (with the answer still to come). */
  async function startCall(
    on: InProcessService,
    id: string | number,
    question: string,
  ): Promise<{ answer: Promise<string> }> {
    // Leases are per instance: the previous scenario's must be back before another instance runs.
    await slotFree(2_000);
    const answer = post(on, key, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'ask', arguments: { input: question }, _meta: { progressToken: `p-${id}` } },
    }).then((r) => r.text());
    const deadline = Date.now() + 10_000;
    while (!svc.fake.requests.some((r) => JSON.stringify(r.body).includes(question))) {
      if (Date.now() > deadline) throw new Error(`the call never reached the model: ${await answer}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return { answer };
  }

  async function entryOf(loggedBy: InProcessService, question: string): Promise<any> {
    await loggedBy.service.services.activityLog.flush();
    const d = await svc.gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 50) { nodes { entry requestBody error } } } }',
      { a: agent },
    );
    return d.agent.activity.nodes.find((e: any) => JSON.stringify(e.requestBody).includes(question));
  }

  /**
   * No instance holds a lease of the agent: a run gives its lease back at the end of the exchange
   * (just after the stream's last byte), and the instance keeps it idle 100 ms for its next run.
   */
  async function slotFree(withinMs = 500): Promise<void> {
    const deadline = Date.now() + withinMs;
    while ((await svc.service.store.repos.slots.countActive(agent, new Date())) > 0) {
      if (Date.now() > deadline) throw new Error('the cancelled call kept its slot');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** A call that needs the one slot is admitted. */
  async function nextCallAdmitted(on: InProcessService): Promise<void> {
    const r = await post(on, key, {
      jsonrpc: '2.0',
      id: 'next',
      method: 'tools/call',
      params: { name: 'ping', arguments: { input: 'x' } },
    });
    expect(r.status, 'the next call is admitted').to.equal(200);
    expect(await r.text()).to.include('pong');
  }

  /** Sends the cancel to `cancelOn` and checks the call on the other end stopped, was logged cancelled and gave its slot back. */
  async function cancelStops(
    runOn: InProcessService,
    cancelOn: InProcessService,
    id: string | number,
    question: string,
  ): Promise<void> {
    svc.fake.enqueue(LONG_ANSWER);
    const { answer } = await startCall(runOn, id, question);
    const sent = Date.now();
    const cancel = await post(cancelOn, key, cancelOf(id));
    expect(cancel.status).to.equal(202);
    const text = await answer;
    expect(Date.now() - sent, 'the call ended soon after the cancel').to.be.below(WITHIN_MS);
    expect(text).to.include('cancelled');
    expect(text).to.not.include('word39');
    expect((await entryOf(runOn, question))?.error).to.match(/cancelled/);
    await slotFree();
    await nextCallAdmitted(runOn);
    await svc.fake.idle();
  }

  /** A cancel with another key is accepted (a notification has no answer) and stops nothing. */
  async function otherKeyStopsNothing(
    runOn: InProcessService,
    cancelOn: InProcessService,
    id: string | number,
    question: string,
  ): Promise<void> {
    svc.fake.enqueue({ text: 'one two three four five six', chunkDelayMs: 250 });
    const { answer } = await startCall(runOn, id, question);
    expect((await post(cancelOn, otherKey, cancelOf(id))).status).to.equal(202);
    const text = await answer;
    expect(text).to.include('one two three four five six');
    expect(text).to.not.include('cancelled');
    expect((await entryOf(runOn, question))?.error ?? null).to.equal(null);
    await svc.fake.idle();
  }

  it('a cancel sent to the instance running the call stops it and frees its slot', async () => {
    await cancelStops(svc, svc, 'same-1', 'same instance please');
  });

  it('a cancel with another key on the same instance does not stop the call', async () => {
    await otherKeyStopsNothing(svc, svc, 'same-2', 'not yours here');
  });

  it('a cancel sent to instance B stops the call running on instance A and frees its slot (PostgreSQL)', async function () {
    if (!other) this.skip();
    await cancelStops(svc, other, 'far-1', 'far away please');
    // A numeric id too, and the other way round.
    await cancelStops(other, svc, 42, 'the other way round');
  });

  it('a cancel with another key on instance B does not stop the call on instance A (PostgreSQL)', async function () {
    if (!other) this.skip();
    await otherKeyStopsNothing(svc, other, 'far-2', 'not yours there');
  });

  it('a cancel naming a call that runs nowhere is accepted and stops nothing', async () => {
    expect((await post(other ?? svc, key, cancelOf('nothing-runs'))).status).to.equal(202);
    expect((await post(other ?? svc, key, cancelOf('x'.repeat(500)))).status).to.equal(202);
    await nextCallAdmitted(svc);
  });
});
