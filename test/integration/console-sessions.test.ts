import { expect } from 'chai';
import { ConsoleSessionService, SESSION_IDLE_MS } from '../../src/domain/console/session.service.js';
import { DomainError } from '../../src/domain/errors.js';
import { gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { MovableClock } from '../helpers/movable-clock.js';

// Console sign-in over HTTP: a member token exchanged for an HttpOnly, SameSite=Strict cookie that
// /graphql accepts only under its CSRF rules (POST, JSON, this service's Origin); sign-out, a
// revoked member token and 12 idle hours end the session.

const origin = () => new URL(h().url).origin;

async function signIn(token: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${h().url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin(), ...headers },
    body: JSON.stringify({ token }),
  });
}

/** The `name=value` part of the response's session cookie. */
function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  const m = /^(aes_session=[^;]+);/.exec(set);
  expect(m, set).to.not.equal(null);
  return m![1]!;
}

async function viaCookie(
  cookie: string,
  init: { headers?: Record<string, string>; method?: string; body?: string } = {},
) {
  const res = await fetch(`${h().url}/graphql`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', origin: origin(), cookie, ...init.headers },
    body: init.method === 'GET' ? undefined : (init.body ?? JSON.stringify({ query: '{ viewer { id role } }' })),
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] },
  };
}

