import { expect } from 'chai';
import { obtainAccessToken } from '../helpers/oauth-flow.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The OAuth sign-in of an agent's MCP server without a browser (test/helpers/oauth-flow.ts, which
// the conformance runner uses for its OAuth pass): discovery, registration, the member's sign-in and
// approval on the consent pages, the code exchange; the token it ends with calls the agent's MCP
// server, and only that agent's.

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

describe('e2e: MCP OAuth sign-in over plain HTTP', function () {
  this.timeout(60_000);
  let svc: E2eService;
  let agent: string;
  let other: string;

  before(async () => {
    svc = await startE2eService('mcp_oauth_flow');
    const made = async (name: string) =>
      (
        await svc.gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
          i: { name, description: `${name} agent` },
        })
      ).createAgent.id as string;
    agent = await made('Connector');
    other = await made('Other');
    await svc.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        name: 'square',
        description: 'Squares n',
        handler: { script: 'return { n: input.n * input.n };' },
        inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
    });
  });

  after(async () => {
    await svc?.stop();
  });

  const list = (id: string, token: string) =>
    fetch(`${svc.url}/agents/${id}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: LIST,
    });

  it("ends with an access token that lists the agent's MCP tools, a refresh token, and the member's grant to the client", async () => {
    const tokens = await obtainAccessToken(svc.url, agent, svc.adminToken);
    const res = await list(agent, tokens.accessToken);
    expect(res.status).to.equal(200);
    const body = await res.text();
    expect(body).to.contain('"square"');
    expect(tokens.refreshToken).to.be.a('string').that.is.not.empty;
    const grants = await svc.service.store.repos.mcpGrants.listByAgent(agent);
    expect(grants.map((g: { clientId: string }) => g.clientId)).to.include(tokens.clientId);
  });

  it("is refused on another agent's MCP URL", async () => {
    const { accessToken } = await obtainAccessToken(svc.url, agent, svc.adminToken);
    const res = await list(other, accessToken);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
  });

  it('stops at the sign-in when the member token is wrong, naming the step', async () => {
    let failure: unknown;
    await obtainAccessToken(svc.url, agent, 'not-a-member-token-0123456789').catch((err: unknown) => (failure = err));
    expect(String(failure)).to.match(/POST \/oauth\/interaction\/[\w-]+\/signin: HTTP 401/);
  });
});
