import { expect } from 'chai';
import { createAgent, gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';

// The console's "Try it" key: created only by a console session (a bearer token is refused),
// labelled and expiring after an hour, one per session and agent, revoked in the same transaction
// as its session's end (sign-out, the member token revoked). And the widget preview, the one place
// where the key travels in a cookie, through the real chat surface.

const origin = () => new URL(h().url).origin;

async function signIn(token: string): Promise<string> {
  const res = await fetch(`${h().url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin() },
    body: JSON.stringify({ token }),
  });
  expect(res.status).to.equal(204);
  return /^(aes_session=[^;]+);/.exec(res.headers.get('set-cookie') ?? '')![1]!;
}

async function viaCookie(cookie: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${h().url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin(), cookie },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

const TRY_IT =
  'mutation($a: ID!) { createTryItKey(agentId: $a) { key apiKey { id name agentId expiresAt revokedAt kind origin } } }';

async function tryItKey(
  cookie: string,
  agentId: string,
): Promise<{
  key: string;
  apiKey: { id: string; name: string; agentId: string; expiresAt: string; revokedAt: string | null; kind: string };
}> {
  const r = await viaCookie(cookie, TRY_IT, { a: agentId });
  expect(r.errors, JSON.stringify(r.errors)).to.equal(undefined);
  return r.data.createTryItKey;
}

/** An agent with a script endpoint `echo` (POST), answering {echo: input.text}. */
async function agentWithEndpoint(token: string): Promise<string> {
  const agentId = await createAgent(token, { name: 'Try-it agent' });
  await gqlOk(token, 'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
    a: agentId,
    i: { path: 'echo', handler: { script: 'return { echo: input.text };' } },
  });
  return agentId;
}

async function call(agentId: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${h().url}/agents/${agentId}/api/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
    body: JSON.stringify({ text: 'hi' }),
  });
  return { status: res.status, body: await res.json() };
}

describe('console Try-it keys', function () {
  this.timeout(30_000);

  it('a console session gets a labelled agent key that expires in an hour, bound to the session, and it works on the surface', async () => {
    const ws = await newWorkspace();
    const agentId = await agentWithEndpoint(ws.adminToken);
    const cookie = await signIn(ws.adminToken);
    const before = Date.now();
    const { key, apiKey } = await tryItKey(cookie, agentId);
    expect(key).to.match(/^ak_/);
    expect(apiKey).to.include({
      agentId,
      kind: 'AGENT',
      revokedAt: null,
      name: `Console Try it — ${ws.adminId}`,
      origin: 'TRY_IT',
    });
    const lifetime = new Date(apiKey.expiresAt).getTime() - before;
    expect(lifetime).to.be.within(3_590_000, 3_610_000);
    const [row] = await h().db('api_keys').where({ id: apiKey.id });
    const [session] = await h().db('console_sessions').where({ member_id: ws.adminId });
    expect(row.console_session_id).to.equal(session.id);
    const r = await call(agentId, key);
    expect(r.status).to.equal(200);
    expect(r.body.output).to.deep.equal({ echo: 'hi' });
  });

  it('a bearer token is refused (FORBIDDEN, saying to use a console session or createAgentApiKey); an unknown agent is NOT_FOUND', async () => {
    const ws = await newWorkspace();
    const agentId = await agentWithEndpoint(ws.adminToken);
    const r = await gql(ws.adminToken, TRY_IT, { a: agentId });
    expect(r.errors![0]!.extensions!.code).to.equal('FORBIDDEN');
    expect(r.errors![0]!.message).to.match(/only in a console session.*createAgentApiKey/);
    expect(await h().db('api_keys').where({ agent_id: agentId })).to.have.length(0);
    const cookie = await signIn(ws.adminToken);
    const missing = await viaCookie(cookie, TRY_IT, { a: 'agt_missing' });
    expect(missing.errors![0]!.extensions!.code).to.equal('NOT_FOUND');
  });

  it('a member who cannot see a private agent gets no key for it', async () => {
    const ws = await newWorkspace();
    const agentId = await createAgent(ws.adminToken, { name: 'Private', visibility: 'PRIVATE' });
    const member = await ws.addMember('MEMBER');
    const cookie = await signIn(member.token);
    const r = await viaCookie(cookie, TRY_IT, { a: agentId });
    expect(r.errors![0]!.extensions!.code).to.be.oneOf(['NOT_FOUND', 'FORBIDDEN']);
    expect(await h().db('api_keys').where({ agent_id: agentId })).to.have.length(0);
  });

  it("a new Try-it key replaces the session's earlier one for the same agent, not its key for another agent", async () => {
    const ws = await newWorkspace();
    const a = await agentWithEndpoint(ws.adminToken);
    const b = await agentWithEndpoint(ws.adminToken);
    const cookie = await signIn(ws.adminToken);
    const first = await tryItKey(cookie, a);
    const forB = await tryItKey(cookie, b);
    expect((await call(a, first.key)).status).to.equal(200);
    const second = await tryItKey(cookie, a);
    expect((await call(a, first.key)).status).to.equal(401);
    expect((await call(a, second.key)).status).to.equal(200);
    expect((await call(b, forB.key)).status).to.equal(200);
  });

  it('sign-out revokes the Try-it keys of that session (401 at once), not those of another session', async () => {
    const ws = await newWorkspace();
    const agentId = await agentWithEndpoint(ws.adminToken);
    const one = await signIn(ws.adminToken);
    const other = await signIn(ws.adminToken);
    const k1 = await tryItKey(one, agentId);
    const k2 = await tryItKey(other, agentId);
    // Used once, so that the key's row is in the read cache when the session ends.
    expect((await call(agentId, k1.key)).status).to.equal(200);
    const out = await fetch(`${h().url}/console/session`, {
      method: 'DELETE',
      headers: { origin: origin(), cookie: one },
    });
    expect(out.status).to.equal(204);
    const refused = await call(agentId, k1.key);
    expect(refused.status).to.equal(401);
    expect(refused.body.error).to.match(/revoked/);
    expect((await h().db('api_keys').where({ id: k1.apiKey.id }))[0].revoked_at).to.not.equal(null);
    expect((await call(agentId, k2.key)).status).to.equal(200);
  });

  it('revoking the member token revokes the Try-it keys of the sessions made from it', async () => {
    const ws = await newWorkspace();
    const agentId = await agentWithEndpoint(ws.adminToken);
    const second = await gqlOk(
      ws.adminToken,
      'mutation($m: ID!) { createMemberToken(memberId: $m, name: "second") { id token } }',
      { m: ws.adminId },
    );
    const fromSecond = await signIn(second.createMemberToken.token);
    const fromFirst = await signIn(ws.adminToken);
    const doomed = await tryItKey(fromSecond, agentId);
    const kept = await tryItKey(fromFirst, agentId);
    expect((await call(agentId, doomed.key)).status).to.equal(200);
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { revokeMemberToken(id: $id) }', {
      id: second.createMemberToken.id,
    });
    expect((await call(agentId, doomed.key)).status).to.equal(401);
    expect((await call(agentId, kept.key)).status).to.equal(200);
  });

  describe('the widget preview', () => {
    it('serves a page with the widget tag (attributes escaped), its own CSP, framable only by this origin', async () => {
      const res = await fetch(
        `${h().url}/console/widget-preview/agt_x?title=${encodeURIComponent('Help "desk" <b>')}&position=left&open=true&accent=%23ff0000`,
      );
      expect(res.status).to.equal(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp)
        .to.include("script-src 'self'")
        .and.include("frame-ancestors 'self'")
        .and.not.match(/unsafe-eval|script-src[^;]*unsafe-inline/);
      expect(res.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
      const html = await res.text();
      expect(html).to.include(
        '<script src="/widget.js" data-endpoint="/console/widget-preview/agt_x/chat" data-title="Help &quot;desk&quot; &lt;b&gt;" data-accent-color="#ff0000" data-position="left" data-open="true" async></script>',
      );
      expect(html).to.not.match(/<script(?![^>]*\bsrc=)/);
    });

    it('the console allows framing its own origin only (frame-src), and is itself never framed', async () => {
      const csp = (await fetch(`${h().url}/console`)).headers.get('content-security-policy')!;
      expect(csp).to.include("frame-src 'self'").and.include("frame-ancestors 'none'");
    });

    it('forwards chat to the chat surface with the key of its cookie; without one the surface answers 401', async () => {
      const ws = await newWorkspace();
      const agentId = await agentWithEndpoint(ws.adminToken);
      const cookie = await signIn(ws.adminToken);
      const { key } = await tryItKey(cookie, agentId);
      const url = `${h().url}/console/widget-preview/${agentId}/chat`;
      const none = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(none.status).to.equal(401);
      // A key in the Authorization header is not what the preview forwards: only its cookie counts.
      const bearer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(bearer.status).to.equal(401);
      // No model is configured in this workspace: the chat run fails after the key was accepted (not 401).
      const withKey = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', cookie: `aes_try_it=${key}` },
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(withKey.status).to.not.equal(401);
      // The activity entry is written after the answer.
      let entry: { path: string; request_headers: unknown } | undefined;
      for (let i = 0; i < 50 && !entry; i++) {
        [entry] = await h().db('activity_log').where({ agent_id: agentId, surface: 'WIDGET', status: withKey.status });
        if (!entry) await new Promise((r) => setTimeout(r, 50));
      }
      expect(entry).to.not.equal(undefined);
      expect(entry!.path).to.equal(`/agents/${agentId}/chat`);
      expect(JSON.stringify(entry!.request_headers)).to.not.include(key);
    });
  });
});
