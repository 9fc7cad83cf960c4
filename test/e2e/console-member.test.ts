import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';
import { inviteNewPerson } from '../helpers/invitations.js';

// Issue 33's must-show: a MEMBER session sees no workspace-key, member or secret creation, and the
// server refuses those mutations from it; a revoked member token ends its sessions. An admin
// invites a member and issues their token (GraphQL); the member signs in in a browser session of
// their own, under the console's CSP, and walks the workspace sections.

describe('e2e: the console: a MEMBER session', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let gql: ConsoleHarness['gql'];
  let member: { context: BrowserContext; page: Page };
  let memberToken: { id: string; token: string };
  let adminId: string;
  let memberId: string;

  consoleSuite('console_member', async (started) => {
    h = started;
    ({ gql } = h);
    adminId = (await gql('{ viewer { id } }')).viewer.id;
    memberId = (await inviteNewPerson(gql, h.svc.url, { email: 'mia@example.com', name: 'Mia' })).memberId;
    expect((await gql('{ workspace { members { id role } } }')).workspace.members).to.deep.include({
      id: memberId,
      role: 'MEMBER',
    });
    const { createMemberToken } = await gql(
      `mutation { createMemberToken(memberId: "${memberId}", name: "console") { id token } }`,
    );
    memberToken = createMemberToken;
    // Something in each list, so that the member sees rows and no creation.
    await gql(
      'mutation { createSecret(kind: MODEL_API_KEY, name: "provider-key", value: "sk-member-must-not-see-this") { id } }',
    );
    await gql('mutation { createWorkspaceApiKey(name: "reporting", scopes: [WORKSPACE_READ]) { key } }');
    await gql('mutation { createTeam(name: "Support", dailyCreditLimit: 10) { id } }');
    member = await h.newSession();
    await h.signIn(memberToken.token, member.page);
  });

  const open = async (name: string) => {
    const page = member.page;
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, level: 2 }).waitFor();
  };
  const axe = async () => expect(await h.axeProblems(member.page)).to.deep.equal([]);

  /** A GraphQL request as the member's browser would send it: the session cookie, JSON, the service's own Origin. */
  const asMember = async (query: string, variables: Record<string, unknown> = {}) => {
    const cookie = (await member.context.cookies()).find((c) => c.name === 'aes_session');
    expect(cookie, 'the member has a session cookie').to.not.equal(undefined);
    const res = await fetch(`${h.svc.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: new URL(h.svc.url).origin,
        cookie: `aes_session=${cookie!.value}`,
      },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] },
    };
  };

  it('the member is signed in as a member', async () => {
    await member.page.getByText('Mia · Member').waitFor();
    const { status, body } = await asMember('{ viewer { name role } }');
    expect(status).to.equal(200);
    expect(body.data).to.deep.equal({ viewer: { name: 'Mia', role: 'MEMBER' } });
  });

  it('API Keys: no workspace key creation, and a notice instead of the admin-only list', async () => {
    await open('API Keys');
    const page = member.page;
    await page.getByRole('note').getByText('Admins only').waitFor();
    expect(await page.getByRole('button', { name: /Create workspace key/ }).count()).to.equal(0);
    expect(await page.getByText('reporting').count()).to.equal(0);
    await axe();
  });

  it('Members: no invitation and no token creation for another member (their own tokens only, as the API allows)', async () => {
    await open('Members');
    const page = member.page;
    await page.getByRole('row', { name: /Mia/ }).waitFor();
    expect(await page.getByRole('button', { name: /Invite member/ }).count()).to.equal(0);
    const adminRow = page.getByRole('row', { name: /Admin/ }).filter({ hasNotText: 'Mia' });
    await adminRow.first().waitFor();
    expect(await adminRow.getByRole('button').count()).to.equal(0);
    expect(await page.getByRole('button', { name: /Tokens of/ }).count()).to.equal(1);
    await page.getByRole('button', { name: 'Tokens of Mia' }).click();
    const panel = page.getByRole('region', { name: 'Your tokens' });
    await panel.getByRole('row', { name: /console.*This workspace/ }).waitFor();
    await axe();
    // Her own token for all her workspaces (issue 52): the command line names one per request.
    await panel.getByLabel('Token name').fill('laptop');
    await panel.getByRole('combobox', { name: 'Acts in' }).click();
    await page.getByRole('option', { name: 'All your workspaces' }).click();
    await panel.getByRole('button', { name: 'Create token' }).click();
    await page.getByTestId('shown-once').getByRole('button', { name: 'Done' }).click();
    await panel.getByRole('row', { name: /laptop.*All your workspaces/ }).waitFor();
    const { memberTokens } = await gql(`{ memberTokens(memberId: "${memberId}") { name scope } }`);
    expect(memberTokens).to.deep.include({ name: 'laptop', scope: 'PERSON' });
  });

  it('Secrets: names and kinds only, no secret creation or deletion', async () => {
    await open('Secrets');
    const page = member.page;
    await page.getByRole('row', { name: /provider-key.*Model API key/ }).waitFor();
    expect(await page.getByRole('button', { name: /Add secret|Delete/ }).count()).to.equal(0);
    expect(await page.content()).to.not.include('sk-member-must-not-see-this');
    await axe();
  });

  it('Models, teams and settings: read only for a member', async () => {
    const page = member.page;
    await open('Models');
    await page.getByRole('row', { name: /house-model/ }).waitFor();
    expect(await page.getByRole('button', { name: /Configure model|Test|Edit|Remove/ }).count()).to.equal(0);
    await axe();
    await open('Teams and limits');
    await page.getByRole('row', { name: /Support/ }).waitFor();
    expect(await page.getByRole('button', { name: /Create team|Set limit|Save limit/ }).count()).to.equal(0);
    await axe();
    await open('Settings');
    await page.getByText('Only workspace admins change the settings').waitFor();
    expect(await page.getByRole('button', { name: 'Save settings' }).count()).to.equal(0);
    await axe();
  });

  it("the server refuses the admin-only mutations from the member's session (FORBIDDEN)", async () => {
    const refused: [string, string, Record<string, unknown>?][] = [
      ['createWorkspaceApiKey', 'mutation { createWorkspaceApiKey(name: "mine", scopes: [WORKSPACE_READ]) { key } }'],
      ['inviteMember', 'mutation { inviteMember(input: { email: "eve@example.com" }) { link } }'],
      [
        'createMemberToken',
        'mutation($m: ID!) { createMemberToken(memberId: $m, name: "stolen") { token } }',
        { m: adminId },
      ],
      ['createSecret', 'mutation { createSecret(kind: GENERIC, name: "mine", value: "v") { id } }'],
      ['workspace.apiKeys', '{ workspace { apiKeys { id } } }'],
      ['memberTokens', 'query($m: ID!) { memberTokens(memberId: $m) { id } }', { m: adminId }],
    ];
    for (const [what, query, variables] of refused) {
      const { status, body } = await asMember(query, variables);
      expect(status, what).to.equal(200);
      expect(
        body.errors?.map((e) => e.extensions?.code),
        what,
      ).to.deep.equal(['FORBIDDEN']);
      expect(body.errors![0]!.message, what).to.equal('Only workspace admins may do this');
    }
    // Nothing was made.
    const { workspace, secrets } = await gql('{ workspace { members { email } apiKeys { name } } secrets { name } }');
    expect(workspace.members.map((m: { email: string }) => m.email)).to.not.include('eve@example.com');
    expect(workspace.apiKeys.map((k: { name: string }) => k.name)).to.deep.equal(['reporting']);
    expect(secrets.map((s: { name: string }) => s.name)).to.deep.equal(['provider-key']);
  });

  it("revoking the member's token (by the admin) ends the session: the next request gets 401 and the console shows the sign-in page", async () => {
    expect((await gql(`mutation { revokeMemberToken(id: "${memberToken.id}") }`)).revokeMemberToken).to.equal(true);
    const { status, body } = await asMember('{ viewer { id } }');
    expect(status).to.equal(401);
    expect(body.errors![0]!.extensions?.code).to.equal('UNAUTHENTICATED');

    // The console, still open, finds out with its next request (a section it has not loaded yet).
    const page = member.page;
    const before = h.errors.length;
    await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link', { name: 'Agents', exact: true })
      .click();
    await page.getByLabel('Email').waitFor();
    await axe();
    // The refused request is the browser's only complaint, and it is the 401 provoked here.
    const provoked = h.errors.splice(before);
    expect(provoked.length).to.be.at.least(1);
    expect(
      provoked.every((e) => /status of 401/.test(e) && e.includes('/graphql')),
      provoked.join('\n'),
    ).to.equal(true);

    // Signing in again with the revoked token is refused.
    await page.getByRole('button', { name: 'Use a member token instead' }).click();
    await page.getByLabel('Token').fill(memberToken.token);
    await page.getByRole('button', { name: 'Sign in with the token' }).click();
    await page.getByText(/revoked|not recognised/i).waitFor();
    const more = h.errors.splice(before);
    expect(
      more.every((e) => /status of 401/.test(e) && e.includes('/console/session')),
      more.join('\n'),
    ).to.equal(true);
  });

  it('made no console error and no CSP violation', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
