import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { json, type DocServer } from '../helpers/cimd-server.js';
import type { ConsoleHarness } from '../helpers/console-browser.js';
import {
  agentWithSquareTool,
  approveInBrowser,
  connectWithOAuth,
  startOAuthHarness,
  TestOAuthClient,
} from '../helpers/oauth-client.js';

// MCP authorization end to end (issue 39): a hosted client discovers the authorization server from
// the MCP server's 401, registers (dynamically, or by a Client ID Metadata Document URL), sends the
// person through sign-in and consent in a real browser, exchanges the code with PKCE and calls the
// agent's tools with the token, with the MCP SDK's clients of both generations; the refresh; the
// refusals the specifications name; revoking the grant ends the token.

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

describe('e2e: MCP OAuth with the MCP SDK clients', function () {
  this.timeout(180_000);
  let h: ConsoleHarness | null;
  let agent: string;
  let other: string;
  let docs: DocServer | undefined;

  before(async function () {
    ({ h, docs } = await startOAuthHarness('mcp-oauth'));
    if (!h) return this.skip();
    const made = (name: string) => agentWithSquareTool(h!, { name, description: `${name} agent` });
    agent = await made('Connector');
    other = await made('Other');
  });

  after(async () => {
    await h?.stop();
    await docs?.close();
  });

  const mcpUrl = (id: string) => new URL(`${h!.svc.url}/agents/${id}/mcp`);
  const post = (id: string, token: string) =>
    fetch(mcpUrl(id), { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: LIST });
  const grants = (id = agent) => h!.svc.service.store.repos.mcpGrants.listByAgent(id);
  const tokenRequest = (params: Record<string, string>) =>
    fetch(`${h!.svc.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    });

  /** A client connected to `agent` with OAuth, its tokens and registration kept. */
  async function connected(name: string, sdk: 'v1' | 'v2' = 'v1') {
    const client = await new TestOAuthClient(name).start();
    const mcp = await connectWithOAuth(sdk, mcpUrl(agent), client, h!.page, h!.adminToken);
    return { client, mcp };
  }

  it('answers a request without credentials with 401 and the protected-resource metadata; the metadata names the service as authorization server', async () => {
    const res = await fetch(mcpUrl(agent), { method: 'POST', headers: MCP_HEADERS, body: LIST });
    expect(res.status).to.equal(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).to.equal(`${h!.svc.url}/.well-known/oauth-protected-resource/agents/${agent}/mcp`);
    expect(challenge).to.contain('scope="mcp"').and.not.contain('invalid_token');
    const prm: any = await (await fetch(metadataUrl!)).json();
    expect(prm).to.deep.include({
      resource: mcpUrl(agent).href,
      authorization_servers: [h!.svc.url],
      scopes_supported: ['mcp'],
    });
    const as: any = await (await fetch(`${h!.svc.url}/.well-known/oauth-authorization-server`)).json();
    expect(as.issuer).to.equal(h!.svc.url);
    expect(as.code_challenge_methods_supported).to.deep.equal(['S256']);
    expect(as.registration_endpoint).to.equal(`${h!.svc.url}/oauth/register`);
    expect(as.revocation_endpoint).to.equal(`${h!.svc.url}/oauth/revoke`);
    expect(as.client_id_metadata_document_supported).to.equal(true);
    expect(as.response_types_supported).to.deep.equal(['code']);
    expect(as.grant_types_supported).to.include.members(['authorization_code', 'refresh_token']);
    const oidc: any = await (await fetch(`${h!.svc.url}/.well-known/openid-configuration`)).json();
    expect(oidc.issuer).to.equal(as.issuer);
    expect((await fetch(`${h!.svc.url}/.well-known/oauth-protected-resource/agents/nope/mcp`)).status).to.equal(404);
  });

  for (const sdk of ['v1', 'v2'] as const) {
    it(`the ${sdk} SDK client registers, the person signs in and approves in the browser, the code is exchanged with PKCE, and the tools answer with the token`, async () => {
      const { client, mcp } = await connected(`Connector ${sdk}`, sdk);
      try {
        expect(client.info?.client_id).to.be.a('string');
        expect(client.stored?.access_token).to.be.a('string');
        expect(client.stored?.refresh_token).to.be.a('string');
        expect((await mcp.listTools()).tools.map((t) => t.name)).to.deep.equal(['square']);
        const result = await mcp.callTool('square', { n: 7 });
        expect(JSON.parse(result.content[0].text)).to.deep.equal({ n: 49 });
        const mine = (await grants()).filter((g) => g.clientId === client.info!.client_id);
        expect(mine).to.have.length(1);
        expect(mine[0]).to.include({ clientName: `Connector ${sdk}`, redirectHost: new URL(client.redirectUrl).host });
      } finally {
        await mcp.close();
        await client.stop();
      }
    });
  }

  it('the activity entry of an OAuth call names the client and the member who granted it', async () => {
    const { client, mcp } = await connected('Logged client');
    try {
      await mcp.callTool('square', { n: 3 });
      const me = (await h!.gql('{ viewer { id } }')).viewer.id;
      let entries: any[] = [];
      for (let i = 0; i < 50 && !entries.length; i++) {
        const data = await h!.gql(
          'query($a: ID!) { agent(id: $a) { activity(first: 20) { nodes { entry oauthClientId grantedBy keyId } } } }',
          { a: agent },
        );
        entries = data.agent.activity.nodes.filter(
          (n: any) => n.entry === 'square' && n.oauthClientId === client.info!.client_id,
        );
        if (!entries.length) await new Promise((r) => setTimeout(r, 100));
      }
      expect(entries[0]).to.deep.include({ grantedBy: me, keyId: null });
    } finally {
      await mcp.close();
      await client.stop();
    }
  });

  it("an OAuth call is held to the agent's limits as a key's is: a daily limit met is 429 with Retry-After", async () => {
    const { client, mcp } = await connected('Limited client');
    await mcp.close();
    try {
      await h!.gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: agent });
      const res = await fetch(mcpUrl(agent), {
        method: 'POST',
        headers: { ...MCP_HEADERS, authorization: `Bearer ${client.stored!.access_token}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'square', arguments: { n: 2 } },
        }),
      });
      expect(res.status).to.equal(429);
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    } finally {
      await h!.gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: null) { id } }', { a: agent });
      await client.stop();
    }
  });

  it('refreshes with rotation; reusing a spent refresh token ends the grant and its tokens', async () => {
    const { client, mcp } = await connected('Refresher');
    await mcp.close();
    try {
      const first = client.stored!;
      const res = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token!,
        client_id: client.info!.client_id,
      });
      expect(res.status).to.equal(200);
      const second: any = await res.json();
      expect(second.access_token).to.be.a('string').and.not.equal(first.access_token);
      expect(second.refresh_token).to.be.a('string').and.not.equal(first.refresh_token);
      expect((await post(agent, second.access_token)).status).to.equal(200);
      // The spent refresh token again: refused, and the whole grant is revoked (reuse detection).
      const reuse = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token!,
        client_id: client.info!.client_id,
      });
      expect(reuse.status).to.equal(400);
      expect(((await reuse.json()) as any).error).to.equal('invalid_grant');
      expect((await post(agent, second.access_token)).status).to.equal(401);
      expect((await grants()).some((g) => g.clientId === client.info!.client_id)).to.equal(false);
    } finally {
      await client.stop();
    }
  });

  it("a token bound to one agent is refused by another (401 invalid_token); the member's revoke ends the token and its refresh at once", async () => {
    const { client, mcp } = await connected('Bound');
    await mcp.close();
    try {
      const token = client.stored!.access_token;
      const elsewhere = await post(other, token);
      expect(elsewhere.status).to.equal(401);
      expect(elsewhere.headers.get('www-authenticate'))
        .to.contain('error="invalid_token"')
        .and.contain(`/agents/${other}/mcp`);
      expect(((await elsewhere.json()) as any).error).to.match(/another resource/);

      // The member revokes the grant (GraphQL, as the console does): the token and its refresh end at once.
      expect((await post(agent, token)).status).to.equal(200);
      const grant = (await grants()).find((g) => g.clientId === client.info!.client_id)!;
      expect(
        (
          await h!.gql('mutation($a: ID!, $g: ID!) { revokeMcpGrant(agentId: $a, grantId: $g) }', {
            a: agent,
            g: grant.id,
          })
        ).revokeMcpGrant,
      ).to.equal(true);
      const after = await post(agent, token);
      expect(after.status).to.equal(401);
      expect(((await after.json()) as any).error).to.match(/not recognised|revoked/);
      const refresh = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: client.stored!.refresh_token!,
        client_id: client.info!.client_id,
      });
      expect(refresh.status).to.equal(400);
      expect(((await refresh.json()) as any).error).to.equal('invalid_grant');
    } finally {
      await client.stop();
    }
  });

  it('a client that revokes its token (RFC 7009) signs out: its tokens and its grant end; another client cannot revoke them', async () => {
    const { client, mcp } = await connected('Signing out');
    await mcp.close();
    const stranger = await new TestOAuthClient('Stranger').start();
    try {
      const token = client.stored!.access_token;
      const reg = await fetch(`${h!.svc.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(stranger.clientMetadata),
      });
      const strangerId = ((await reg.json()) as any).client_id;
      const revoke = (clientId: string) =>
        fetch(`${h!.svc.url}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, client_id: clientId }),
        });
      expect((await revoke(strangerId)).status).to.equal(200);
      expect((await post(agent, token)).status, 'another client revoked the token').to.equal(200);
      expect((await revoke(client.info!.client_id)).status).to.equal(200);
      expect((await post(agent, token)).status).to.equal(401);
      const refresh = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: client.stored!.refresh_token!,
        client_id: client.info!.client_id,
      });
      expect(refresh.status).to.equal(400);
      expect((await grants()).some((g) => g.clientId === client.info!.client_id)).to.equal(false);
    } finally {
      await client.stop();
      await stranger.stop();
    }
  });

  it('an expired access token is refused with 401 invalid_token saying it expired', async () => {
    const { client, mcp } = await connected('Expiring');
    await mcp.close();
    try {
      const token = client.stored!.access_token;
      await h!.svc.service
        .db('oauth_records')
        .where({ model: 'AccessToken', id: createHash('sha256').update(token).digest('hex') })
        .update({ expires_at: new Date(Date.now() - 1000) });
      const res = await post(agent, token);
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      expect(((await res.json()) as any).error).to.match(/expired/);
    } finally {
      await client.stop();
    }
  });

  describe('refusals at the authorization server', () => {
    let client: TestOAuthClient;
    let clientId: string;
    const verifier = 'verifier-of-the-refusals-test-0123456789-abcdefghijklmnop';
    const challenge = {
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    };

    before(async () => {
      client = await new TestOAuthClient('Refused').start();
      const reg = await fetch(`${h!.svc.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(client.clientMetadata),
      });
      expect(reg.status).to.equal(201);
      clientId = ((await reg.json()) as any).client_id;
    });
    after(() => client.stop());

    const authorize = (params: Record<string, string>) =>
      fetch(
        `${h!.svc.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', scope: 'mcp', resource: mcpUrl(agent).href, ...params })}`,
        { redirect: 'manual' },
      );

    it('a redirect URI that was not registered gets an error page, never a redirect', async () => {
      const res = await authorize({ client_id: clientId, redirect_uri: `${client.redirectUrl}/other`, ...challenge });
      expect(res.status).to.equal(400);
      expect(res.headers.get('location')).to.equal(null);
      expect(await res.text()).to.contain('redirect_uri');
    });

    it('an authorization request without a PKCE challenge goes back with invalid_request', async () => {
      const res = await authorize({ client_id: clientId, redirect_uri: client.redirectUrl });
      expect(res.status).to.be.within(302, 303);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).to.equal(client.redirectUrl);
      expect(back.searchParams.get('error')).to.equal('invalid_request');
      expect(back.searchParams.get('error_description')).to.match(/code_challenge|PKCE/i);
    });

    it("a resource that is not one agent's MCP URL goes back with invalid_target", async () => {
      const res = await authorize({
        client_id: clientId,
        redirect_uri: client.redirectUrl,
        resource: `${h!.svc.url}/agents/${agent}/api/x`,
        ...challenge,
      });
      const back = new URL(res.headers.get('location')!);
      expect(back.searchParams.get('error')).to.equal('invalid_target');
    });

    it('a code is refused with a wrong or missing PKCE verifier (invalid_grant), and accepted with the right one', async () => {
      const url = new URL(`${h!.svc.url}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        scope: 'mcp',
        resource: mcpUrl(agent).href,
        client_id: clientId,
        redirect_uri: client.redirectUrl,
        ...challenge,
      }))
        url.searchParams.set(k, v);
      client.authorizationUrl = url;
      const code = (await approveInBrowser(h!.page, client, h!.adminToken)).get('code')!;
      const exchange = (extra: Record<string, string>) =>
        tokenRequest({
          grant_type: 'authorization_code',
          code,
          client_id: clientId,
          redirect_uri: client.redirectUrl,
          ...extra,
        });
      const wrong = await exchange({ code_verifier: `${verifier.slice(0, -1)}x` });
      expect(wrong.status).to.equal(400);
      expect(((await wrong.json()) as any).error).to.equal('invalid_grant');
      const missing = await exchange({});
      expect(missing.status).to.equal(400);
      expect(((await missing.json()) as any).error).to.be.oneOf(['invalid_grant', 'invalid_request']);
      // A code is single-use and a failed exchange may spend it: a fresh code with the right verifier.
      const again = (await approveInBrowser(h!.page, client, h!.adminToken)).get('code')!;
      const ok = await tokenRequest({
        grant_type: 'authorization_code',
        code: again,
        client_id: clientId,
        redirect_uri: client.redirectUrl,
        code_verifier: verifier,
        resource: mcpUrl(agent).href,
      });
      expect(ok.status).to.equal(200);
      expect((await post(agent, ((await ok.json()) as any).access_token)).status).to.equal(200);
    });

    it('a Client ID Metadata Document URL on a loopback or private address is refused unless allowed (invalid_client)', async () => {
      for (const id of [
        'https://127.0.0.1:9/client.json',
        'https://10.1.2.3/client.json',
        'https://[::1]:9/client.json',
      ]) {
        const res = await authorize({ client_id: id, redirect_uri: 'https://app.example.com/callback', ...challenge });
        expect(res.status, id).to.equal(400);
        expect(res.headers.get('location')).to.equal(null);
        const page = await res.text();
        expect(page, id).to.contain('invalid_client');
        expect(page, id).to.match(/private|loopback|public/i);
      }
    });

    it('the member who denies sends the client back with access_denied and no grant', async () => {
      const before = (await grants()).length;
      const url = new URL(`${h!.svc.url}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        scope: 'mcp',
        resource: mcpUrl(agent).href,
        client_id: clientId,
        redirect_uri: client.redirectUrl,
        ...challenge,
      }))
        url.searchParams.set(k, v);
      client.authorizationUrl = url;
      const back = await approveInBrowser(h!.page, client, h!.adminToken, 'deny');
      expect(back.get('error')).to.equal('access_denied');
      expect(back.get('code')).to.equal(null);
      expect((await grants()).length).to.equal(before);
    });
  });

  it("a client named by its metadata document URL (CIMD) connects without registering; the grant names the document's client", async function () {
    if (!docs) return this.skip();
    const client = await new TestOAuthClient('Metadata client', `${docs.origin}/oauth/client.json`).start();
    docs.handler = json({
      client_id: client.clientMetadataUrl,
      client_name: 'Hosted Assistant',
      redirect_uris: [client.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    try {
      const mcp = await connectWithOAuth('v1', mcpUrl(agent), client, h!.page, h!.adminToken);
      expect(client.info?.client_id).to.equal(client.clientMetadataUrl);
      expect((await mcp.listTools()).tools).to.have.length(1);
      await mcp.close();
      expect(docs.hits).to.be.greaterThan(0);
      const grant = (await grants()).find((g) => g.clientId === client.clientMetadataUrl);
      expect(grant).to.include({ clientName: 'Hosted Assistant' });
    } finally {
      await client.stop();
    }
  });
});
