import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';
import { addMembership } from '../helpers/memberships.js';
import { graphqlClient } from '../helpers/process.js';

// Issue 52 in the console: people with accounts. The first start's admin (signed in with the
// printed token) is pointed to the account page and sets an email and a password there; a person
// signs in with email and password; the header's switcher moves a person between their two
// workspaces (a reload: nothing of the old workspace stays on screen); a VIEWER is offered no
// creation; the operator lists the deployment's workspaces and creates one. One Chromium.

const VERA = { email: 'vera@example.com', password: 'vera-password-123' };
const OPERATOR = { email: 'ops@example.com', password: 'operator-pass-123' };

describe('e2e: the console: accounts, workspaces, roles', function () {
  this.timeout(240_000);
  let h: ConsoleHarness;
  let page: Page;
  let vera: { context: BrowserContext; page: Page };
  let clubAgentId: string;

  consoleSuite('console_accounts', async (started) => {
    h = started;
    page = h.page;
    const { gql } = h;
    const defaultId = (await gql('{ workspace { id } }')).workspace.id as string;
    await gql('mutation { createAgent(input: { name: "Default bot" }) { id } }');
    // Vera: a MEMBER of the default workspace (her password set through GraphQL with a member
    // token), and a VIEWER of a second workspace the operator creates.
    const service = h.svc.service;
    const inDefault = await addMembership(service, {
      workspaceId: defaultId,
      email: VERA.email,
      name: 'Vera',
      role: 'MEMBER',
    });
    const { createMemberToken } = await gql(
      `mutation { createMemberToken(memberId: "${inDefault.memberId}", name: "setup") { token } }`,
    );
    await graphqlClient(() => h.svc.url, createMemberToken.token)(
      'mutation($i: SetPasswordInput!) { setPassword(input: $i) }',
      { i: { newPassword: VERA.password } },
    );
    const { createWorkspace } = await gql('mutation { createWorkspace(input: { name: "Viewers Club" }) { id } }');
    await addMembership(service, { workspaceId: createWorkspace.id, email: VERA.email, name: 'Vera', role: 'VIEWER' });
    // An agent of the second workspace, made by its admin (the operator, who created it).
    const [admin] = await service.store.repos.members.listByWorkspace(createWorkspace.id);
    clubAgentId = (
      await service.services.agents.create(
        { kind: 'member', memberId: admin!.id, workspaceId: createWorkspace.id, role: 'ADMIN' },
        { name: 'Club bot' },
      )
    ).id;
    vera = await h.newSession();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await page.reload();
  });

  const axe = async (p = page) => expect(await h.axeProblems(p)).to.deep.equal([]);
  const header = (p: Page) => p.getByRole('banner');
  /** Signs in on the sign-in page with an email and a password. */
  const signInWithPassword = async (p: Page, who: { email: string; password: string }) => {
    await p.goto(`${h.svc.url}/console`);
    await p.getByLabel('Email').fill(who.email);
    await p.getByLabel(/^Password/).fill(who.password);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  };
  /** Chooses a workspace in the header's switcher and waits for the console to load there. */
  const switchTo = async (p: Page, name: string, menuOpen = false) => {
    if (!menuOpen)
      await header(p)
        .getByRole('button', { name: /Switch workspace/ })
        .click();
    await p.getByRole('menuitem', { name }).click();
    await header(p)
      .getByRole('button', { name: new RegExp(`^Workspace: ${name}\\.`) })
      .waitFor();
    await p.getByRole('heading', { name: 'Agents', level: 2 }).waitFor();
  };

  it('the first start’s admin, signed in with the token: the workspace without a switcher, a notice to set an email and a password', async () => {
    await h.signIn();
    const workspace = page.getByTestId('workspace-name');
    await workspace.getByText('Default workspace').waitFor();
    await workspace.getByText('signed in with a member token').waitFor();
    // The operator belongs to two workspaces, but a token's session stays in the token's one.
    expect(await page.getByRole('button', { name: /Switch workspace/ }).count()).to.equal(0);
    await page.getByTestId('first-start-notice').waitFor();
    await axe();
  });

  it('the account page sets the email and a password; then the notice is gone and the email is fixed', async () => {
    await page.getByRole('link', { name: /Set your email and a password/ }).click();
    await page.getByRole('heading', { name: 'Your account', level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/console/account');
    const profile = page.getByRole('form', { name: 'Your profile' });
    await profile.getByLabel('Email').fill(OPERATOR.email);
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await profile.getByText('Saved', { exact: true }).waitFor();
    // The email is fixed once the account is read back with it (that read follows the save).
    await profile.getByLabel('Email').and(page.locator('[readonly]')).waitFor();

    const password = page.getByRole('form', { name: 'Set a password' });
    await password.getByLabel('New password').fill('too-short');
    await password.getByRole('button', { name: 'Set password' }).click();
    await password.getByText('At least 10 characters', { exact: true }).first().waitFor();
    await password.getByLabel('New password').fill(OPERATOR.password);
    await password.getByRole('button', { name: 'Set password' }).click();
    // With a password set, changing it asks for the current one.
    await page.getByRole('form', { name: 'Change your password' }).getByLabel('Current password').waitFor();
    const workspaces = page.getByRole('table', { name: 'Your workspaces' });
    await workspaces.getByRole('row', { name: /Default workspace.*default.*Admin/ }).waitFor();
    await workspaces.getByRole('row', { name: /Viewers Club.*Admin/ }).waitFor();
    await axe();

    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('row', { name: /Default bot/ }).waitFor();
    expect(await page.getByTestId('first-start-notice').count()).to.equal(0);
  });

  it('signs in with email and password (a wrong one refused in the server’s words); the single sign-on link when configured', async () => {
    const p = vera.page;
    const before = h.errors.length;
    await signInWithPassword(p, { email: VERA.email, password: 'not-her-password' });
    await p.getByText('Wrong email or password').waitFor();
    // The refused sign-in is the only failed request.
    const refused = h.errors.splice(before);
    expect(
      refused.every((e) => /status of 401/.test(e) && e.includes('/console/session')),
      refused.join('\n'),
    ).to.equal(true);
    // No single sign-on configured: no button for it.
    expect(await p.getByRole('link', { name: /Sign in with/ }).count()).to.equal(0);
    // With single sign-on configured, a link to its start that comes back to this console page.
    await p.route('**/console/session', (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({ json: { signedIn: false, sso: true, ssoName: 'Dex' } })
        : route.fallback(),
    );
    await p.goto(`${h.svc.url}/console/workspace/members`);
    const sso = p.getByRole('link', { name: 'Sign in with Dex' });
    expect(await sso.getAttribute('href')).to.equal('/console/sso/start?return=%2Fconsole%2Fworkspace%2Fmembers');
    await p.unroute('**/console/session');
    await signInWithPassword(p, VERA);
    await p.getByRole('row', { name: /Default bot/ }).waitFor();
    await header(p).getByText('Vera · Member').waitFor();
    await p.getByRole('button', { name: 'Create agent' }).waitFor();
    // A person who does not operate the deployment has no deployment page in the menu.
    await header(p)
      .getByRole('button', { name: /your account menu/ })
      .click();
    await p.getByRole('menuitem', { name: 'Your account' }).waitFor();
    expect(await p.getByRole('menuitem', { name: 'Deployment' }).count()).to.equal(0);
    await p.keyboard.press('Escape');
    await axe(p);
  });

  it('switches workspace: a VIEWER there sees none of the other’s agents, no create buttons, read-only settings and a badge', async () => {
    const p = vera.page;
    await header(p)
      .getByRole('button', { name: /Switch workspace/ })
      .click();
    await p.getByRole('menuitem', { name: /Viewers Club/ }).waitFor();
    await axe(p);
    await switchTo(p, 'Viewers Club', true);
    await p.getByRole('row', { name: /Club bot/ }).waitFor();
    expect(await p.getByText('Default bot').count()).to.equal(0);
    expect(await p.getByRole('button', { name: 'Create agent' }).count()).to.equal(0);
    await header(p).getByText('read-only').waitFor();
    await header(p).getByText('Vera · Viewer').waitFor();
    await axe(p);
    // The agent's settings are there to read, not to change; no key creation.
    await p.getByRole('link', { name: 'Club bot' }).click();
    const settings = p.getByRole('form', { name: 'Settings' });
    await settings.getByLabel('Name').first().waitFor();
    expect(await settings.getByLabel('Name').first().isDisabled()).to.equal(true);
    expect(await settings.getByRole('button', { name: 'Save' }).count()).to.equal(0);
    await axe(p);
    await p.goto(`${h.svc.url}/console/agents/${clubAgentId}/keys`);
    await p.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await p.getByRole('button', { name: 'Create key' }).count()).to.equal(0);
    await p.goto(`${h.svc.url}/console`);
    // The last workspace is remembered: a new sign-in opens it.
    await p.getByRole('button', { name: 'Sign out' }).click();
    await signInWithPassword(p, VERA);
    await header(p)
      .getByRole('button', { name: /^Workspace: Viewers Club\./ })
      .waitFor();
    await switchTo(p, 'Default workspace');
    await p.getByRole('row', { name: /Default bot/ }).waitFor();
    expect(await header(p).getByText('read-only').count()).to.equal(0);
  });

  it('the operator lists the deployment’s workspaces, creates one and switches to it', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInWithPassword(page, OPERATOR);
    await page.getByRole('heading', { name: 'Agents', level: 2 }).waitFor();
    await header(page)
      .getByRole('button', { name: /your account menu/ })
      .click();
    await page.getByRole('menuitem', { name: 'Your account' }).waitFor();
    await axe();
    await page.getByRole('menuitem', { name: 'Deployment' }).click();
    await page.getByRole('heading', { name: 'Deployment', level: 2 }).waitFor();
    const table = page.getByRole('table', { name: 'Workspaces' });
    await table.getByRole('row', { name: /Default workspace\s*default\s*2\s*1\s*0/ }).waitFor();
    await table.getByRole('row', { name: /Viewers Club\s*viewers-club\s*2\s*1/ }).waitFor();
    await axe();

    await page.getByRole('button', { name: 'New workspace' }).click();
    const dialog = page.getByRole('dialog', { name: 'New workspace' });
    await dialog.getByLabel('Name').fill('Acme Support');
    await dialog.getByLabel('Slug').fill('www');
    await dialog.getByRole('button', { name: 'Create workspace' }).click();
    await dialog.getByText(/reserved/).waitFor();
    await dialog.getByLabel('Slug').fill('acme');
    await dialog.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText(/Created Acme Support \(acme\)/).waitFor();
    await table.getByRole('row', { name: /Acme Support\s*acme\s*1\s*0/ }).waitFor();
    await axe();
    await page.getByRole('button', { name: 'Switch to Acme Support' }).click();
    await header(page)
      .getByRole('button', { name: /^Workspace: Acme Support\./ })
      .waitFor();
    await page.getByText('No agents yet').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/console');
  });

  it('no console error and no CSP violation on any page', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
