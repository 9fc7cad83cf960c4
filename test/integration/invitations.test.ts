import { expect } from 'chai';
import { errorCode, gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { acceptAsNewPerson, INVITEE_PASSWORD, sessionCookieOf, tokenOf } from '../helpers/invitations.js';
import { MovableClock } from '../helpers/movable-clock.js';
import { INVITATION_TTL_MS, InvitationService } from '../../src/domain/accounts/invitation.service.js';
import type { EmailSender } from '../../src/domain/channels/channel.ports.js';
import type { OutboundEmail } from '../../src/domain/email/reply.js';

// Invitations (issue 52): an admin invites an email; the single-use link expires after 7 days; the
// invitee creates their account from it, or signs in as the invited email and accepts.

const INVITE =
  'mutation($i: InviteMemberInput!) { inviteMember(input: $i) { link emailed invitation { id email role name expiresAt } } }';
const origin = () => new URL(h().url).origin;

async function preview(token: string): Promise<Response> {
  return fetch(`${h().url}/console/invitation?token=${encodeURIComponent(token)}`);
}

async function viaCookie(cookie: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${h().url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin(), cookie },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;

describe('invitations', function () {
  this.timeout(60_000);

  it('invites an email; the link names the workspace and role, creates the account once and opens a session', async () => {
    const ws = await newWorkspace();
    const email = unique('new');
    const made = await gqlOk(ws.adminToken, INVITE, {
      i: { email: ` ${email.toUpperCase()} `, role: 'VIEWER', name: 'Nia' },
    });
    expect(made.inviteMember.emailed).to.equal(false);
    expect(made.inviteMember.invitation).to.include({ email, role: 'VIEWER', name: 'Nia' });
    expect(made.inviteMember.link).to.match(/^https?:\/\/[^/]+\/console\/invitations\/inv_[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(made.inviteMember.link);
    // Only the hash is stored.
    const row = await h().db('invitations').where({ id: made.inviteMember.invitation.id }).first();
    expect(JSON.stringify(row)).to.not.include(token);
    const listed = await gqlOk(ws.adminToken, '{ invitations { id email } }');
    expect(listed.invitations).to.deep.equal([{ id: made.inviteMember.invitation.id, email }]);

    const seen = await preview(token);
    expect(seen.status).to.equal(200);
    expect(await seen.json()).to.include({
      workspace: 'Test workspace',
      email,
      role: 'VIEWER',
      expired: false,
      hasAccount: false,
    });

    // Bad input: 400 with the field; a short password is refused before anything is written.
    expect((await acceptAsNewPerson(h().url, { token, password: 'short' })).status).to.equal(400);
    expect((await acceptAsNewPerson(h().url, { token, name: 'x'.repeat(201) })).status).to.equal(400);
    expect((await acceptAsNewPerson(h().url, { token: 'inv_nope' })).status).to.equal(400);
    expect((await acceptAsNewPerson(h().url, { token, extra: 1 })).status).to.equal(400);
    expect((await preview('x'.repeat(5000))).status).to.equal(400);
    const foreign = await fetch(`${h().url}/console/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ token, name: 'Nia', password: INVITEE_PASSWORD }),
    });
    expect(foreign.status).to.equal(403);

    const res = await acceptAsNewPerson(h().url, { token, name: 'Nia Newcomer' });
    expect(res.status).to.equal(204);
    const me = await viaCookie(
      sessionCookieOf(res),
      '{ workspace { id } viewer { role name account { email hasPassword } } }',
    );
    expect(me.data).to.deep.equal({
      workspace: { id: ws.workspaceId },
      viewer: { role: 'VIEWER', name: 'Nia Newcomer', account: { email, hasPassword: true } },
    });
    // The new account signs in with its password.
    const signIn = await fetch(`${h().url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: INVITEE_PASSWORD }),
    });
    expect(signIn.status).to.equal(204);

    // Single use: the link now reads as unknown, and accepting again is refused.
    expect((await preview(token)).status).to.equal(404);
    const again = await acceptAsNewPerson(h().url, { token });
    expect(again.status).to.equal(404);
    expect(((await again.json()) as { error: string }).error).to.match(/used already/);
    expect((await gqlOk(ws.adminToken, '{ invitations { id } }')).invitations).to.deep.equal([]);
    // Now a member: inviting the email again is a conflict.
    const dup = await gql(ws.adminToken, INVITE, { i: { email: email.toUpperCase() } });
    expect(errorCode(dup)).to.equal('CONFLICT');
  });

  it('is for admins; bad input is refused; inviting again replaces the pending link; revoke ends it', async () => {
    const ws = await newWorkspace();
    const member = await ws.addMember('MEMBER');
    const viewer = await ws.addMember('VIEWER');
    for (const token of [member.token, viewer.token]) {
      expect(errorCode(await gql(token, INVITE, { i: { email: unique('x') } }))).to.equal('FORBIDDEN');
      expect(errorCode(await gql(token, '{ invitations { id } }'))).to.equal('FORBIDDEN');
    }
    for (const i of [
      { email: 'not-an-email' },
      { email: `${'a'.repeat(320)}@x.test` },
      { email: unique('n'), name: '' },
    ])
      expect(errorCode(await gql(ws.adminToken, INVITE, { i })), JSON.stringify(i)).to.equal('BAD_USER_INPUT');

    const email = unique('again');
    const first = await gqlOk(ws.adminToken, INVITE, { i: { email } });
    const second = await gqlOk(ws.adminToken, INVITE, { i: { email, role: 'ADMIN' } });
    expect((await preview(tokenOf(first.inviteMember.link))).status).to.equal(404);
    expect((await preview(tokenOf(second.inviteMember.link))).status).to.equal(200);
    const pending = (await gqlOk(ws.adminToken, '{ invitations { id role } }')).invitations;
    expect(pending).to.deep.equal([{ id: second.inviteMember.invitation.id, role: 'ADMIN' }]);

    // Another workspace's admin neither sees nor revokes it.
    const other = await newWorkspace();
    expect((await gqlOk(other.adminToken, '{ invitations { id } }')).invitations).to.deep.equal([]);
    const id = second.inviteMember.invitation.id;
    const REVOKE = 'mutation($id: ID!) { revokeInvitation(id: $id) }';
    expect(errorCode(await gql(other.adminToken, REVOKE, { id }))).to.equal('NOT_FOUND');
    expect(errorCode(await gql(member.token, REVOKE, { id }))).to.equal('FORBIDDEN');
    expect((await gqlOk(ws.adminToken, REVOKE, { id })).revokeInvitation).to.equal(true);
    expect(errorCode(await gql(ws.adminToken, REVOKE, { id }))).to.equal('NOT_FOUND');
    expect((await acceptAsNewPerson(h().url, { token: tokenOf(second.inviteMember.link) })).status).to.equal(404);
  });

  it('an existing account signs in and accepts; another email is refused, naming the one invited', async () => {
    const ws = await newWorkspace();
    const elsewhere = await newWorkspace();
    const { viewer } = await gqlOk(elsewhere.adminToken, '{ viewer { account { email } } }');
    const email: string = viewer.account.email;
    const made = await gqlOk(ws.adminToken, INVITE, { i: { email, role: 'MEMBER' } });
    const token = tokenOf(made.inviteMember.link);
    expect(await (await preview(token)).json()).to.include({ hasAccount: true });
    // Holding the link never signs anyone in as the existing account.
    const taken = await acceptAsNewPerson(h().url, { token });
    expect(taken.status).to.equal(409);
    expect(taken.headers.get('set-cookie')).to.equal(null);

    const stranger = await newWorkspace();
    const ACCEPT = 'mutation($t: String!) { acceptInvitation(token: $t) { workspace { id } memberId role current } }';
    const wrong = await gql(stranger.adminToken, ACCEPT, { t: token });
    expect(errorCode(wrong)).to.equal('FORBIDDEN');
    expect(wrong.errors![0]!.message).to.include(`This invitation is for ${email}`);
    expect(errorCode(await gql(elsewhere.adminToken, ACCEPT, { t: 'inv_short' }))).to.equal('BAD_USER_INPUT');

    const ok = await gqlOk(elsewhere.adminToken, ACCEPT, { t: token });
    expect(ok.acceptInvitation).to.deep.include({ workspace: { id: ws.workspaceId }, role: 'MEMBER', current: false });
    const { viewer: v2 } = await gqlOk(elsewhere.adminToken, '{ viewer { workspaces { workspace { id } role } } }');
    expect(v2.workspaces).to.deep.include({ workspace: { id: ws.workspaceId }, role: 'MEMBER' });
    expect(errorCode(await gql(elsewhere.adminToken, ACCEPT, { t: token }))).to.equal('NOT_FOUND');
  });

  it("accepting with the invited account's password (no name) joins that account and opens the workspace", async () => {
    const ws = await newWorkspace();
    const mine = await newWorkspace();
    await gqlOk(mine.adminToken, 'mutation($i: SetPasswordInput!) { setPassword(input: $i) }', {
      i: { newPassword: INVITEE_PASSWORD },
    });
    const { viewer } = await gqlOk(mine.adminToken, '{ viewer { account { email } } }');
    const made = await gqlOk(ws.adminToken, INVITE, { i: { email: viewer.account.email } });
    const token = tokenOf(made.inviteMember.link);
    const wrong = await acceptAsNewPerson(h().url, { token, name: undefined, password: 'not the password' });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('set-cookie')).to.equal(null);
    const res = await acceptAsNewPerson(h().url, { token, name: undefined });
    expect(res.status).to.equal(204);
    const me = await viaCookie(sessionCookieOf(res), '{ workspace { id } viewer { role } }');
    expect(me.data).to.deep.equal({ workspace: { id: ws.workspaceId }, viewer: { role: 'MEMBER' } });
    expect((await acceptAsNewPerson(h().url, { token, name: undefined })).status).to.equal(404);
  });

  it('expires after 7 days (movable clock), and is emailed when a smarthost is configured', async () => {
    const ws = await newWorkspace();
    const clock = new MovableClock(new Date('2027-04-12T10:00:00Z'));
    const sent: OutboundEmail[] = [];
    const email: EmailSender = { configured: true, send: async (m) => (sent.push(m), { ok: true, answer: null }) };
    const hasher = {
      hash: async (p: string) => `plain:${p}`,
      verify: async (hash: string, p: string) => hash === `plain:${p}`,
    };
    const invitations = new InvitationService(h().service.store, clock, hasher, h().service.services.accounts, {
      baseUrl: 'https://agents.example.com/',
      email,
      mailDomain: 'mail.example.com',
    });
    const admin = { kind: 'member', memberId: ws.adminId, workspaceId: ws.workspaceId, role: 'ADMIN' } as const;
    const to = unique('later');
    const made = await invitations.invite(admin, { email: to });
    expect(made.emailed).to.equal(true);
    expect(made.link).to.match(/^https:\/\/agents\.example\.com\/console\/invitations\/inv_/);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({
      from: 'no-reply@mail.example.com',
      to: [to],
      subject: 'You are invited to Test workspace',
    });
    expect(sent[0]!.text).to.include(made.link);
    expect(made.invitation.expiresAt.getTime() - clock.now().getTime()).to.equal(INVITATION_TTL_MS);

    const token = tokenOf(made.link);
    clock.advance(INVITATION_TTL_MS - 1);
    expect((await invitations.preview(token)).expired).to.equal(false);
    clock.advance(1);
    expect((await invitations.preview(token)).expired).to.equal(true);
    expect(await invitations.pending(admin)).to.deep.equal([]);
    let refused: unknown;
    await invitations
      .acceptWithNewAccount({ token, name: 'Late', password: INVITEE_PASSWORD })
      .catch((e) => (refused = e));
    expect(refused).to.have.property('code', 'INVALID');
    expect((refused as Error).message).to.match(/expired on 2027-04-19T10:00:00.000Z/);
    expect(await h().service.store.repos.accounts.findByEmail(to)).to.equal(null);

    // A smarthost that refuses leaves the link to copy.
    const refusing = new InvitationService(h().service.store, clock, hasher, h().service.services.accounts, {
      baseUrl: 'https://agents.example.com',
      email: { configured: true, send: async () => ({ ok: false, retry: true, error: 'down', answer: null }) },
      mailDomain: '',
    });
    expect((await refusing.invite(admin, { email: unique('down') })).emailed).to.equal(false);
  });
});
