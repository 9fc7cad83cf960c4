import { expect } from 'chai';
import { startConsoleHarness, type ConsoleHarness } from '../helpers/console-browser.js';
import { startTestOidc, type TestOidc } from '../helpers/oidc-provider.js';

// Single sign-on in a browser (issue 52): the console's SSO start sends the person to a real OpenID
// Connect provider on 127.0.0.1, they sign in and consent on its pages, and land back in the console
// signed in. (The console's own SSO button is another part of the issue: this starts at its URL.)

declare const window: any;

describe('e2e: the console: single sign-on', function () {
  this.timeout(180_000);
  let oidc: TestOidc | undefined;
  let h: ConsoleHarness | null = null;

  before(async function () {
    oidc = await startTestOidc();
    h = await startConsoleHarness('console_sso', { env: oidc.env });
    if (!h) return this.skip();
    await oidc.use(`${h.svc.url}/console/sso/callback`);
    const { viewer } = await h.gql('{ viewer { account { email } } }');
    oidc.users.set('admin-at-idp', { email: viewer.account.email, email_verified: true, name: 'The Admin' });
  });

  after(async () => {
    await h?.stop();
    await oidc?.stop();
  });

  it('signs in at the provider and lands in the console, signed in', async () => {
    const { page, svc } = h!;
    // Signed out, the console offers the provider's button beside the password form.
    await page.goto(`${svc.url}/console/agents`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    // The provider's own pages: its login form, then its consent.
    await page.locator('input[name="login"]').fill('admin-at-idp');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${svc.url}/console/agents`);
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    const session = await page.evaluate(() => window.fetch('/console/session').then((r: any) => r.json()));
    expect(session).to.deep.equal({ signedIn: true, memberToken: false, sso: true, ssoName: 'Test IdP' });
    // The console's own page stays clean (the provider's pages are not this service's).
    expect(h!.errors.filter((e) => e.includes(`${svc.url}/console`))).to.deep.equal([]);
    expect(await h!.axeProblems()).to.deep.equal([]);
  });
});
