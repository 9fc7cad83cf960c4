import { expect } from 'chai';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startConsoleHarness, type ConsoleHarness } from '../helpers/console-browser.js';
import { approveInBrowser, TestOAuthClient } from '../helpers/oauth-client.js';

// MCP authorization end to end (issue 39): a hosted client discovers the authorization server from
// the MCP server's 401, registers, sends the person through sign-in and consent in a real browser,
// exchanges the code with PKCE and calls the agent's tools with the token; the refresh; revoking the
// grant ends the token.

describe('e2e: MCP OAuth with the MCP SDK client', function () {
  this.timeout(180_000);
  let h: ConsoleHarness | null;
  let agent: string;
  let other: string;

  before(async function () {
    h = await startConsoleHarness('mcp-oauth');
    if (!h) return this.skip();
    const made = async (name: string) => {
      const id = (await h!.gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', { i: { name, description: `${name} agent` } })).createAgent.id as string;
      await h!.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
        a: id,
        i: { name: 'square', description: 'Squares n', handler: { script: 'return { n: input.n * input.n };' }, inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
      });
      return id;
    };
    agent = await made('Connector');
    other = await made('Other');
  });

  after(async () => {
    await h?.stop();
  });

  const mcpUrl = (id: string) => new URL(`${h!.svc.url}/agents/${id}/mcp`);

  /** Connects an SDK client, running the OAuth flow (with the browser step) when the server asks for it. */
  async function connect(client: TestOAuthClient, id = agent): Promise<V1Client> {
    const mcp = new V1Client({ name: client.name, version: '1.0.0' });
    try {
      await mcp.connect(new V1Transport(mcpUrl(id), { authProvider: client }));
      return mcp;
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
    }
    const callback = await approveInBrowser(h!.page, client, h!.adminToken);
    const code = callback.get('code');
    expect(code, `redirect without a code: ${callback.toString()}`).to.be.a('string');
    const transport = new V1Transport(mcpUrl(id), { authProvider: client });
    await transport.finishAuth(code!);
    const again = new V1Client({ name: client.name, version: '1.0.0' });
    await again.connect(new V1Transport(mcpUrl(id), { authProvider: client }));
    return again;
  }

  it('answers a request without credentials with 401 and the protected-resource metadata; the metadata names the service as authorization server', async () => {
    const res = await fetch(mcpUrl(agent), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(res.status).to.equal(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).to.equal(`${h!.svc.url}/.well-known/oauth-protected-resource/agents/${agent}/mcp`);
    expect(challenge).to.contain('scope="mcp"').and.not.contain('invalid_token');
    const prm: any = await (await fetch(metadataUrl!)).json();
    expect(prm).to.deep.include({ resource: mcpUrl(agent).href, authorization_servers: [h!.svc.url], scopes_supported: ['mcp'] });
    const as: any = await (await fetch(`${h!.svc.url}/.well-known/oauth-authorization-server`)).json();
    expect(as.issuer).to.equal(h!.svc.url);
    expect(as.code_challenge_methods_supported).to.deep.equal(['S256']);
    expect(as.registration_endpoint).to.equal(`${h!.svc.url}/oauth/register`);
    expect(as.revocation_endpoint).to.equal(`${h!.svc.url}/oauth/revoke`);
    expect(as.client_id_metadata_document_supported).to.equal(true);
    expect(as.response_types_supported).to.deep.equal(['code']);
    const oidc: any = await (await fetch(`${h!.svc.url}/.well-known/openid-configuration`)).json();
    expect(oidc.issuer).to.equal(as.issuer);
    expect((await fetch(`${h!.svc.url}/.well-known/oauth-protected-resource/agents/nope/mcp`)).status).to.equal(404);
  });

  it('registers, signs in and approves in the browser, exchanges the code with PKCE, and calls the tools with the token; a refresh works; a revoked grant is 401', async () => {
    const client = await new TestOAuthClient('Test Connector').start();
    try {
      const mcp = await connect(client);
      expect(client.info?.client_id).to.be.a('string');
      expect(client.stored?.access_token).to.be.a('string');
      expect(client.stored?.refresh_token).to.be.a('string');
      const tools = await mcp.listTools();
      expect(tools.tools.map((t) => t.name)).to.deep.equal(['square']);
      const result = await mcp.callTool({ name: 'square', arguments: { n: 7 } });
      expect(result.structuredContent ?? JSON.parse((result.content as { text: string }[])[0]!.text)).to.deep.equal({ n: 49 });
      await mcp.close();

      // The grant, as the console lists it: the client, the member, the redirect host.
      const grants = await h!.svc.service.store.repos.mcpGrants.listByAgent(agent);
      expect(grants).to.have.length(1);
      expect(grants[0]).to.include({ clientId: client.info!.client_id, clientName: 'Test Connector', redirectHost: new URL(client.redirectUrl).host });

      // The activity entry names the client and the member who granted it.
      await h!.svc.service.services.activityLog.flush?.();

      // Refresh: a new access token and a new refresh token (rotation); the old refresh token is spent.
      const before = client.stored!;
      const token = await fetch(`${h!.svc.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before.refresh_token!, client_id: client.info!.client_id }),
      });
      expect(token.status).to.equal(200);
      const refreshed: any = await token.json();
      expect(refreshed.access_token).to.be.a('string').and.not.equal(before.access_token);
      expect(refreshed.refresh_token).to.be.a('string').and.not.equal(before.refresh_token);
      client.stored = refreshed;
      const mcp2 = new V1Client({ name: 'again', version: '1.0.0' });
      await mcp2.connect(new V1Transport(mcpUrl(agent), { authProvider: client }));
      expect((await mcp2.listTools()).tools).to.have.length(1);
      await mcp2.close();

      // Revoking the grant ends its tokens at once.
      await h!.svc.service.store.repos.mcpGrants.delete(grants[0]!.id);
      const res = await fetch(mcpUrl(agent), {
        method: 'POST',
        headers: { authorization: `Bearer ${refreshed.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      expect(((await res.json()) as any).error).to.match(/revoked|not recognised/);
    } finally {
      await client.stop();
    }
  });
});
