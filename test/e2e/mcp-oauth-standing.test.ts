import { expect } from 'chai';
import { obtainAccessToken } from '../helpers/oauth-flow.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { inviteNewPerson } from '../helpers/invitations.js';

// A grant is worth what its approving member's standing is now (issue 49, item 8): when the member
// token the member approved the client with is revoked, or the agent becomes one the member can no
// longer see, the client's next call is refused 401 invalid_token and its refresh invalid_grant.
// And an authorization request without `scope` ends with a code and a token that work (item 10).

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

describe('e2e: MCP OAuth grants follow the approving member', function () {
  this.timeout(90_000);
  let svc: E2eService;
  let agent: string;
  let memberId: string;

  before(async () => {
    svc = await startE2eService('mcp_oauth_standing');
    const made = await svc.gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
      i: { name: 'Shared', description: 'Shared agent' },
    });
    agent = made.createAgent.id;
    await svc.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        name: 'square',
        description: 'Squares n',
        handler: { script: 'return { n: input.n * input.n };' },
        inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
    });
    memberId = (await inviteNewPerson(svc.gql, svc.url, { email: 'standing@example.com', name: 'Sam' })).memberId;
  });

  after(async () => {
    await svc?.stop();
  });

  const memberToken = async (name: string) =>
    (
      await svc.gql('mutation($m: ID!, $n: String!) { createMemberToken(memberId: $m, name: $n) { id token } }', {
        m: memberId,
        n: name,
      })
    ).createMemberToken as { id: string; token: string };
  const list = (token: string) =>
    fetch(`${svc.url}/agents/${agent}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: LIST,
    });
  const refresh = (clientId: string, refreshToken: string) =>
    fetch(`${svc.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
    });
  const refused = async (token: string, because: RegExp) => {
    const res = await list(token);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
    expect(await res.text()).to.match(because);
  };

  it('revoking the member token the client was approved with ends the grant: tools/list 401 invalid_token, refresh invalid_grant', async () => {
    const approver = await memberToken('approver');
    const bystander = await memberToken('bystander');
    const tokens = await obtainAccessToken(svc.url, agent, approver.token);
    const kept = await obtainAccessToken(svc.url, agent, bystander.token);
    expect((await list(tokens.accessToken)).status).to.equal(200);
    expect(await svc.gql('mutation($id: ID!) { revokeMemberToken(id: $id) }', { id: approver.id })).to.deep.equal({
      revokeMemberToken: true,
    });
    await refused(tokens.accessToken, /revoked/);
    const res = await refresh(tokens.clientId, tokens.refreshToken!);
    expect(res.status).to.equal(400);
    expect(await res.json()).to.include({ error: 'invalid_grant' });
    const grants = await svc.service.store.repos.mcpGrants.listByAgent(agent);
    expect(grants.map((g) => g.clientId)).not.to.include(tokens.clientId);
    // A grant approved through another of the member's tokens stands.
    expect((await list(kept.accessToken)).status).to.equal(200);
  });

  it('an agent made private to others ends the grants of members who can no longer see it: tools/list 401 invalid_token, refresh invalid_grant', async () => {
    const approver = await memberToken('private');
    const tokens = await obtainAccessToken(svc.url, agent, approver.token);
    const admin = await obtainAccessToken(svc.url, agent, svc.adminToken);
    expect((await list(tokens.accessToken)).status).to.equal(200);
    await svc.gql('mutation($a: ID!) { updateAgent(id: $a, input: { visibility: PRIVATE }) { id } }', { a: agent });
    try {
      await refused(tokens.accessToken, /can no longer see the agent/);
      const res = await refresh(tokens.clientId, tokens.refreshToken!);
      expect(res.status).to.equal(400);
      expect(await res.json()).to.include({ error: 'invalid_grant' });
      // The admin, who still sees it, keeps their client.
      expect((await list(admin.accessToken)).status).to.equal(200);
    } finally {
      await svc.gql('mutation($a: ID!) { updateAgent(id: $a, input: { visibility: WORKSPACE }) { id } }', { a: agent });
    }
  });

  it('an authorization request without scope is granted the mcp scope: the member allows, the client gets a code and a token that lists the tools', async () => {
    const tokens = await obtainAccessToken(svc.url, agent, svc.adminToken, { scope: null });
    const res = await list(tokens.accessToken);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.contain('"square"');
    // A second request without scope in the same way also reaches the consent page and a code.
    const again = await obtainAccessToken(svc.url, agent, svc.adminToken, { scope: null });
    expect((await list(again.accessToken)).status).to.equal(200);
  });
});
