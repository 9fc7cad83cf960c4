import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';
import { acceptAsNewPerson, tokenOf } from '../helpers/invitations.js';
import { startReceiver } from '../helpers/event-receiver.js';
import { Webhook } from 'standardwebhooks';

// The console's Workspace sections and the Overview tab's team, capabilities and guardrails, in
// Chromium under the console's CSP, signed in as the admin: members and their tokens (shown once,
// revoked after a confirmation), workspace keys with scopes (shown once, then prefix and last
// four), secrets (the value never comes back), models (configured against the fake model server,
// tested: answer and latency; whether one accepts images), teams and limits, settings (each group
// explained, the hosted-platform ones marked, flags as switches, a JSON
// mistake caught before sending).
// axe-core on every section (1280×800, and some at 390×844); no console error, no CSP violation.

describe('e2e: the console: workspace sections', function () {
  this.timeout(240_000);
  let h: ConsoleHarness;
  let page: Page;
  let gql: ConsoleHarness['gql'];

  consoleSuite('console_workspace', async (started) => {
    h = started;
    ({ page, gql } = h);
    await h.signIn();
  });

  afterEach(async function () {
    // A failed test may leave a dialog open: the next one starts from a fresh page.
    if (this.currentTest?.state === 'failed') await page.reload();
  });

  const section = async (name: string) => {
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, level: 2 }).waitFor();
  };
  const axe = async () => expect(await h.axeProblems()).to.deep.equal([]);
  const shownOnce = async () =>
    (await page.getByTestId('shown-once').locator('pre, code').first().textContent())!.trim();

  it('Members: invites someone (the field error first, then the link to send), creates a token shown once, revokes it after a confirmation', async () => {
    await section('Members');
    await page.getByRole('row', { name: /Admin/ }).first().waitFor();
    await axe();

    await page.getByRole('button', { name: 'Invite someone' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite someone' });
    await dialog.waitFor();
    await axe();
    await dialog.getByLabel('Email').fill('not an email');
    await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
    await dialog.getByText('Must be an email address').waitFor();
    expect(await dialog.getByLabel('Email').getAttribute('aria-invalid')).to.equal('true');
    await dialog.getByLabel('Email').fill('dana@example.com');
    await dialog.getByLabel(/^Name/).fill('Dana');
    await dialog.getByRole('button', { name: 'Invite', exact: true }).click();
    // No smarthost here: the link to send is shown once, then the invitation waits in the list.
    await dialog.getByText('Invitation link').waitFor();
    const link = (await dialog.locator('pre, code').first().textContent())!.trim();
    expect(link).to.match(/\/console\/invitations\/inv_/);
    await axe();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page
      .getByRole('table', { name: 'Pending invitations' })
      .getByRole('row', { name: /dana@example\.com/ })
      .waitFor();
    // Dana accepts (over HTTP; the invitation page has its own test) and is a member.
    expect((await acceptAsNewPerson(h.svc.url, { token: tokenOf(link), name: 'Dana' })).status).to.equal(204);
    await page.reload();
    await page
      .getByRole('table', { name: 'Members' })
      .getByRole('row', { name: /Dana.*dana@example\.com/ })
      .waitFor();

    await page.getByRole('button', { name: 'Tokens of Dana' }).click();
    const panel = page.getByRole('region', { name: 'Tokens of Dana' });
    await panel.getByText('No tokens').waitFor();
    await panel.getByLabel('Token name').fill('laptop');
    await panel.getByRole('button', { name: 'Create token' }).click();
    await page.getByTestId('shown-once').waitFor();
    const token = await shownOnce();
    expect(token).to.match(/^mt_/);
    await page.getByTestId('shown-once').getByRole('button', { name: 'Copy' }).waitFor();
    await axe();
    // The token works: it signs in (checked over HTTP, not in this browser).
    const signIn = await fetch(`${h.svc.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(signIn.status).to.equal(204);

    await page.getByTestId('shown-once').getByRole('button', { name: 'Done' }).click();
    const row = panel.getByRole('row', { name: /laptop/ });
    await row.waitFor();
    expect(await row.textContent()).to.include(`…${token.slice(-4)}`);
    expect(await page.content()).to.not.include(token);

    await row.getByRole('button', { name: 'Revoke token laptop' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke token' });
    await confirm.waitFor();
    await axe();
    await confirm.getByRole('button', { name: 'Revoke token' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await panel.getByRole('row', { name: /laptop.*Revoked/ }).waitFor();
    const again = await fetch(`${h.svc.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(again.status).to.equal(401);
  });

  it('API Keys: a workspace key with its scope is shown once, then listed by prefix and last four, and revoked after a confirmation', async () => {
    await section('API Keys');
    await page.getByText('No workspace keys').waitFor();
    await axe();
    await page.getByRole('button', { name: 'Create workspace key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create workspace key' });
    await dialog.waitFor();
    await axe();
    await dialog.getByLabel('Name').fill('reporting');
    await dialog.getByRole('checkbox', { name: 'Workspace read' }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const key = await shownOnce();
    expect(key).to.match(/^wk_/);
    const row = page.getByRole('row', { name: /reporting/ });
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text)
      .to.include('Workspace read')
      .and.include(`…${key.slice(-4)}`)
      .and.not.include(key);
    await page.getByTestId('shown-once').getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).to.not.include(key);
    const { workspace } = await gql('{ workspace { apiKeys { name scopes revokedAt } } }');
    expect(workspace.apiKeys).to.deep.equal([{ name: 'reporting', scopes: ['WORKSPACE_READ'], revokedAt: null }]);

    await row.getByRole('button', { name: 'Revoke key reporting' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke workspace key' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'hidden' });
    // Revoked keys wait behind their switch.
    await page.getByText('No keys to show').waitFor();
    await page.getByRole('checkbox', { name: 'Show revoked (1)' }).check();
    await page.getByRole('row', { name: /reporting.*Revoked/ }).waitFor();
  });

  it('Secrets: a secret is added with a password input; its value never appears again, in the page or in GraphQL', async () => {
    const VALUE = 'sk-very-secret-value-7f3a9c';
    await section('Secrets');
    await page.getByText('No secrets yet').waitFor();
    await axe();
    await page.getByRole('button', { name: 'Add secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add secret' });
    await dialog.waitFor();
    await axe();
    expect(await dialog.getByLabel('Value').getAttribute('type')).to.equal('password');
    await dialog.getByLabel('Name').fill('bad name!');
    await dialog.getByLabel('Value').fill(VALUE);
    await dialog.getByRole('button', { name: 'Add secret' }).click();
    await dialog.getByText(/Must be 1 to 100 letters/).waitFor();
    await dialog.getByLabel('Name').fill('fake-provider-key');
    await dialog.getByRole('button', { name: 'Add secret' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('row', { name: /fake-provider-key.*Model API key/ }).waitFor();
    expect(await page.content()).to.not.include(VALUE);
    const answers = JSON.stringify(
      await gql(
        '{ secrets { id name kind createdAt updatedAt } models { name apiKeySecret } workspace { settings { accountRules } } }',
      ),
    );
    expect(answers).to.include('fake-provider-key').and.not.include(VALUE);

    // A second one, deleted after a confirmation.
    await gql('mutation { createSecret(kind: GENERIC, name: "short-lived", value: "x") { id } }');
    await page.reload();
    await page.getByRole('button', { name: 'Delete secret short-lived' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete secret' });
    await confirm.getByRole('button', { name: 'Delete secret' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByRole('row', { name: /short-lived/ }).waitFor({ state: 'detached' });
  });

  it('Models: configures one on the fake model server (the default marked), tests it (answer and latency), and shows why it cannot be removed', async () => {
    await section('Models');
    await page.getByRole('row', { name: /house-model/ }).waitFor();
    await axe();
    await page.getByRole('button', { name: 'Configure model' }).click();
    const dialog = page.getByRole('dialog', { name: 'Configure model' });
    await dialog.waitFor();
    await dialog.getByLabel(/^Name/).fill('mini');
    await dialog.getByRole('combobox', { name: 'Provider' }).click();
    await page.getByRole('option', { name: /OpenAI-compatible/ }).click();
    await dialog.getByLabel(/^Model/).fill('fake-model-mini');
    await dialog.getByRole('button', { name: 'Save model' }).click();
    // An OpenAI-compatible provider needs its server URL: the error is under Base URL.
    await dialog.getByText(/needs the server URL/).waitFor();
    expect(await dialog.getByLabel('Base URL').getAttribute('aria-invalid')).to.equal('true');
    await dialog.getByLabel('Base URL').fill(h.fake.url);
    await dialog.getByRole('combobox', { name: 'API key secret' }).click();
    await page.getByRole('option', { name: 'fake-provider-key' }).click();
    await dialog.getByLabel('The workspace default').check();
    await axe();
    await dialog.getByRole('button', { name: 'Save model' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /^mini/ });
    await row.waitFor();
    expect(await row.textContent())
      .to.include('Default')
      .and.include('fake-model-mini')
      .and.include('fake-provider-key');
    const { models } = await gql('{ models { name isDefault apiKeySecret } }');
    expect(models.find((m: { name: string }) => m.name === 'mini')).to.deep.equal({
      name: 'mini',
      isDefault: true,
      apiKeySecret: 'fake-provider-key',
    });

    h.fake.enqueue({ text: 'OK from the fake model', delayMs: 30 });
    await row.getByRole('button', { name: 'Test mini' }).click();
    const outcome = row.getByTestId('model-test');
    await outcome.waitFor();
    const said = (await outcome.textContent())!;
    expect(said).to.include('OK from the fake model');
    const ms = Number(/(\d+) ms/.exec(said)![1]);
    expect(ms).to.be.at.least(30);
    // The provider was called with the secret's value as the key.
    expect(h.fake.requests.at(-1)!.headers.authorization).to.equal('Bearer sk-very-secret-value-7f3a9c');

    // An agent names it: removing it is refused, with the service's message naming the agent.
    await gql('mutation { createAgent(input: { name: "Uses mini", defaultModel: "mini" }) { id } }');
    await row.getByRole('button', { name: 'Remove mini' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove model' });
    await confirm.getByRole('button', { name: 'Remove model' }).click();
    await confirm
      .getByRole('alert')
      .getByText(/still in use by agent 'Uses mini'/)
      .waitFor();
    await axe();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await row.waitFor();
  });

  it('Models: "Accepts images" is saved with the model, shown in the list, and read back into the form', async () => {
    await section('Models');
    const row = page.getByRole('row', { name: /house-model/ });
    await row.waitFor();
    expect(await row.textContent()).to.include('Text only');
    const edit = async () => {
      await row.getByRole('button', { name: 'Edit house-model' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit model house-model' });
      await dialog.waitFor();
      return { dialog, images: dialog.getByRole('switch', { name: 'Accepts images' }) };
    };
    const saved = async () =>
      (await gql('{ models { name model baseUrl acceptsImages } }')).models.find(
        (m: { name: string }) => m.name === 'house-model',
      );

    let { dialog, images } = await edit();
    expect(await images.isChecked()).to.equal(false);
    await images.check();
    await axe();
    await dialog.getByRole('button', { name: 'Save model' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('Accepts images').waitFor();
    // Only the flag changed: the rest of the model is as it was.
    expect(await saved()).to.deep.equal({
      name: 'house-model',
      model: 'fake-model',
      baseUrl: h.fake.url,
      acceptsImages: true,
    });
    await axe();

    ({ dialog, images } = await edit());
    expect(await images.isChecked()).to.equal(true);
    await images.uncheck();
    await dialog.getByRole('button', { name: 'Save model' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('Text only').waitFor();
    expect((await saved()).acceptsImages).to.equal(false);
  });

  it("Teams and limits: creates a team with a limit, changes it, and sets the workspace's daily limit against today's use", async () => {
    await section('Teams and limits');
    await page.getByText('No teams yet').waitFor();
    await page
      .getByTestId('workspace-usage')
      .getByText(/0 credits in 0 runs · limit: No limit/)
      .waitFor();
    await axe();
    await page.getByRole('button', { name: 'Create team' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create team' });
    await dialog.getByRole('button', { name: 'Create team' }).click();
    await dialog.getByText('Must not be empty').waitFor();
    await axe();
    await dialog.getByLabel('Name').fill('Support');
    await dialog.getByLabel('Daily credit limit').fill('25');
    await dialog.getByRole('button', { name: 'Create team' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('row', { name: /Support.*25 credits a day/ }).waitFor();

    await page.getByRole('button', { name: 'Set limit of Support' }).click();
    const limit = page.getByRole('dialog', { name: 'Daily limit of Support' });
    await limit.getByLabel('Daily credit limit').fill('40');
    await limit.getByRole('button', { name: 'Save limit' }).click();
    await limit.waitFor({ state: 'hidden' });
    await page.getByRole('row', { name: /Support.*40 credits a day/ }).waitFor();

    await page.getByLabel('Workspace daily credit limit').fill('100');
    await page.getByRole('button', { name: 'Save limit' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    await page
      .getByTestId('workspace-usage')
      .getByText(/limit: 100 credits a day/)
      .waitFor();
    await axe();
    const { workspace } = await gql('{ workspace { dailyCreditLimit teams { name dailyCreditLimit } } }');
    expect(workspace).to.deep.equal({ dailyCreditLimit: 100, teams: [{ name: 'Support', dailyCreditLimit: 40 }] });
  });

  it('Settings: each group says what it is for; flags are switches; a JSON mistake is shown at its line before anything is sent', async () => {
    await section('Settings');
    const retention = page.getByLabel('Activity retention (days)');
    await retention.waitFor();
    await axe();
    // Every group explains itself; the hosted-platform ones are marked.
    await page.getByText(/^Enforced: housekeeping deletes activity entries/).waitFor();
    expect(await page.getByText('Means little self-hosted', { exact: true }).count()).to.equal(3);
    await retention.fill('14');
    await page.getByLabel('Message retention (days)').fill('30');
    const tags = page.getByRole('combobox', { name: 'Tags' });
    await tags.fill('production');
    await tags.press('Enter');
    await page.getByRole('textbox', { name: 'New flag' }).fill('beta');
    await page.getByRole('button', { name: 'Add flag' }).click();
    expect(await page.getByRole('switch', { name: 'beta' }).isChecked()).to.equal(true);
    const rules = page.getByRole('textbox', { name: 'Account rules' });
    await rules.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{\n  "maxSeats": 5,\n  oops\n}');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText(/^Line 3, column \d+: Not valid JSON/).waitFor();
    const read = async () =>
      (
        await gql(
          '{ workspace { settings { activityRetentionDays messageRetentionDays tags featureFlags accountRules } } }',
        )
      ).workspace.settings;
    expect(await read()).to.deep.equal({
      activityRetentionDays: 30,
      messageRetentionDays: 90,
      tags: [],
      featureFlags: {},
      accountRules: {},
    });

    await rules.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{ "maxSeats": 5 }');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    expect(await read()).to.deep.equal({
      activityRetentionDays: 14,
      messageRetentionDays: 30,
      tags: ['production'],
      featureFlags: { beta: true },
      accountRules: { maxSeats: 5 },
    });

    // A flag switched off is saved off.
    await page.getByRole('switch', { name: 'beta' }).click({ force: true });
    await page.getByRole('button', { name: 'Save settings' }).click();
    for (let i = 0; i < 50 && (await read()).featureFlags.beta !== false; i++) await page.waitForTimeout(100);
    expect((await read()).featureFlags).to.deep.equal({ beta: false });
    await axe();
  });

  it('Overview: saves the team, capabilities and guardrails (a refused pattern shown under its field)', async () => {
    const { createAgent } = await gql('mutation { createAgent(input: { name: "Guarded" }) { id } }');
    await page.goto(`${h.svc.url}/console/agents/${createAgent.id}`);
    await page.getByRole('tab', { name: 'Overview' }).waitFor();
    await page.getByRole('combobox', { name: 'Team' }).click();
    await page.getByRole('option', { name: 'Support' }).click();
    await page.getByRole('switch', { name: 'Documents' }).check();
    await page.getByRole('switch', { name: 'Messaging' }).check();
    const blocked = page.getByRole('combobox', { name: 'Blocked input patterns' });
    await blocked.fill('(a)\\1');
    await blocked.press('Enter');
    await page.getByLabel('Max tool steps').fill('3');
    await page.getByRole('checkbox', { name: 'Email addresses' }).check();
    await axe();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/cannot run in the linear-time pattern engine/).waitFor();
    expect(await blocked.getAttribute('aria-invalid')).to.equal('true');
    await blocked.press('Backspace');
    await blocked.fill('password');
    await blocked.press('Enter');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();

    const { agent } = await gql(
      `{ agent(id: "${createAgent.id}") { teamId capabilities { documents endpointManagement messaging } guardrails { blockedInputPatterns redactPresets maxToolSteps } } }`,
    );
    const { workspace } = await gql('{ workspace { teams { id name } } }');
    expect(agent).to.deep.equal({
      teamId: workspace.teams[0].id,
      capabilities: { documents: true, endpointManagement: false, messaging: true },
      guardrails: { blockedInputPatterns: ['password'], redactPresets: ['email'], maxToolSteps: 3 },
    });
    await page.reload();
    await page.getByRole('switch', { name: 'Documents' }).waitFor();
    expect(await page.getByRole('switch', { name: 'Documents' }).isChecked()).to.equal(true);
    expect(await page.getByRole('combobox', { name: 'Team' }).inputValue()).to.equal('Support');
  });

  it('Event webhooks: adds a URL (its signing secret shown once), sends a test event, and lists the delivery', async () => {
    const rx = await startReceiver();
    try {
      await section('Event webhooks');
      await page.getByText('No event webhooks yet').waitFor();
      await axe();
      await page.getByRole('button', { name: 'Add event webhook' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add event webhook' });
      await dialog.getByLabel('URL').fill('ftp://example.com/x');
      await dialog.getByRole('button', { name: 'Add event webhook' }).click();
      await dialog.getByText(/http\(s\) URL/).waitFor();
      await dialog.getByLabel('URL').fill(rx.url);
      await dialog.getByRole('button', { name: 'Add event webhook' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const secret = await shownOnce();
      expect(secret).to.match(/^whsec_/);
      await axe();
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('row', { name: new RegExp(`${rx.url}.*run\\.completed`) }).waitFor();
      await page.getByRole('button', { name: 'Deliveries' }).click();
      await page.getByText('No deliveries yet').waitFor();
      await page.getByRole('button', { name: 'Send test event' }).click();
      for (let i = 0; i < 100 && rx.received.length === 0; i++) await page.waitForTimeout(100);
      const got = rx.received[0]!;
      const event = new Webhook(secret).verify(got.body, {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      }) as { type: string; test?: boolean };
      expect(event).to.include({ type: 'run.completed', test: true });
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page
        .getByRole('table', { name: 'Deliveries' })
        .getByRole('row', { name: /run\.completed.*delivered.*200/ })
        .waitFor();
      await axe();
    } finally {
      await rx.close();
    }
  });

  it('at 390×844 the sections fit and axe finds nothing serious', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of ['members', 'models', 'settings']) {
        await page.goto(`${h.svc.url}/console/workspace/${path}`);
        await page.getByRole('heading', { level: 2 }).waitFor();
        // Every section of the page has loaded (the members page loads its members and its invitations).
        const loading = page.getByRole('status').filter({ hasText: /Loading/ });
        for (let i = 0; i < 150 && (await loading.count()) > 0; i++) await page.waitForTimeout(100);
        expect(await loading.count()).to.equal(0);
        await axe();
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('made no console error and no CSP violation', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
