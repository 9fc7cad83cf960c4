import { expect } from 'chai';
import { errorCode, gql, gqlOk, h, newWorkspace } from '../helpers/harness.js';

describe('GraphQL: member tokens', () => {
  it('lists and revokes tokens with immediate effect; members manage only their own', async () => {
    const ws = await newWorkspace();
    const alice = await ws.addMember();
    const bob = await ws.addMember();
    const issued = await gqlOk(
      alice.token,
      `mutation($m: ID!) { createMemberToken(memberId: $m, name: "ci") { id token prefix } }`,
      { m: alice.memberId },
    );
    const { id, token } = issued.createMemberToken;
    expect((await gqlOk(token, '{ viewer { id } }')).viewer.id).to.equal(alice.memberId);

    const listed = await gqlOk(
      alice.token,
      `query($m: ID!) { memberTokens(memberId: $m) { id name prefix last4 revokedAt } }`,
      { m: alice.memberId },
    );
    expect(listed.memberTokens.map((t: any) => t.name)).to.include('ci');
    expect(JSON.stringify(listed)).to.not.contain(token);

    // Bob may neither see nor revoke Alice's tokens; the admin may.
    expect(
      errorCode(await gql(bob.token, `query($m: ID!) { memberTokens(memberId: $m) { id } }`, { m: alice.memberId })),
    ).to.equal('FORBIDDEN');
    expect(errorCode(await gql(bob.token, `mutation($id: ID!) { revokeMemberToken(id: $id) }`, { id }))).to.equal(
      'FORBIDDEN',
    );
    expect((await gqlOk(token, '{ viewer { id } }')).viewer.id).to.equal(alice.memberId);

    expect(
      (await gqlOk(alice.token, `mutation($id: ID!) { revokeMemberToken(id: $id) }`, { id })).revokeMemberToken,
    ).to.equal(true);
    const after = await gql(token, '{ viewer { id } }');
    expect(after.status).to.equal(401);
    expect(errorCode(after)).to.equal('UNAUTHENTICATED');

    const other = await newWorkspace();
    expect(
      errorCode(await gql(other.adminToken, `mutation($id: ID!) { revokeMemberToken(id: $id) }`, { id })),
    ).to.equal('NOT_FOUND');
    const adminIssued = await gqlOk(
      ws.adminToken,
      `mutation($m: ID!) { createMemberToken(memberId: $m) { id token } }`,
      { m: bob.memberId },
    );
    expect(
      (
        await gqlOk(ws.adminToken, `mutation($id: ID!) { revokeMemberToken(id: $id) }`, {
          id: adminIssued.createMemberToken.id,
        })
      ).revokeMemberToken,
    ).to.equal(true);
    expect((await gql(adminIssued.createMemberToken.token, '{ viewer { id } }')).status).to.equal(401);
  });
});

describe('GraphQL: the ADMIN_TOKEN the operator chose is listed by its last 4 characters only', () => {
  const chosen = () => h().config.adminToken!;

  async function listedAdminToken() {
    const viewer = (await gqlOk(chosen(), '{ viewer { id } }')).viewer.id as string;
    const listed = await gqlOk(chosen(), `query($m: ID!) { memberTokens(memberId: $m) { name prefix last4 } }`, {
      m: viewer,
    });
    return { listed, row: listed.memberTokens.find((t: any) => t.name === 'ADMIN_TOKEN') };
  }

  it('shows no prefix and the last 4 characters, so a 16-character token is not mostly told', async () => {
    const { listed, row } = await listedAdminToken();
    expect(row).to.deep.equal({ name: 'ADMIN_TOKEN', prefix: '', last4: chosen().slice(-4) });
    expect(JSON.stringify(listed)).to.not.contain(chosen().slice(0, 5));
  });

  it('a row stored with the old 6-character prefix is stored again without it on the next start', async () => {
    await h()
      .db('member_tokens')
      .where({ name: 'ADMIN_TOKEN' })
      .update({ prefix: chosen().slice(0, 6) });
    await h().service.services.workspace.bootstrap({ adminToken: chosen() });
    const { row } = await listedAdminToken();
    expect(row.prefix).to.equal('');
    expect((await gqlOk(chosen(), '{ viewer { id } }')).viewer.id).to.be.a('string');
  });
});
