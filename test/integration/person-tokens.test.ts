import { expect } from 'chai';
import { addMembership } from '../helpers/memberships.js';
import { gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';

// Member tokens scoped to the person (issue 52): a PERSON token acts in the workspace its request
// names in `AES-Workspace` (id or slug), else in its own; a WORKSPACE token only in its own; the
// membership is checked on every request, so removing the person shuts the token out at once.

const VIEWER = '{ viewer { id role workspaces { workspace { id slug } role current } } }';

async function asWorkspace(token: string, workspace: string, query = VIEWER) {
  const res = await fetch(`${h().url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'AES-Workspace': workspace },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as {
    data?: any;
    errors?: { message: string; extensions?: { code?: string; reason?: string } }[];
  };
  return { status: res.status, ...body };
}

describe('member tokens scoped to the person (AES-Workspace)', function () {
  this.timeout(60_000);

  it('a PERSON token acts in any of the person’s workspaces, named by id or slug; the list shows the scope', async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const me = await gqlOk(a.adminToken, '{ viewer { account { email } workspaces { workspace { slug } } } }');
    const slugA: string = me.viewer.workspaces[0].workspace.slug;
    const inB = {
      inviteMember: {
        id: (
          await addMembership(h().service, {
            workspaceId: b.workspaceId,
            email: me.viewer.account.email,
            name: 'Person',
            role: 'VIEWER',
          })
        ).memberId,
      },
    };
    const made = await gqlOk(
      a.adminToken,
      'mutation($m: ID!) { createMemberToken(memberId: $m, name: "laptop", scope: PERSON) { token scope } }',
      { m: a.adminId },
    );
    expect(made.createMemberToken.scope).to.equal('PERSON');
    const person: string = made.createMemberToken.token;
    const list = await gqlOk(a.adminToken, '{ memberTokens(memberId: "' + a.adminId + '") { name scope } }');
    expect(list.memberTokens).to.deep.include.members([
      { name: 'test', scope: 'WORKSPACE' },
      { name: 'laptop', scope: 'PERSON' },
    ]);

    // No header: the workspace the token was made in.
    const own = await gqlOk(person, VIEWER);
    expect(own.viewer).to.include({ id: a.adminId, role: 'ADMIN' });
    const bSlug = (await gqlOk(b.adminToken, '{ workspace { slug } }')).workspace.slug as string;
    for (const named of [bSlug, b.workspaceId, bSlug.toUpperCase(), ` ${bSlug} `]) {
      const r = await asWorkspace(person, named);
      expect(r.status, JSON.stringify(r.errors)).to.equal(200);
      expect(r.data.viewer).to.include({ id: inB.inviteMember.id, role: 'VIEWER' });
      const current = r.data.viewer.workspaces.find((w: any) => w.current);
      expect(current.workspace.id).to.equal(b.workspaceId);
    }
    // The role there is the membership's: a VIEWER changes nothing.
    const write = await asWorkspace(person, bSlug, 'mutation { createAgent(input: { name: "nope" }) { id } }');
    expect(write.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    expect((await asWorkspace(person, slugA)).data.viewer.id).to.equal(a.adminId);
  });

  it('refuses a workspace the person is not in (known or not alike), and one they were removed from', async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const stranger = await newWorkspace();
    const email = (await gqlOk(a.adminToken, '{ viewer { account { email } } }')).viewer.account.email as string;
    const inB = {
      inviteMember: {
        id: (await addMembership(h().service, { workspaceId: b.workspaceId, email, name: 'Person', role: 'MEMBER' }))
          .memberId,
      },
    };
    const person = (
      await gqlOk(a.adminToken, 'mutation($m: ID!) { createMemberToken(memberId: $m, scope: PERSON) { token } }', {
        m: a.adminId,
      })
    ).createMemberToken.token as string;

    const notMine = await asWorkspace(person, stranger.workspaceId);
    expect(notMine.status).to.equal(403);
    expect(notMine.errors?.[0]?.extensions).to.include({ code: 'FORBIDDEN', reason: 'NOT_A_MEMBER' });
    expect(notMine.errors?.[0]?.message).to.contain(`You are not a member of a workspace '${stranger.workspaceId}'`);
    expect(notMine.data).to.equal(undefined);
    const unknown = await asWorkspace(person, 'no-such-workspace');
    expect(unknown.status).to.equal(403);
    expect(unknown.errors?.[0]?.message).to.contain("You are not a member of a workspace 'no-such-workspace'");
    const long = await asWorkspace(person, 'x'.repeat(101));
    expect(long.status).to.equal(403);
    expect(long.errors?.[0]?.message).to.contain('too long');

    expect((await asWorkspace(person, b.workspaceId)).status).to.equal(200);
    // Removed from B: the same token no longer gets in there, and still works in its own workspace.
    await h().service.store.repos.members.delete(inB.inviteMember.id);
    const removed = await asWorkspace(person, b.workspaceId);
    expect(removed.status).to.equal(403);
    expect(removed.errors?.[0]?.extensions?.reason).to.equal('NOT_A_MEMBER');
    expect((await gqlOk(person, VIEWER)).viewer.id).to.equal(a.adminId);
  });

  it('a WORKSPACE token acts only in its own workspace; a PERSON token is made only for yourself', async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const email = (await gqlOk(a.adminToken, '{ viewer { account { email } } }')).viewer.account.email as string;
    await addMembership(h().service, { workspaceId: b.workspaceId, email, name: 'Person', role: 'ADMIN' });
    const refused = await asWorkspace(a.adminToken, b.workspaceId);
    expect(refused.status).to.equal(403);
    expect(refused.errors?.[0]?.extensions?.reason).to.equal('WORKSPACE_TOKEN');
    expect(refused.errors?.[0]?.message).to.contain('scope: PERSON');
    const ownSlug = (await gqlOk(a.adminToken, '{ workspace { slug } }')).workspace.slug as string;
    expect((await asWorkspace(a.adminToken, ownSlug)).data.viewer.id).to.equal(a.adminId);
    expect((await asWorkspace(a.adminToken, '')).data.viewer.id).to.equal(a.adminId);

    const member = await a.addMember('MEMBER');
    const forOther = await gql(
      a.adminToken,
      'mutation($m: ID!) { createMemberToken(memberId: $m, scope: PERSON) { token } }',
      { m: member.memberId },
    );
    expect(forOther.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    expect(forOther.errors?.[0]?.message).to.contain('only by its person');
    const plain = await gqlOk(a.adminToken, 'mutation($m: ID!) { createMemberToken(memberId: $m) { scope } }', {
      m: member.memberId,
    });
    expect(plain.createMemberToken.scope).to.equal('WORKSPACE');
    const badScope = await gql(
      a.adminToken,
      'mutation($m: ID!) { createMemberToken(memberId: $m, scope: ALL) { scope } }',
      {
        m: a.adminId,
      },
    );
    expect(badScope.errors?.[0]?.message).to.contain('WORKSPACE, PERSON');
  });
});
