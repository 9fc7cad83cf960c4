import { expect } from 'chai';
import { startE2eService, type E2eService, type InProcessService } from '../helpers/surface-service.js';

// Agents, keys, entries and limits are kept in memory on the hot path. A change made through one
// instance is seen by that instance at once, and by every other instance of the same database
// within a second (PostgreSQL change notifications). One instance runs on either database; the
// second one needs PostgreSQL (an embedded database belongs to one process).

const ADMIN_TOKEN = 'cache-two-admin-token-0123456789';
/** How long another instance may take to see a change (the promise is one second). */
const WITHIN_MS = 1_000;

describe('e2e: cached agents, keys and entries follow every change', function () {
  this.timeout(180_000);
  let svc: E2eService | undefined;
  let instances: InProcessService[] = [];
  const gql = (query: string, variables?: Record<string, unknown>) => svc!.gql(query, variables);

  before(async () => {
    svc = await startE2eService('cache_two', { adminToken: ADMIN_TOKEN });
    instances = [svc];
    if (process.env.TEST_DATABASE_URL) instances.push(await svc.another());
  });

  after(async () => {
    await svc?.stop();
    instances = [];
  });

  async function agentWithKey(): Promise<{ id: string; key: string; keyId: string }> {
    const id = (await gql('mutation { createAgent(input: { name: "Cached" }) { id } }')).createAgent.id as string;
    const k = (
      await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key apiKey { id } } }', { a: id })
    ).createAgentApiKey;
    await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: id,
      i: { path: 'sum', handler: { script: 'return { sum: input.a + input.b };' } },
    });
    return { id, key: k.key, keyId: k.apiKey.id };
  }

  const sum = async (on: InProcessService, a: { id: string; key: string }) => {
    const r = await fetch(`${on.url}/agents/${a.id}/api/sum`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': a.key },
      body: '{"a":2,"b":40}',
    });
    return { status: r.status, body: (await r.json()) as any };
  };

  /** Every instance answered `status` once all have warmed their cache with a first answer. */
  async function seenEverywhere(
    a: { id: string; key: string },
    status: number,
    change: () => Promise<unknown>,
  ): Promise<number[]> {
    for (const i of instances) expect((await sum(i, a)).status, 'before the change').to.equal(200);
    for (const i of instances) expect((await sum(i, a)).status, 'before the change, from the cache').to.equal(200);
    await change();
    // The instance that made the change answers the new way at once.
    expect((await sum(instances[0]!, a)).status, 'the changing instance').to.equal(status);
    const delays: number[] = [];
    for (const other of instances.slice(1)) {
      const started = Date.now();
      for (;;) {
        const r = await sum(other, a);
        if (r.status === status) break;
        expect(r.status, 'the other instance, before it sees the change').to.equal(200);
        expect(Date.now() - started, 'the other instance saw the change within a second').to.be.below(WITHIN_MS);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      delays.push(Date.now() - started);
    }
    return delays;
  }

  it('a revoked key is refused (401)', async () => {
    const a = await agentWithKey();
    await seenEverywhere(a, 401, () => gql('mutation($id: ID!) { revokeApiKey(id: $id) }', { id: a.keyId }));
  });

  it('a surface turned off is refused (403)', async () => {
    const a = await agentWithKey();
    await seenEverywhere(a, 403, () =>
      gql('mutation($a: ID!) { setSurface(agentId: $a, surface: HTTP_API, enabled: false) { id } }', { a: a.id }),
    );
  });

  it('a daily credit limit lowered to nothing is refused (429)', async () => {
    const a = await agentWithKey();
    await seenEverywhere(a, 429, () =>
      gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: a.id }),
    );
  });

  it('a used-up daily limit raised again admits at once, on every instance', async () => {
    const a = await agentWithKey();
    await seenEverywhere(a, 429, () =>
      gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: a.id }),
    );
    // Refused again (from memory now: the limit is used up until midnight) ...
    for (const i of instances) expect((await sum(i, a)).status).to.equal(429);
    // ... until the limit changes.
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 1000) { id } }', { a: a.id });
    expect((await sum(instances[0]!, a)).status, 'the changing instance').to.equal(200);
    for (const other of instances.slice(1)) {
      const started = Date.now();
      while ((await sum(other, a)).status !== 200) {
        expect(Date.now() - started, 'the other instance saw the raised limit within a second').to.be.below(WITHIN_MS);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  });

  it('a workspace limit lowered to nothing is refused (429) for an agent that has none of its own', async () => {
    const a = await agentWithKey();
    try {
      await seenEverywhere(a, 429, () => gql('mutation { setWorkspaceLimits(dailyCreditLimit: 0) { id } }'));
    } finally {
      await gql('mutation { setWorkspaceLimits(dailyCreditLimit: null) { id } }');
    }
  });

  it('a removed endpoint is not found (404)', async () => {
    const a = await agentWithKey();
    const [endpoint] = (await gql('query($id: ID!) { agent(id: $id) { httpEndpoints { id } } }', { id: a.id })).agent
      .httpEndpoints;
    await seenEverywhere(a, 404, () => gql('mutation($id: ID!) { removeHttpEndpoint(id: $id) }', { id: endpoint.id }));
  });

  it('a deleted agent is not found (404)', async () => {
    const a = await agentWithKey();
    await seenEverywhere(a, 404, () => gql('mutation($id: ID!) { deleteAgent(id: $id) }', { id: a.id }));
  });
});
