import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import { activityOf, addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';

// Issue 15, deliverable 5: a script is compiled when it is saved — through GraphQL and through the
// agent's own Endpoint Management tools — so a syntax error is a BAD_USER_INPUT naming the line and
// column of the user's script (not of the function the sandbox wraps it in), and nothing is saved.
// A runtime error names its line and column too, in the 500 body and in the activity entry.

/** Line 3 has the error: `=` where a `;` or an operator is expected (column 15). */
const BROKEN = 'const total = input.a + input.b;\nlog(total);\nconst doubled total * 2;\nreturn doubled;';
const BROKEN_AT = { line: 3, column: 15 };

const ADD_ENDPOINT = 'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }';

async function endpointsOf(
  token: string,
  agentId: string,
): Promise<{ path: string; handler: { script: string | null } }[]> {
  const d = await gqlOk(token, 'query($a: ID!) { agent(id: $a) { httpEndpoints { path handler { script } } } }', {
    a: agentId,
  });
  return d.agent.httpEndpoints;
}

describe('Script errors name their line and column', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  describe('on save, through GraphQL', () => {
    it('addHttpEndpoint with a syntax error: BAD_USER_INPUT naming line 3, column 15 of the script; nothing is saved', async () => {
      const agent = await createAgent(ws.adminToken);
      const r = await gql(ws.adminToken, ADD_ENDPOINT, { a: agent, i: { path: 'sum', handler: { script: BROKEN } } });
      expect(errorCode(r), JSON.stringify(r.errors)).to.equal('BAD_USER_INPUT');
      const error = r.errors![0]!;
      expect(error.message).to.match(/^handler\.script: SyntaxError: .+ \(line 3, column 15\)$/);
      expect(error.extensions).to.deep.include({ field: 'handler.script', ...BROKEN_AT });
      expect(await endpointsOf(ws.adminToken, agent)).to.deep.equal([]);
    });

    it('updateHttpEndpoint to a broken script is refused and the saved script stays', async () => {
      const agent = await createAgent(ws.adminToken);
      const id = await addHttpEndpoint(ws.adminToken, agent, { path: 'sum', handler: { script: 'return 1' } });
      const r = await gql(
        ws.adminToken,
        'mutation($id: ID!, $i: UpdateHttpEndpointInput!) { updateHttpEndpoint(id: $id, input: $i) { id } }',
        {
          id,
          i: { handler: { script: BROKEN } },
        },
      );
      expect(errorCode(r), JSON.stringify(r.errors)).to.equal('BAD_USER_INPUT');
      expect(r.errors![0]!.extensions).to.deep.include(BROKEN_AT);
      expect(await endpointsOf(ws.adminToken, agent)).to.deep.equal([{ path: 'sum', handler: { script: 'return 1' } }]);
    });

    it('MCP tools and webhook integrations are checked the same way', async () => {
      const agent = await createAgent(ws.adminToken);
      const tool = await gql(
        ws.adminToken,
        'mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }',
        {
          a: agent,
          i: { name: 'sum', description: 'Adds', handler: { script: BROKEN } },
        },
      );
      const hook = await gql(
        ws.adminToken,
        'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }',
        {
          a: agent,
          i: { integration: 'orders', handler: { script: BROKEN } },
        },
      );
      for (const r of [tool, hook]) {
        expect(errorCode(r), JSON.stringify(r.errors)).to.equal('BAD_USER_INPUT');
        expect(r.errors![0]!.extensions).to.deep.include(BROKEN_AT);
      }
      const d = await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { mcpTools { id } webhooks { id } } }', {
        a: agent,
      });
      expect(d.agent).to.deep.equal({ mcpTools: [], webhooks: [] });
    });

    it("a script ending too early is placed at its own end, not at the wrapper's closing brace", async () => {
      const agent = await createAgent(ws.adminToken);
      const r = await gql(ws.adminToken, ADD_ENDPOINT, {
        a: agent,
        i: { path: 'early', handler: { script: 'const items = [1,\n  2,' } },
      });
      expect(errorCode(r)).to.equal('BAD_USER_INPUT');
      expect(r.errors![0]!.message).to.equal(
        'handler.script: SyntaxError: unexpected end of the script (line 2, column 5)',
      );
    });

    it('a valid script with top-level return and await saves, and runs', async () => {
      const agent = await createAgent(ws.adminToken);
      const key = await createAgentKey(ws.adminToken, agent);
      const script = 'const n = await Promise.resolve(input.n);\nif (n > 10) return "big";\nreturn n * 2;';
      await addHttpEndpoint(ws.adminToken, agent, { path: 'twice', handler: { script } });
      const r = await call('POST', httpApiPath(agent, 'twice'), { key, json: { n: 21 } });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.output).to.equal('big');
    });
  });

  describe("on save, through the agent's own Endpoint Management tools", () => {
    it('add_http_endpoint with a broken script: the tool answers INVALID with line and column; nothing is saved', async () => {
      const agent = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      await gqlOk(
        ws.adminToken,
        'mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }',
        { id: agent },
      );
      const key = await createAgentKey(ws.adminToken, agent);
      await addHttpEndpoint(ws.adminToken, agent, { path: 'manage', handler: { prompt: 'Manage your endpoints' } });
      fake.enqueue(
        {
          toolCalls: [
            { name: 'add_http_endpoint', arguments: { input: { path: 'sum', handler: { script: BROKEN } } } },
          ],
        },
        { text: 'The script has a syntax error.' },
      );
      const r = await call('POST', httpApiPath(agent, 'manage'), { key, json: { task: 'add a sum endpoint' } });
      expect(r.status, r.text).to.equal(200);
      const toolMessage = fake.requests[1]!.body.messages!.find((m) => m.role === 'tool');
      const result = JSON.stringify(toolMessage?.content);
      expect(result).to.contain('INVALID');
      expect(result).to.match(/SyntaxError: .+ \(line 3, column 15\)/);
      expect((await endpointsOf(ws.adminToken, agent)).map((e) => e.path)).to.deep.equal(['manage']);
    });
  });

  describe('at run time', () => {
    it('a TypeError on line 3: the 500 body and the activity entry both say line 3, column 27', async () => {
      const agent = await createAgent(ws.adminToken);
      const key = await createAgentKey(ws.adminToken, agent);
      const script =
        'const order = input.order;\nlog("looking up", order);\nconst city = order.address.city;\nreturn city;';
      await addHttpEndpoint(ws.adminToken, agent, { path: 'city', handler: { script } });
      const r = await call('POST', httpApiPath(agent, 'city'), { key, json: { order: { id: 7 } } });
      expect(r.status, r.text).to.equal(500);
      const expected = "TypeError: cannot read property 'city' of undefined (line 3, column 27)";
      expect(r.json).to.deep.equal({ error: expected });
      const [entry] = await activityOf(ws.adminToken, agent);
      expect(entry).to.deep.include({ entry: 'city', status: 500, error: expected, runId: r.headers.get('x-run-id') });
    });
  });
});
