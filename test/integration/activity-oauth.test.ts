import { expect } from 'chai';
import type http from 'node:http';
import Koa from 'koa';
import type { Principal } from '../../src/domain/principal.js';
import { createLogger } from '../../src/infra/logger.js';
import { agentRouteFrame, type SurfaceState } from '../../src/surfaces/shared/activity.middleware.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent } from '../helpers/runtime.js';

// An OAuth client's call is logged like a key's, naming the client and the member whose approval
// it used. The route below stands for the MCP route once it has let the caller in: the surfaces'
// one activity writer (agentRouteFrame) reads the caller the route left in ctx.state.

describe('activity of OAuth calls', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let server: http.Server;
  let url: string;
  /** The caller the next request is let in as. */
  let caller: Principal;

  before(async () => {
    ws = await newWorkspace();
    const { services } = h().service;
    const app = new Koa();
    app.use(agentRouteFrame(services, 'MCP', createLogger('silent')));
    app.use(async (ctx) => {
      const agent = await loadAgent(ctx.path.split('/')[2]!);
      const state = ctx.state as SurfaceState;
      state.agent = agent;
      state.caller = {
        agent,
        principal: caller,
        keyId: caller.kind === 'agentKey' ? caller.keyId : null,
        facts: { entry: 'lookup' },
      };
      ctx.body = { ok: true };
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ENTRIES = `query($a: ID!) { agent(id: $a) { activity(first: 10) { nodes { id entry status keyId oauthClientId grantedBy } } } }`;

  it('an OAuth call names its client and the approving member; a key call names neither', async () => {
    const agentId = await createAgent(ws.adminToken);
    const member = await ws.addMember();
    const clientId = 'https://chatgpt.com/oauth/client-metadata.json';
    caller = {
      kind: 'oauthGrant',
      grantId: 'grt_1',
      clientId,
      memberId: member.memberId,
      workspaceId: ws.workspaceId,
      agentId,
    };
    expect((await fetch(`${url}/agents/${agentId}/mcp`, { method: 'POST' })).status).to.equal(200);
    caller = { kind: 'agentKey', keyId: 'key_1', workspaceId: ws.workspaceId, agentId };
    expect((await fetch(`${url}/agents/${agentId}/mcp`, { method: 'POST' })).status).to.equal(200);
    await h().service.services.activityLog.flush();

    const [byKey, byOAuth] = (await gqlOk(ws.adminToken, ENTRIES, { a: agentId })).agent.activity.nodes;
    expect(byOAuth).to.deep.include({
      entry: 'lookup',
      status: 200,
      keyId: null,
      oauthClientId: clientId,
      grantedBy: member.memberId,
    });
    expect(byKey).to.deep.include({ keyId: 'key_1', oauthClientId: null, grantedBy: null });
    // The entry read alone (the console's drawer) carries them too.
    const one = await gqlOk(
      ws.adminToken,
      `query($a: ID!, $id: ID!) { agent(id: $a) { activityEntry(id: $id) { oauthClientId grantedBy } } }`,
      { a: agentId, id: byOAuth.id },
    );
    expect(one.agent.activityEntry).to.deep.equal({ oauthClientId: clientId, grantedBy: member.memberId });
  });
});
