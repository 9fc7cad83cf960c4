import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';
import { inviteNewPerson, sessionCookieOf } from '../helpers/invitations.js';

// Admins change members' roles and remove members (issue 52). Removal ends at once everything the
// person held in that workspace: console sessions, member tokens, "Try it" keys, OAuth grants.

const origin = () => new URL(h().url).origin;

async function viaCookie(cookie: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${h().url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: origin(), cookie },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: res.status,
    ...((await res.json()) as { data?: any; errors?: { extensions?: { code?: string } }[] }),
  };
}

const REMOVE = 'mutation($m: ID!) { removeMember(memberId: $m) }';
const SET_ROLE = 'mutation($m: ID!, $r: Role!) { setMemberRole(memberId: $m, role: $r) { id role } }';
const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;

describe('removing members and their roles', function () {
  this.timeout(60_000);

  it('removing a member ends their sessions, tokens, Try-it keys and OAuth grants there, and nothing of theirs elsewhere', async () => {
    const ws = await newWorkspace();
    const agentId = await createAgent(ws.adminToken, { name: 'Shared agent' });
    const adminGql = (q: string, v?: Record<string, unknown>) => gqlOk(ws.adminToken, q, v);
    const email = unique('leaver');
    const person = await inviteNewPerson(adminGql, h().url, { email, name: 'Lee', role: 'MEMBER' });
    // The same person in another workspace keeps that membership.
    const other = await newWorkspace();
    const there = await inviteNewPerson((q, v) => gqlOk(other.adminToken, q, v), h().url, {
      email: unique('other'),
    });
    // A member token, and a console session opened with it.
    const { createMemberToken } = await adminGql(
      'mutation($m: ID!) { createMemberToken(memberId: $m, name: "cli") { id token } }',
      {
        m: person.memberId,
      },
    );
    const tokenSession = await fetch(`${h().url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: createMemberToken.token }),
    });
    const tokenCookie = sessionCookieOf(tokenSession);
    // "Try it" keys made in both sessions.
    const TRY = 'mutation($a: ID!) { createTryItKey(agentId: $a) { key apiKey { id } } }';
    const keys: string[] = [];
    for (const cookie of [person.cookie, tokenCookie]) {
      const made = await viaCookie(cookie, TRY, { a: agentId });
      expect(made.errors, JSON.stringify(made.errors)).to.equal(undefined);
      keys.push(made.data.createTryItKey.apiKey.id);
    }
    // An OAuth grant they approved, with a token record of its authorization server.
    const { repos } = h().service.store;
    const grantId = `grant-${Math.random().toString(36).slice(2)}`;
    await repos.mcpGrants.insert({
      id: grantId,
      workspaceId: ws.workspaceId,
      agentId,
      memberId: person.memberId,
      memberTokenId: null,
      clientId: 'https://client.example/metadata',
      clientName: 'Client',
      redirectHost: 'client.example',
      createdAt: new Date(),
      lastUsedAt: null,
    });
    await h()
      .db('oauth_records')
      .insert({ model: 'AccessToken', id: `at-${grantId}`, payload: '{}', grant_id: grantId });

    expect((await gqlOk(ws.adminToken, REMOVE, { m: person.memberId })).removeMember).to.equal(true);

    for (const cookie of [person.cookie, tokenCookie])
      expect((await viaCookie(cookie, '{ viewer { id } }')).status).to.equal(401);
    expect((await gql(createMemberToken.token, '{ viewer { id } }')).status).to.equal(401);
    for (const id of keys) expect((await repos.apiKeys.get(id))!.revokedAt).to.not.equal(null);
    expect(await repos.mcpGrants.get(grantId)).to.equal(null);
    expect(await h().db('oauth_records').where({ grant_id: grantId })).to.deep.equal([]);
    const members = (await gqlOk(ws.adminToken, '{ workspace { members { id } } }')).workspace.members;
    expect(members.map((m: { id: string }) => m.id)).to.not.include(person.memberId);
    // Their account stays (they may be invited again); the other workspace's member is untouched.
    expect(await repos.accounts.findByEmail(email)).to.not.equal(null);
    expect((await viaCookie(there.cookie, '{ viewer { id } }')).data.viewer.id).to.equal(there.memberId);
    expect(errorCode(await gql(ws.adminToken, REMOVE, { m: person.memberId }))).to.equal('NOT_FOUND');
  });

  it('refuses removing yourself, the last admin, another workspace’s member, and non-admins', async () => {
    const ws = await newWorkspace();
    const member = await ws.addMember('MEMBER');
    const self = await gql(ws.adminToken, REMOVE, { m: ws.adminId });
    expect(errorCode(self)).to.equal('FORBIDDEN');
    expect(self.errors![0]!.message).to.match(/cannot remove yourself/);
    expect(errorCode(await gql(member.token, REMOVE, { m: ws.adminId }))).to.equal('FORBIDDEN');
    expect(errorCode(await gql(member.token, SET_ROLE, { m: member.memberId, r: 'ADMIN' }))).to.equal('FORBIDDEN');
    const other = await newWorkspace();
    expect(errorCode(await gql(other.adminToken, REMOVE, { m: member.memberId }))).to.equal('NOT_FOUND');
    expect(errorCode(await gql(other.adminToken, SET_ROLE, { m: member.memberId, r: 'VIEWER' }))).to.equal('NOT_FOUND');
    expect(errorCode(await gql(ws.adminToken, SET_ROLE, { m: member.memberId, r: 'OWNER' }))).to.equal(
      'BAD_USER_INPUT',
    );

    // The last admin keeps the role; with a second admin, the first may step down.
    const demote = await gql(ws.adminToken, SET_ROLE, { m: ws.adminId, r: 'MEMBER' });
    expect(errorCode(demote)).to.equal('CONFLICT');
    expect(demote.errors![0]!.message).to.match(/last admin/);
    const promoted = await gqlOk(ws.adminToken, SET_ROLE, { m: member.memberId, r: 'ADMIN' });
    expect(promoted.setMemberRole).to.deep.equal({ id: member.memberId, role: 'ADMIN' });
    // The new role holds at the next request of their token.
    expect((await gqlOk(member.token, '{ invitations { id } }')).invitations).to.deep.equal([]);
    await gqlOk(ws.adminToken, SET_ROLE, { m: ws.adminId, r: 'VIEWER' });
    expect(errorCode(await gql(ws.adminToken, REMOVE, { m: member.memberId }))).to.equal('FORBIDDEN');
    expect(errorCode(await gql(member.token, SET_ROLE, { m: member.memberId, r: 'MEMBER' }))).to.equal('CONFLICT');
    // The last admin cannot be removed by anyone.
    expect(errorCode(await gql(member.token, REMOVE, { m: member.memberId }))).to.equal('FORBIDDEN');
  });

  it('two admins demoting each other at once leave one ADMIN', async () => {
    const ws = await newWorkspace();
    const second = await ws.addMember('ADMIN');
    const results = await Promise.all([
      gql(ws.adminToken, SET_ROLE, { m: second.memberId, r: 'MEMBER' }),
      gql(second.token, SET_ROLE, { m: ws.adminId, r: 'MEMBER' }),
    ]);
    // One succeeds; the other is refused: as the last admin (CONFLICT), or, when it was
    // authenticated after the first committed, as no longer an admin (FORBIDDEN).
    const codes = results.map(errorCode);
    expect(codes.filter((c) => c === undefined)).to.have.length(1);
    expect(codes.find((c) => c !== undefined)).to.be.oneOf(['CONFLICT', 'FORBIDDEN']);
    const roles = (await h().db('members').where({ workspace_id: ws.workspaceId })).map(
      (m: { role: string }) => m.role,
    );
    expect(roles.sort()).to.deep.equal(['ADMIN', 'MEMBER']);
  });
});