describe('console sessions', function () {
  this.timeout(30_000);

  it('signs in with a member token: 204 and an HttpOnly, SameSite=Strict cookie on / (not Secure on http), which GraphQL accepts', async () => {
    const ws = await newWorkspace();
    const res = await signIn(ws.adminToken);
    expect(res.status).to.equal(204);
    const set = res.headers.get('set-cookie')!;
    expect(set).to.match(/^aes_session=[A-Za-z0-9_-]{43}; /);
    expect(set).to.include('HttpOnly').and.include('SameSite=Strict').and.include('Path=/').and.not.include('Secure');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const r = await viaCookie(cookieOf(res));
    expect(r.status).to.equal(200);
    expect(r.body.data.viewer).to.deep.equal({ id: ws.adminId, role: 'ADMIN' });
  });

  it('GET /console/session tells the console whether its cookie names a live session (200 either way)', async () => {
    const ws = await newWorkspace();
    const cookie = cookieOf(await signIn(ws.adminToken));
    const state = async (headers: Record<string, string>) => {
      const res = await fetch(`${h().url}/console/session`, { headers });
      expect(res.status).to.equal(200);
      return ((await res.json()) as { signedIn: boolean }).signedIn;
    };
    expect(await state({ cookie })).to.equal(true);
    expect(await state({})).to.equal(false);
    expect(await state({ cookie: 'aes_session=forged' })).to.equal(false);
  });

  it('stores only the hash of the session value', async () => {
    const ws = await newWorkspace();
    const value = cookieOf(await signIn(ws.adminToken)).split('=')[1]!;
    const rows = await h().db('console_sessions').where({ member_id: ws.adminId });
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).to.not.include(value);
    expect(rows[0].session_hash).to.match(/^[0-9a-f]{64}$/);
  });

  it('a bad token is a 401 with {"error"}; a missing one a 400; a body that is not JSON a 415', async () => {
    const bad = await signIn('not-a-token-of-this-service');
    expect(bad.status).to.equal(401);
    expect(bad.headers.get('set-cookie')).to.equal(null);
    expect(((await bad.json()) as { error: string }).error).to.match(/not recognised.*sign in with the admin token/);
    const missing = await fetch(`${h().url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).to.equal(400);
    expect(((await missing.json()) as { error: string }).error).to.match(/token/);
    const form = await fetch(`${h().url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x',
    });
    expect(form.status).to.equal(415);
  });

  it('a sign-in from another origin is refused (403)', async () => {
    const ws = await newWorkspace();
    const res = await signIn(ws.adminToken, { origin: 'https://evil.example' });
    expect(res.status).to.equal(403);
    expect(res.headers.get('set-cookie')).to.equal(null);
  });

  it('GraphQL refuses the cookie without JSON, from another origin, without an Origin header, and on GET (403, saying why)', async () => {
    const ws = await newWorkspace();
    const cookie = cookieOf(await signIn(ws.adminToken));
    const crossOrigin = await viaCookie(cookie, { headers: { origin: 'https://evil.example' } });
    expect(crossOrigin.status).to.equal(403);
    expect(crossOrigin.body.errors![0]!.extensions!.code).to.equal('FORBIDDEN');
    expect(crossOrigin.body.errors![0]!.message).to.match(
      /Origin https:\/\/evil\.example is not this service's origin/,
    );
    expect(crossOrigin.body.data ?? null).to.equal(null);

    const noOrigin = await viaCookie(cookie, { headers: { origin: '' } });
    expect(noOrigin.status).to.equal(403);
    expect(noOrigin.body.errors![0]!.message).to.match(/no Origin header/);

    // A JSON-ish type a form cannot send is still not application/json.
    const notJson = await viaCookie(cookie, { headers: { 'content-type': 'application/graphql-response+json' } });
    expect(notJson.status).to.equal(403);
    expect(notJson.body.errors![0]!.message).to.match(/Content-Type: application\/json/);

    // A simple form post never reaches GraphQL at all.
    const form = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: origin(), cookie },
      body: '{"query":"{ viewer { id } }"}',
    });
    expect(form.status).to.equal(400);

    const get = await fetch(`${h().url}/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, {
      headers: { 'apollo-require-preflight': 'true', origin: origin(), cookie },
    });
    expect(get.status).to.equal(403);
  });

  it('an Authorization header wins over the cookie (and needs no Origin)', async () => {
    const ws = await newWorkspace();
    const other = await ws.addMember('MEMBER');
    const cookie = cookieOf(await signIn(ws.adminToken));
    const res = await fetch(`${h().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, authorization: `Bearer ${other.token}` },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    expect(((await res.json()) as any).data.viewer.id).to.equal(other.memberId);
  });

  it('sign-out: 204, the cookie cleared, and the old cookie gets 401 on /graphql', async () => {
    const ws = await newWorkspace();
    const cookie = cookieOf(await signIn(ws.adminToken));
    const out = await fetch(`${h().url}/console/session`, { method: 'DELETE', headers: { origin: origin(), cookie } });
    expect(out.status).to.equal(204);
    expect(out.headers.get('set-cookie')).to.match(/^aes_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);
    const after = await viaCookie(cookie);
    expect(after.status).to.equal(401);
    expect(after.body.errors![0]!.extensions!.code).to.equal('UNAUTHENTICATED');
    expect(after.body.errors![0]!.message).to.match(/session has ended.*sign in again/);
  });

  it('sign-out from another origin is refused and the session lives on', async () => {
    const ws = await newWorkspace();
    const cookie = cookieOf(await signIn(ws.adminToken));
    const out = await fetch(`${h().url}/console/session`, {
      method: 'DELETE',
      headers: { origin: 'https://evil.example', cookie },
    });
    expect(out.status).to.equal(403);
    expect((await viaCookie(cookie)).status).to.equal(200);
  });

  it("revoking the member token ends the sessions made from it, not the member's other sessions", async () => {
    const ws = await newWorkspace();
    const second = await gqlOk(
      ws.adminToken,
      'mutation($m: ID!) { createMemberToken(memberId: $m, name: "second") { id token } }',
      { m: ws.adminId },
    );
    const fromFirst = cookieOf(await signIn(ws.adminToken));
    const fromSecond = cookieOf(await signIn(second.createMemberToken.token));
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { revokeMemberToken(id: $id) }', {
      id: second.createMemberToken.id,
    });
    expect((await viaCookie(fromSecond)).status).to.equal(401);
    expect((await viaCookie(fromFirst)).status).to.equal(200);
    const [row] = await h().db('console_sessions').where({ token_id: second.createMemberToken.id });
    expect(row.revoked_at).to.not.equal(null);
  });

  it('a session whose token was revoked by other means (no session revoked with it) is refused on its next use', async () => {
    const ws = await newWorkspace();
    const cookie = cookieOf(await signIn(ws.adminToken));
    await h()
      .db('member_tokens')
      .whereIn('id', h().db('console_sessions').select('token_id').where({ member_id: ws.adminId }))
      .update({ revoked_at: new Date() });
    expect((await viaCookie(cookie)).status).to.equal(401);
  });

  it('a session unused for 12 hours is refused; one in use stays alive', async () => {
    const ws = await newWorkspace();
    const clock = new MovableClock(new Date('2027-03-01T08:00:00Z'));
    const sessions = new ConsoleSessionService(h().service.store, clock, h().service.services.accounts);
    const idle = await sessions.signIn({ token: ws.adminToken });
    const busy = await sessions.signIn({ token: ws.adminToken });
    clock.advance(SESSION_IDLE_MS - 60_000);
    expect((await sessions.authenticate(busy.sessionValue)).kind).to.equal('member');
    clock.advance(2 * 60_000);
    const err = await sessions.authenticate(idle.sessionValue).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(DomainError);
    expect((err as DomainError).code).to.equal('UNAUTHENTICATED');
    expect(await sessions.authenticate(busy.sessionValue)).to.include({ kind: 'member', memberId: ws.adminId });
  });

  it('housekeeping deletes sessions 12 hours after they ended (idle or signed out), not before', async () => {
    const ws = await newWorkspace();
    // Back-dated, so that the prune can reach no other test's sessions.
    const clock = new MovableClock(new Date(Date.now() - 30 * 24 * 3_600_000));
    const sessions = new ConsoleSessionService(h().service.store, clock, h().service.services.accounts);
    const idle = await sessions.signIn({ token: ws.adminToken });
    const out = await sessions.signIn({ token: ws.adminToken });
    const rows = async () =>
      (await h().db('console_sessions').where({ member_id: ws.adminId }).count({ n: '*' }))[0]!.n;
    clock.advance(SESSION_IDLE_MS / 2);
    await sessions.authenticate(out.sessionValue);
    await sessions.signOut(out.sessionValue);
    expect(await sessions.prune()).to.equal(0);
    clock.advance(SESSION_IDLE_MS / 2 + 1);
    expect(await sessions.prune()).to.equal(1); // the idle one
    expect(Number(await rows())).to.equal(1);
    clock.advance(SESSION_IDLE_MS / 2);
    expect(await sessions.prune()).to.equal(1); // the signed-out one
    expect(Number(await rows())).to.equal(0);
    expect(idle.sessionValue).to.not.equal(out.sessionValue);
  });
});
