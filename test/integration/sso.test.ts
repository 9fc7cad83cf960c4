import { expect } from 'chai';
import { gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { CookieJar, ssoSignIn } from '../helpers/oidc-provider.js';

// Single sign-on against a real OpenID Connect provider on 127.0.0.1 (oidc-provider): the code flow
// over HTTP with the provider's own login and consent forms, linking by verified email only,
// just-in-time membership, and the workspaces' login settings.

const origin = () => new URL(h().url).origin;
const VIEWER = '{ viewer { role account { email } workspaces { workspace { id } role current } } }';
const SETTINGS = 'mutation($i: WorkspaceSettingsInput!) { updateWorkspaceSettings(input: $i) { id } }';

async function viaCookie(cookie: string, query: string) {
  const res = await fetch(`${h().url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin(), cookie },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string }[] };
}

function sessionOf(jar: CookieJar): string {
  const value = jar.get('aes_session');
  expect(value, 'a console session cookie').to.be.a('string');
  return `aes_session=${value}`;
}

async function emailOf(token: string): Promise<string> {
  return (await gqlOk(token, VIEWER)).viewer.account.email;
}

let n = 0;
const subject = (name: string) => `${name}-${Date.now().toString(36)}-${n++}`;

describe('single sign-on (OpenID Connect)', function () {
  this.timeout(60_000);

  before(async () => {
    await h().oidc.use(`${h().url}/console/sso/callback`);
  });

  it('says in GET /console/session that single sign-on is configured, with its label', async () => {
    const res = await fetch(`${h().url}/console/session`);
    expect(await res.json()).to.deep.equal({ signedIn: false, memberToken: false, sso: true, ssoName: 'Test IdP' });
  });

  it('links to the account of the same verified email, then finds it by its subject', async () => {
    const ws = await newWorkspace();
    const email = await emailOf(ws.adminToken);
    const sub = subject('linked');
    h().oidc.users.set(sub, { email: email.toUpperCase(), email_verified: true, name: 'Linked Person' });
    const first = await ssoSignIn(h().url, sub, { query: `workspace=${ws.workspaceId}&return=/console/agents` });
    expect(first.status, first.body).to.equal(302);
    expect(first.location).to.equal('/console/agents');
    expect(first.jar.get('aes_sso'), 'the transaction cookie is cleared').to.equal(undefined);
    const me = await viaCookie(sessionOf(first.jar), VIEWER);
    expect(me.data.viewer.account.email).to.equal(email);
    expect(me.data.viewer.workspaces.find((w: any) => w.current).workspace.id).to.equal(ws.workspaceId);

    // The provider's email changes (and is no longer verified): the subject still finds the account.
    h().oidc.users.set(sub, { email: 'someone-else@example.test', email_verified: false });
    const again = await ssoSignIn(h().url, sub);
    expect(again.status, again.body).to.equal(302);
    expect((await viaCookie(sessionOf(again.jar), VIEWER)).data.viewer.account.email).to.equal(email);
  });

  it('refuses an unverified email: no account is linked or made', async () => {
    const ws = await newWorkspace();
    const email = await emailOf(ws.adminToken);
    const sub = subject('unverified');
    h().oidc.users.set(sub, { email, email_verified: false });
    const out = await ssoSignIn(h().url, sub);
    expect(out.status).to.equal(401);
    expect(out.body)
      .to.match(/did not confirm your email/)
      .and.to.match(/href="\/console"/);
    expect(out.jar.get('aes_session')).to.equal(undefined);
    expect(await h().db('account_identities').where({ subject: sub }).first()).to.equal(undefined);
  });

  it('refuses a person with no account whom no workspace admits', async () => {
    const sub = subject('stranger');
    h().oidc.users.set(sub, { email: `${sub}@nowhere.example`, email_verified: true });
    const out = await ssoSignIn(h().url, sub);
    expect(out.status).to.equal(401);
    expect(out.body).to.match(/no workspace admits/);
    expect(
      await h()
        .db('accounts')
        .whereRaw('lower(email) = ?', [`${sub}@nowhere.example`])
        .first(),
    ).to.equal(undefined);
  });

  it('refuses an answer whose state does not match, and one without the transaction cookie', async () => {
    const ws = await newWorkspace();
    const sub = subject('state');
    h().oidc.users.set(sub, { email: await emailOf(ws.adminToken), email_verified: true });
    const forged = await ssoSignIn(h().url, sub, { tamper: (u) => u.searchParams.set('state', 'forged-state') });
    expect(forged.status).to.equal(401);
    expect(forged.jar.get('aes_session')).to.equal(undefined);

    // The callback reached without the cookie /start set (another browser): refused, as JSON here.
    const res = await fetch(`${h().url}/console/sso/callback?code=abc&state=xyz`, {
      headers: { accept: 'application/json' },
    });
    expect(res.status).to.equal(401);
    expect(((await res.json()) as { error: string }).error).to.match(/expired .* or was started in another browser/);
  });

  it("answers the provider's error (access_denied) with a page and a link back", async () => {
    const jar = new CookieJar();
    const start = await jar.fetch(`${h().url}/console/sso/start`);
    expect(start.status).to.equal(302);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const q = new URLSearchParams({ error: 'access_denied', state, iss: h().oidc.issuer });
    const res = await jar.fetch(`${h().url}/console/sso/callback?${q}`, { headers: { accept: 'text/html' } });
    expect(res.status).to.equal(401);
    const page = await res.text();
    expect(page)
      .to.match(/cancelled or refused at the provider/)
      .and.to.match(/href="\/console"/);
    expect(res.headers.get('content-security-policy')).to.be.a('string');
  });

  it('refuses a return path outside the console, and a hostile workspace, before the provider', async () => {
    for (const query of ['return=https://evil.example/console', 'return=//evil.example', 'return=/graphql']) {
      const res = await fetch(`${h().url}/console/sso/start?${query}`, { redirect: 'manual' });
      expect(res.status, query).to.equal(400);
    }
    const long = await fetch(`${h().url}/console/sso/start?workspace=${'w'.repeat(500)}`, { redirect: 'manual' });
    expect(long.status).to.equal(400);
    const twice = await fetch(`${h().url}/console/sso/start?workspace=a&workspace=b`, { redirect: 'manual' });
    expect(twice.status).to.equal(400);
  });

  it('answers 503 when the provider cannot be reached, and works again when it is back', async () => {
    const ws = await newWorkspace();
    const sub = subject('down');
    h().oidc.users.set(sub, { email: await emailOf(ws.adminToken), email_verified: true });
    try {
      const out = await ssoSignIn(h().url, sub, { tamper: () => void (h().oidc.down = true) });
      expect(out.status).to.equal(503);
      expect(out.body).to.match(/cannot be reached/);
    } finally {
      h().oidc.down = false;
    }
    expect((await ssoSignIn(h().url, sub)).status).to.equal(302);
  });
});

describe('login settings of a workspace', function () {
  this.timeout(60_000);

  before(async () => {
    await h().oidc.use(`${h().url}/console/sso/callback`);
  });

  it('just-in-time membership: a verified email of an allowed domain joins with the role set', async () => {
    const ws = await newWorkspace();
    const domain = `jit-${Date.now().toString(36)}.example`;
    await gqlOk(ws.adminToken, SETTINGS, {
      i: {
        loginSettings: {
          allowedEmailDomains: [domain.toUpperCase()],
          jitMembership: { enabled: true, role: 'VIEWER' },
        },
      },
    });
    const sub = subject('jit');
    h().oidc.users.set(sub, { email: `newcomer@${domain}`, email_verified: true, name: 'New Comer' });
    const out = await ssoSignIn(h().url, sub);
    expect(out.status, out.body).to.equal(302);
    const me = await viaCookie(sessionOf(out.jar), VIEWER);
    expect(me.data.viewer.role).to.equal('VIEWER');
    expect(me.data.viewer.workspaces.map((w: any) => w.workspace.id)).to.deep.equal([ws.workspaceId]);

    // The same domain, unverified: not admitted.
    const other = subject('jit-unverified');
    h().oidc.users.set(other, { email: `other@${domain}`, email_verified: false });
    expect((await ssoSignIn(h().url, other)).status).to.equal(401);
  });

  it('validates login settings: domains, the role, and JIT only with domains', async () => {
    const ws = await newWorkspace();
    const bad = [
      { jitMembership: { enabled: true } },
      { allowedEmailDomains: ['example.com'], jitMembership: { enabled: true, role: 'ADMIN' } },
      { allowedEmailDomains: ['@example.com'] },
      { allowedEmailDomains: Array.from({ length: 101 }, (_, i) => `d${i}.example`) },
      { ssoRequired: 'yes' },
      { somethingElse: true },
    ];
    for (const loginSettings of bad) {
      const r = await gql(ws.adminToken, SETTINGS, { i: { loginSettings } });
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(loginSettings)).to.equal('BAD_USER_INPUT');
    }
    const read = await gqlOk(ws.adminToken, '{ workspace { settings { loginSettings } } }');
    expect(read.workspace.settings.loginSettings).to.deep.equal({
      ssoRequired: false,
      allowedEmailDomains: [],
      jitMembership: { enabled: false, role: 'MEMBER' },
    });
  });

  it('ssoRequired refuses password and member-token sign-in to the console; bearer tokens and SSO still work', async () => {
    const ws = await newWorkspace();
    const email = await emailOf(ws.adminToken);
    await gqlOk(ws.adminToken, 'mutation($i: SetPasswordInput!) { setPassword(input: $i) }', {
      i: { newPassword: 'correct horse battery' },
    });
    await gqlOk(ws.adminToken, SETTINGS, { i: { loginSettings: { ssoRequired: true } } });
    const post = (body: unknown) =>
      fetch(`${h().url}/console/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: origin() },
        body: JSON.stringify(body),
      });
    expect((await post({ email, password: 'correct horse battery' })).status).to.equal(401);
    const byToken = await post({ token: ws.adminToken });
    expect(byToken.status).to.equal(403);
    expect(((await byToken.json()) as { error: string }).error).to.match(/requires single sign-on/);
    // The API and the CLI keep their member tokens.
    expect((await gqlOk(ws.adminToken, VIEWER)).viewer.role).to.equal('ADMIN');

    const sub = subject('required');
    h().oidc.users.set(sub, { email, email_verified: true });
    const out = await ssoSignIn(h().url, sub, { query: `workspace=${ws.workspaceId}` });
    expect(out.status, out.body).to.equal(302);
    expect((await viaCookie(sessionOf(out.jar), VIEWER)).data.viewer.role).to.equal('ADMIN');
  });

  it('allowed email domains refuse a single sign-on from another domain', async () => {
    const ws = await newWorkspace();
    const email = await emailOf(ws.adminToken);
    await gqlOk(ws.adminToken, SETTINGS, { i: { loginSettings: { allowedEmailDomains: ['corp.example'] } } });
    const sub = subject('domain');
    h().oidc.users.set(sub, { email, email_verified: true });
    const out = await ssoSignIn(h().url, sub, { query: `workspace=${ws.workspaceId}` });
    expect(out.status).to.equal(401);
    expect(out.jar.get('aes_session')).to.equal(undefined);
  });
});
