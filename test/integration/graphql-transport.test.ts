import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

describe('GraphQL transport: auth, limits, errors, batching', () => {
  let ws: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
  });

  it('answers 401 UNAUTHENTICATED without a token, with a malformed header, or with an unknown token', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer mt_notarealtokenatallnotarealtoken' }] as Record<string, string>[]) {
      const res = await fetch(`${h().url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
      expect(res.status).to.equal(401);
      const body = (await res.json()) as any;
      expect(body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
      expect(body.data).to.equal(undefined);
    }
  });

  it('accepts the bootstrap ADMIN_TOKEN as the admin of the default workspace', async () => {
    const d = await gqlOk('bootstrap-admin-token-for-tests', '{ viewer { role email } workspace { name } }');
    expect(d.viewer.role).to.equal('ADMIN');
    expect(d.workspace.name).to.equal('Default workspace');
  });

  it('refuses an operation selecting more than 1000 fields with a clear message', async () => {
    const fields = Array.from({ length: 1001 }, (_, i) => `a${i}: id`).join(' ');
    const r = await gql(ws.adminToken, `{ agents { ${fields} } }`);
    expect(r.status).to.equal(400);
    expect(r.errors![0]!.message).to.match(/more than 1000 fields/);
    expect(errorCode(r)).to.equal('GRAPHQL_VALIDATION_FAILED');
  });

  it('never returns a stack trace, and reports malformed JSON as 400', async () => {
    const r = await gql(ws.adminToken, `mutation { updateAgent(id: "agt_x", input: {name: "y"}) { id } }`);
    // The whole answer: the domain error's message and code, and nothing else (no stacktrace extension).
    expect(r).to.deep.equal({
      status: 200,
      data: null,
      errors: [{ message: "Agent 'agt_x' not found", locations: [{ line: 1, column: 12 }], path: ['updateAgent'], extensions: { code: 'NOT_FOUND' } }],
    });
    expect(JSON.stringify(r.errors)).to.not.match(/stacktrace|at .*\.ts:/);
    const res = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.adminToken}` },
      body: '{"query": ',
    });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as any;
    expect(body).to.deep.equal({ error: 'Malformed JSON body' });
  });

  it('refuses bodies over 1 MiB with 413', async () => {
    const res = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.adminToken}` },
      body: JSON.stringify({ query: '{ viewer { id } }', variables: { pad: 'x'.repeat(1_100_000) } }),
    });
    expect(res.status).to.equal(413);
  });

  it('loads nested agent lists with a fixed number of queries, whatever the number of agents', async () => {
    const fresh = await newWorkspace();
    const addAgents = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const id = await createAgent(fresh.adminToken, { name: `batch ${i}` });
        await gqlOk(fresh.adminToken, `mutation($id: ID!) { addHttpEndpoint(agentId: $id, input: {path: "p", handler: {prompt: "x"}}) { id } createAgentApiKey(agentId: $id, name: "k") { key } addMcpTool(agentId: $id, input: {name: "t", description: "d", handler: {script: "return 1"}}) { id } }`, { id });
      }
    };
    const query = '{ agents { id httpEndpoints { path } apiKeys { prefix } mcpTools { name } webhooks { integration } documents { id } documentExposures { id } } }';
    const countQueries = async () => {
      let n = 0;
      const onQuery = () => void n++;
      h().db.on('query', onQuery);
      try {
        const d = await gqlOk(fresh.adminToken, query);
        return { n, agents: d.agents.length };
      } finally {
        h().db.off('query', onQuery);
      }
    };
    await addAgents(3);
    const small = await countQueries();
    await addAgents(7);
    const large = await countQueries();
    expect(small.agents).to.equal(3);
    expect(large.agents).to.equal(10);
    expect(large.n).to.equal(small.n);
    expect(large.n).to.be.at.most(10);
  });
});
