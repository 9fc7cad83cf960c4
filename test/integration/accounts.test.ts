import { expect } from 'chai';
import { gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { tokenOf } from '../helpers/invitations.js';

// People with accounts (issue 52): a password sign-in opens a console session in one of the person's
// workspaces, the switcher moves it, the operator creates workspaces and sees them all, a VIEWER
// reads and changes nothing.

const origin = () => new URL(h().url).origin;

async function signIn(body: unknown): Promise<Response> {
  return fetch(`${h().url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin() },
    body: JSON.stringify(body),
  });
}

function cookieOf(res: Response): string {
  const m = /^(aes_session=[^;]+);/.exec(res.headers.get('set-cookie') ?? '');
  expect(m, `status ${res.status}`).to.not.equal(null);
  return m![1]!;
}

async function viaCookie(cookie: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${h().url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin(), cookie },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

const VIEWER = '{ viewer { id role account { email hasPassword } workspaces { workspace { id slug } role current } } }';

describe('accounts and workspaces', function () {
  this.timeout(60_000);

  it('a member sets a password, signs in with email and password, and switches between their workspaces', async () => {
    const ws = await newWorkspace();
    const me = await gqlOk(ws.adminToken, VIEWER);
    const email: string = me.viewer.account.email;
    expect(me.viewer.account.hasPassword).to.equal(false);
    await gqlOk(ws.adminToken, 'mutation($i: SetPasswordInput!) { setPassword(input: $i) }', {
      i: { newPassword: 'correct horse battery' },
    });
    // A second workspace with the same person as its admin (made by the deployment's operator).
    const other = await newWorkspace();
    const invited = await gqlOk(
      other.adminToken,
      'mutation($i: InviteMemberInput!) { inviteMember(input: $i) { link invitation { role } } }',
      { i: { email: email.toUpperCase(), role: 'VIEWER' } },
    );
    expect(invited.inviteMember.invitation.role).to.equal('VIEWER');
    // The person accepts it, signed in as themself.
    const accepted = await gqlOk(
      ws.adminToken,
      'mutation($t: String!) { acceptInvitation(token: $t) { memberId role } }',
      {
        t: tokenOf(invited.inviteMember.link),
      },
    );
    expect(accepted.acceptInvitation.role).to.equal('VIEWER');
    const added = { inviteMember: { id: accepted.acceptInvitation.memberId } };

    expect((await signIn({ email, password: 'wrong password!' })).status).to.equal(401);
    const res = await signIn({ email: ` ${email.toUpperCase()} `, password: 'correct horse battery' });
    expect(res.status).to.equal(204);
    const cookie = cookieOf(res);
    const first = await viaCookie(cookie, VIEWER);
    expect(first.data.viewer.id).to.equal(ws.adminId);
    expect(first.data.viewer.workspaces.map((m: any) => [m.role, m.current])).to.deep.equal([
      ['ADMIN', true],
      ['VIEWER', false],
    ]);
    const target = first.data.viewer.workspaces[1].workspace.slug;
    const switched = await viaCookie(cookie, 'mutation($w: String!) { switchWorkspace(workspace: $w) { id role } }', {
      w: target,
    });
    expect(switched.data.switchWorkspace).to.deep.equal({ id: added.inviteMember.id, role: 'VIEWER' });
    // The same session now acts in the other workspace, read-only.
    const now = await viaCookie(cookie, '{ workspace { id } viewer { role } }');
    expect(now.data).to.deep.equal({ workspace: { id: other.workspaceId }, viewer: { role: 'VIEWER' } });
    const refused = await viaCookie(cookie, 'mutation { createAgent(input: { name: "x" }) { id } }');
    expect(refused.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    // The next sign-in opens the workspace used last.
    const again = cookieOf(await signIn({ email, password: 'correct horse battery' }));
    expect((await viaCookie(again, '{ workspace { id } }')).data.workspace.id).to.equal(other.workspaceId);
    // A workspace the person is not in is not found; a member-token session cannot switch.
    const stranger = await newWorkspace();
    const notMine = await viaCookie(cookie, 'mutation($w: String!) { switchWorkspace(workspace: $w) { id } }', {
      w: stranger.workspaceId,
    });
    expect(notMine.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    const tokenSession = cookieOf(await signIn({ token: ws.adminToken }));
    const fixed = await viaCookie(tokenSession, 'mutation($w: String!) { switchWorkspace(workspace: $w) { id } }', {
      w: target,
    });
    expect(fixed.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    // GET /console/session tells the console which session stays in its token's workspace (no switcher).
    const info = async (c: string) => (await fetch(`${h().url}/console/session`, { headers: { cookie: c } })).json();
    expect(await info(tokenSession)).to.include({ signedIn: true, memberToken: true });
    expect(await info(again)).to.include({ signedIn: true, memberToken: false });
  });

  it('refuses bad sign-in input with 400 and wrong passwords with the same 401 as an unknown email', async () => {
    for (const body of [
      { email: 'a@b.c' },
      { email: 'x'.repeat(400), password: 'p' },
      { password: 'p' },
      'str',
      null,
    ]) {
      const res = await signIn(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
    }
    const unknown = await signIn({ email: 'nobody@example.test', password: 'whatever password' });
    expect(unknown.status).to.equal(401);
    expect(((await unknown.json()) as { error: string }).error).to.equal('Wrong email or password');
  });

  it('locks an account after ten wrong passwords in a row', async () => {
    const ws = await newWorkspace();
    await gqlOk(ws.adminToken, 'mutation($i: SetPasswordInput!) { setPassword(input: $i) }', {
      i: { newPassword: 'a long enough password' },
    });
    const { viewer } = await gqlOk(ws.adminToken, '{ viewer { account { email } } }');
    for (let i = 0; i < 10; i++)
      expect((await signIn({ email: viewer.account.email, password: `wrong ${i} password` })).status).to.equal(401);
    const locked = await signIn({ email: viewer.account.email, password: 'a long enough password' });
    expect(locked.status).to.equal(401);
    expect(((await locked.json()) as { error: string }).error).to.match(/locked until/);
  });

  it('setPassword checks the current password once one is set, and the length', async () => {
    const ws = await newWorkspace();
    const set = (i: unknown) => gql(ws.adminToken, 'mutation($i: SetPasswordInput!) { setPassword(input: $i) }', { i });
    expect((await set({ newPassword: 'short' })).errors?.[0]?.extensions?.field).to.equal('input.newPassword');
    expect((await set({ newPassword: 'x'.repeat(257) })).errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    expect((await set({ newPassword: 'first password' })).data?.setPassword).to.equal(true);
    expect((await set({ newPassword: 'second password' })).errors?.[0]?.extensions?.field).to.equal(
      'input.currentPassword',
    );
    expect(
      (await set({ currentPassword: 'first password', newPassword: 'second password' })).data?.setPassword,
    ).to.equal(true);
  });

  it('the operator creates workspaces and lists them all; anyone else is refused', async () => {
    const ws = await newWorkspace();
    const member = await ws.addMember('ADMIN');
    const refused = await gql(member.token, 'mutation { createWorkspace(input: { name: "Nope" }) { id } }');
    expect(refused.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    expect((await gql(member.token, '{ workspaces { id } }')).errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    // The first start's admin is the deployment's first person: its operator.
    const op = h().config.adminToken!;
    const made = await gqlOk(op, 'mutation { createWorkspace(input: { name: "Acme Support" }) { id slug name } }');
    expect(made.createWorkspace.slug).to.match(/^acme-support(-\d+)?$/);
    const again = await gqlOk(op, 'mutation { createWorkspace(input: { name: "Acme Support" }) { slug } }');
    expect(again.createWorkspace.slug).to.not.equal(made.createWorkspace.slug);
    const taken = await gql(op, 'mutation($s: String) { createWorkspace(input: { name: "X", slug: $s }) { id } }', {
      s: made.createWorkspace.slug,
    });
    expect(taken.errors?.[0]?.extensions?.code).to.equal('CONFLICT');
    const reserved = await gql(op, 'mutation { createWorkspace(input: { name: "X", slug: "www" }) { id } }');
    expect(reserved.errors?.[0]?.extensions?.field).to.equal('input.slug');
    const list = await gqlOk(op, '{ workspaces { id slug members agents creditsToday } }');
    const row = list.workspaces.find((w: any) => w.id === made.createWorkspace.id);
    expect(row).to.deep.include({ members: 1, agents: 0, creditsToday: 0 });
    const mine = await gqlOk(op, '{ viewer { workspaces { workspace { id } role } } }');
    expect(mine.viewer.workspaces).to.deep.include({ workspace: { id: made.createWorkspace.id }, role: 'ADMIN' });
  });

  it("another member's account and workspaces cannot be read through the members list", async () => {
    const ws = await newWorkspace();
    await ws.addMember('MEMBER');
    const r = await gql(ws.adminToken, '{ workspace { members { id workspaces { role } } } }');
    expect(r.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
  });
});
