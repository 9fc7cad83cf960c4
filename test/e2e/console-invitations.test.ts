import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';
import { tokenOf } from '../helpers/invitations.js';

// Issue 52's invitations in Chromium under the console's CSP: an admin invites an email and copies
// the link; the invitee opens it in a browser of their own, creates their account and lands in the
// workspace, signs out and signs in again with email and password. Then the admin removes them, and
// their open console signs out at its next request; invited again, they sign in to accept.

describe('e2e: the console: invitations and removing a member', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let page: Page;
  let invitee: { context: BrowserContext; page: Page };
  const email = 'ivy@example.com';
  const password = 'ivy has a long password';

  consoleSuite('console_invitations', async (started) => {
    h = started;
    page = h.page;
    await h.signIn();
  });

  const members = async () => {
    await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link', { name: 'Members', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Members', level: 2 }).waitFor();
  };
  const axe = async (p: Page) => expect(await h.axeProblems(p)).to.deep.equal([]);

  it('invite → the link in a fresh browser → create the account → in the workspace → sign out → sign in with email and password', async () => {
    await members();
    await page.getByRole('button', { name: 'Invite someone' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite someone' });
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByLabel(/^Name/).fill('Ivy');
    await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
    await dialog.getByText('Invitation link').waitFor();
    const link = (await dialog.locator('pre, code').first().textContent())!.trim();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page
      .getByRole('table', { name: 'Pending invitations' })
      .getByRole('row', { name: /ivy@example\.com/ })
      .waitFor();

    invitee = await h.newSession();
    const p = invitee.page;
    await p.goto(`${h.svc.url}/console/invitations/${tokenOf(link)}`);
    await p.getByRole('heading', { name: 'Join Default workspace' }).waitFor();
    await p.getByText('Create your account').waitFor();
    expect(await p.getByLabel('Your name').inputValue()).to.equal('Ivy');
    await axe(p);
    await p.locator('input[type=password]').fill('short');
    await p.getByRole('button', { name: 'Create account and join' }).click();
    await p
      .getByRole('alert')
      .getByText(/at least 10 characters/)
      .waitFor();
    await p.locator('input[type=password]').fill(password);
    await p.getByRole('button', { name: 'Create account and join' }).click();
    await p.getByText('Ivy · Member').waitFor();
    expect(new URL(p.url()).pathname).to.equal('/console');

    // The link worked once: opened again, it says so.
    const again = await h.newSession();
    await again.page.goto(`${h.svc.url}/console/invitations/${tokenOf(link)}`);
    await again.page.getByRole('heading', { name: 'This invitation cannot be used' }).waitFor();
    await again.context.close();

    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByRole('heading', { name: /Sign in/ }).waitFor();
    // The email + password form is another part of issue 52: sign in over the page's own origin.
    const res = await p.request.post(`${h.svc.url}/console/session`, { data: { email, password } });
    expect(res.status()).to.equal(204);
    await p.reload();
    await p.getByText('Ivy · Member').waitFor();
  });

  it('removing the member signs their open console out at its next request', async () => {
    // The list as it is now (Ivy joined in another browser).
    await page.reload();
    await page.getByRole('heading', { name: 'Members', level: 2 }).waitFor();
    const row = page.getByRole('table', { name: 'Members' }).getByRole('row', { name: /Ivy/ });
    await row.waitFor();
    await row.getByRole('button', { name: 'Remove Ivy' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove member' });
    await confirm.waitFor();
    await axe(page);
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await row.waitFor({ state: 'detached' });

    const p = invitee.page;
    const before = h.errors.length;
    // A section the invitee's console has not loaded yet: its query goes to the server.
    await p
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link', { name: 'Members', exact: true })
      .click();
    await p.getByRole('heading', { name: /Sign in/ }).waitFor();
    // The refused request (401) is the browser's only complaint.
    const provoked = h.errors.splice(before);
    expect(
      provoked.every((e) => /status of 401/.test(e)),
      provoked.join('\n'),
    ).to.equal(true);
    // Signing in again works (the account stays) but opens no workspace: they belong to none.
    const res = await p.request.post(`${h.svc.url}/console/session`, { data: { email, password } });
    expect(res.status()).to.equal(401);

    // Invited again: the email has an account now, so the page asks for its password, then accepts.
    const { inviteMember } = await h.gql('mutation { inviteMember(input: { email: "ivy@example.com" }) { link } }');
    await p.goto(`${h.svc.url}/console/invitations/${tokenOf(inviteMember.link)}`);
    await p.getByText('Sign in to accept').waitFor();
    await p.locator('input[type=password]').fill(password);
    await p.getByRole('button', { name: 'Sign in and accept' }).click();
    await p.getByText('Ivy · Member').waitFor();
  });
});
