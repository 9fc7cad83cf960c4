import http from 'node:http';
import { expect } from 'chai';
import { startConsoleHarness, type ConsoleHarness } from '../helpers/console-browser.js';
import { agentWithSquareTool, connectWithOAuth, TestOAuthClient } from '../helpers/oauth-client.js';
import type { E2eService, InProcessService } from '../helpers/surface-service.js';

// The authorization server keeps its records in the database every instance shares (issue 39): a
// token issued through one instance calls the agent's tools on another, is refreshed there, and
// when the member revokes the app in the console of the first instance, the next call on the
// other after the revoke has answered is refused. Two instances need PostgreSQL (an embedded database belongs to
// one process): skipped on the embedded one.

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

describe('e2e: MCP OAuth across instances', function () {
  this.timeout(180_000);
  let h: ConsoleHarness | null = null;
  let a: InProcessService;
  let b: InProcessService;
  let agent: string;

  before(async function () {
    if (!process.env.TEST_DATABASE_URL) return this.skip();
    h = await startConsoleHarness('mcp_oauth_instances');
    if (!h) return this.skip();
    a = h.svc;
    // The harness started its service with startE2eService, which can start another instance.
    b = await (h.svc as E2eService).another();
    agent = await agentWithSquareTool(h, { name: 'Shared' });
    h.page.setDefaultTimeout(15_000);
    await h.signIn();
  });

  after(async () => {
    await h?.stop();
  });

  const mcpUrl = (on: InProcessService) => new URL(`${on.url}/agents/${agent}/mcp`);
  const list = (on: InProcessService, token: string) =>
    fetch(mcpUrl(on), { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: LIST });
  // Instances of one deployment answer for one public origin (BASE_URL, behind a load balancer):
  // here each listens on a port of its own and takes its issuer from the request's Host, so B is
  // asked under A's host, as the load balancer would forward it.
  // (fetch always sends the host it connects to: node:http sends the one given).
  const refresh = (on: InProcessService, refreshToken: string, clientId: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
      }).toString();
      const req = http.request(
        `${on.url}/oauth/token`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': Buffer.byteLength(form),
            host: new URL(a.url).host,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(form);
    });

  it('a token issued through one instance calls tools on another and is refreshed there; revoked in the console of the first, the next call on the other is refused', async () => {
    const client = await new TestOAuthClient('Two instances').start();
    try {
      // Registered, approved and exchanged through instance A.
      const onA = await connectWithOAuth('v1', mcpUrl(a), client, h!.page, h!.adminToken);
      expect(JSON.parse((await onA.callTool('square', { n: 5 })).content[0].text)).to.deep.equal({ n: 25 });
      await onA.close();
      const clientId = client.info!.client_id;

      // The same tokens on instance B: the client connects without signing in again.
      const onB = await connectWithOAuth('v1', mcpUrl(b), client, h!.page, h!.adminToken);
      expect(JSON.parse((await onB.callTool('square', { n: 7 })).content[0].text)).to.deep.equal({ n: 49 });
      await onB.close();

      // Refreshed on B (rotation): the new access token works on both instances.
      const res = await refresh(b, client.stored!.refresh_token!, clientId);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const rotated = res.body;
      expect(rotated.refresh_token).to.be.a('string').and.not.equal(client.stored!.refresh_token);
      expect((await list(b, rotated.access_token)).status).to.equal(200);
      expect((await list(a, rotated.access_token)).status).to.equal(200);

      // The member revokes the app in the console of instance A.
      const { page } = h!;
      await page.goto(`${a.url}/console/agents/${agent}/mcp`);
      const section = page.getByRole('region', { name: 'Connected apps (OAuth)' });
      const row = section.getByRole('row', { name: /Two instances/ });
      await row.waitFor();
      await row.getByRole('button', { name: 'Revoke Two instances' }).click();
      const confirm = page.getByRole('dialog', { name: 'Revoke connected app' });
      await confirm.getByRole('button', { name: 'Revoke access' }).click();
      const started = Date.now();
      // Once the revoke has answered (the row leaves the list), the very next call on B is refused:
      // the grant is a row that every call reads, so no wait and no retry is needed.
      await section.getByText('No connected apps yet').waitFor();
      const refusedOnB = await list(b, rotated.access_token);
      expect(refusedOnB.status).to.equal(401);
      console.log(
        `      (instance B refused the revoked token ${Date.now() - started} ms after the console's revoke was confirmed)`,
      );
      expect(refusedOnB.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      expect(((await refusedOnB.json()) as any).error).to.match(/not recognised|revoked/);

      // Refused on A too, and neither instance refreshes the grant's tokens any more.
      expect((await list(a, rotated.access_token)).status).to.equal(401);
      for (const on of [b, a]) {
        const again = await refresh(on, rotated.refresh_token, clientId);
        expect(again.status).to.equal(400);
        expect(again.body.error).to.equal('invalid_grant');
      }
      expect(await h!.svc.service.store.repos.mcpGrants.listByAgent(agent)).to.deep.equal([]);
      await h!.collectViolations();
      expect(h!.violations).to.deep.equal([]);
    } finally {
      await client.stop();
    }
  });
});
