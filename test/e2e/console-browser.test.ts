import { expect } from 'chai';
import { atPhoneSize, consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';
import { runCurl } from '../helpers/run-curl.js';

// The console in a real headless Chromium, under its own Content-Security-Policy (nothing bypasses
// it): sign in with the admin token → create an agent (a field error first): it opens on its
// Overview → a newcomer's path on the fresh workspace (the getting-started checklist → an HTTP
// endpoint → a key → the ready curl, run → the call in Activity → every step ticked) → it is listed
// → open it, edit its instructions and model, reload: the change persisted, the model shown is the
// agent's → delete another agent from its danger zone (typed confirmation) → sign out → the old
// cookie gets 401 on /graphql. No console error and no CSP violation on the way; axe-core finds no
// serious or critical violation on any page of this slice.

declare const document: any;

describe('e2e: the console in Chromium', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let svc: ConsoleHarness['svc'];
  let context: ConsoleHarness['context'];
  let page: ConsoleHarness['page'];
  let gql: ConsoleHarness['gql'];
  let errors: string[] = [];
  let violations: string[] = [];
  const ADMIN_TOKEN = 'console-browser-admin-token-0123456789';
  let agentId = '';
  const axeProblems = () => h.axeProblems();

  consoleSuite(
    'console_browser',
    async (started) => {
      h = started;
      ({ svc, context, page, gql, errors, violations } = h);
    },
    { adminToken: ADMIN_TOKEN },
  );

  it('serves the shell with the strict CSP and its assets with a hash in the name', async () => {
    const res = await fetch(`${svc.url}/console`);
    expect(res.status).to.equal(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp)
      .to.include("script-src 'self';")
      .and.include("default-src 'none'")
      .and.include("frame-ancestors 'none'")
      .and.include("connect-src 'self'");
    expect(csp).to.not.match(/unsafe-eval|script-src[^;]*unsafe-inline/);
    const html = await res.text();
    expect(html).to.not.match(/<script(?![^>]*\bsrc=)/); // no inline script
    const script = /src="(\/console\/assets\/console-[A-Z0-9]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${svc.url}${script}`);
    expect(asset.headers.get('cache-control')).to.include('immutable');
    expect(asset.headers.get('content-type')).to.match(/javascript/);
  });

  it('signs in: a wrong token is refused with its message, the admin token opens the agents page', async () => {
    await page.goto(`${svc.url}/console`);
    await page.getByRole('button', { name: 'Use a member token instead' }).click();
    const token = page.getByLabel('Token');
    await token.waitFor();
    // The sign-in card names the product.
    expect(await page.getByRole('main').textContent()).to.include('Agent Exposure Service');
    expect(await axeProblems()).to.deep.equal([]);

    await token.fill('not-the-right-token-at-all');
    await page.getByRole('button', { name: 'Sign in with the token' }).click();
    await page.getByText(/This token was not recognised/).waitFor();
    // The refused sign-in is the only failed request, and the browser reports it as such.
    expect(errors.every((e) => /status of 401/.test(e) && e.includes('/console/session'))).to.equal(
      true,
      errors.join('\n'),
    );
    errors.length = 0;

    await token.fill(ADMIN_TOKEN);
    await token.press('Enter');
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await page.getByText('No agents yet').waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'aes_session')!;
    expect(cookie).to.include({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await axeProblems()).to.deep.equal([]);
  });

  it('creates an agent (the field named by the GraphQL error shows it first): it opens on its Overview', async () => {
    await page.getByRole('button', { name: 'Create agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create agent' });
    await dialog.waitFor();
    expect(await axeProblems()).to.deep.equal([]);
    await dialog.getByRole('button', { name: 'Create agent' }).click();
    const name = dialog.getByLabel('Name');
    await dialog.getByText('Must not be empty').waitFor();
    expect(await name.getAttribute('aria-invalid')).to.equal('true');

    await name.fill('Support bot');
    await dialog.getByLabel('Description').fill('Answers questions about orders');
    await dialog.getByLabel('Instructions').fill('Be brief.');
    await dialog.getByRole('button', { name: 'Create agent' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Support bot', level: 2 }).waitFor();
    expect(await page.getByRole('tab', { name: 'Overview' }).getAttribute('aria-selected')).to.equal('true');
    const { agents } = await gql('{ agents { id name } }');
    agentId = agents[0].id;
    expect(new URL(page.url()).pathname).to.equal(`/console/agents/${agentId}`);
  });

  it("a newcomer's path: the checklist → an endpoint → a key → the ready curl, run → the call in Activity; all ticked", async () => {
    const steps = page.getByRole('list', { name: 'Getting started steps' });
    const step = (id: string, done: boolean) => steps.locator(`li[data-step="${id}"][data-done="${done}"]`);
    for (const id of ['entry', 'key', 'call', 'activity']) await step(id, false).waitFor();
    // The dashboard: the id and addresses with copy buttons, the model and where it comes from, today's figures.
    await page.getByRole('button', { name: 'Copy Agent id' }).waitFor();
    expect(await page.getByRole('region', { name: 'Addresses' }).textContent()).to.include(
      `${svc.url}/agents/${agentId}/mcp`,
    );
    expect(await page.getByTestId('model-in-use').textContent()).to.include('OPENAI_MODEL');
    expect(await page.getByTestId('figure-calls').textContent()).to.equal('0');
    expect(await axeProblems()).to.deep.equal([]);

    await steps.getByRole('link', { name: 'Add an HTTP endpoint' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await form.getByLabel('Path').fill('hello');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form.waitFor({ state: 'hidden' });
    await page.getByRole('tab', { name: 'Overview' }).click();
    await step('entry', true).waitFor();

    await steps.getByRole('button', { name: 'Create a key' }).click();
    await page.getByTestId('shown-once').waitFor();
    await step('key', true).waitFor();
    const curl = (await step('call', false).locator('pre').textContent())!;
    expect(curl)
      .to.include(`'${svc.url}/agents/${agentId}/api/hello'`)
      .and.match(/Bearer ak_/);
    expect(await axeProblems()).to.deep.equal([]);

    const answer = JSON.parse(await runCurl(curl));
    expect(answer.output).to.deep.equal({ echo: { message: 'Hello' } });
    // The checklist ticks itself (the Overview asks again while it waits for the first call).
    await step('call', true).waitFor({ timeout: 15_000 });
    await step('activity', false).waitFor();

    await steps.getByRole('link', { name: 'Open Activity' }).click();
    const log = page.getByRole('table', { name: 'Activity log' });
    await log.getByRole('row', { name: /hello.*200/ }).waitFor({ timeout: 15_000 });
    expect(await log.getByRole('row').count()).to.equal(2); // the header and the one call
    await page.getByRole('tab', { name: 'Overview' }).click();
    for (const id of ['entry', 'key', 'call', 'activity']) await step(id, true).waitFor();
    await page.getByRole('heading', { name: 'Getting started: all done' }).waitFor();
    expect(await page.getByTestId('figure-calls').textContent()).to.equal('1');
    await atPhoneSize(page, async () => {
      // The dashboard fits a phone: nothing scrolls sideways, and axe finds nothing serious.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
      expect(await axeProblems()).to.deep.equal([]);
    });
  });

  it('lists the agent', async () => {
    await page.getByRole('link', { name: /All agents/ }).click();
    const row = page.getByRole('row', { name: /Support bot/ });
    await row.waitFor();
    expect(await row.textContent())
      .to.include('Workspace')
      .and.include('5 of 10 on')
      .and.include('HTTP')
      .and.include('0')
      .and.include('support-bot'); // the slug (issue 51)
  });

  it('opens the agent, edits its instructions and default model, and the change survives a reload', async () => {
    await page.getByRole('link', { name: 'Support bot' }).click();
    await page.getByRole('tab', { name: 'Overview' }).waitFor();
    await page.getByRole('main').getByText('support-bot', { exact: true }).first().waitFor(); // the slug, by the title
    const instructions = page.getByLabel('Instructions');
    expect(await instructions.inputValue()).to.equal('Be brief.');
    expect(await axeProblems()).to.deep.equal([]);

    await instructions.fill('Be brief. Answer in English.');
    await page.getByRole('combobox', { name: 'Default model' }).click();
    await page.getByRole('option', { name: /house-model/ }).click();
    await page.getByLabel(/Private/).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();

    await page.reload();
    await page.getByRole('tab', { name: 'Overview' }).waitFor();
    expect(await page.getByLabel('Instructions').inputValue()).to.equal('Be brief. Answer in English.');
    const model = page.getByTestId('model-in-use');
    await model.getByText("The agent's default model").waitFor();
    expect(await model.textContent())
      .to.include('house-model')
      .and.include('fake-model');
    const { agents } = await gql('{ agents { name instructions defaultModel visibility } }');
    expect(agents).to.deep.equal([
      {
        name: 'Support bot',
        instructions: 'Be brief. Answer in English.',
        defaultModel: 'house-model',
        visibility: 'PRIVATE',
      },
    ]);
  });

  it("an unknown agent's page shows the error with a way back", async () => {
    await page.goto(`${svc.url}/console/agents/agt_missing`);
    await page.getByRole('alert').getByText("Agent 'agt_missing' not found").waitFor();
    await page.getByRole('link', { name: /All agents/ }).click();
    await page.getByRole('row', { name: /Support bot/ }).waitFor();
  });

  it('at 390×844 the navigation opens from its menu button by keyboard, and axe finds nothing serious', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const menu = page.getByRole('button', { name: 'Open navigation' });
      await menu.focus();
      await page.keyboard.press('Enter');
      const agents = page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Agents' });
      await agents.waitFor();
      expect(await axeProblems()).to.deep.equal([]);
      await agents.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Open navigation' }).waitFor();
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('deletes an agent from its danger zone once its name is typed: it is gone, its key is refused', async () => {
    const { createAgent } = await gql('mutation { createAgent(input: {name: "Scratch bot"}) { id } }');
    const { createAgentApiKey } = await gql(
      `mutation($a: ID!) {
        addHttpEndpoint(agentId: $a, input: {path: "ping", handler: {script: "return 1;"}}) { id }
        createAgentApiKey(agentId: $a, name: "app") { key }
      }`,
      { a: createAgent.id },
    );
    const call = () =>
      fetch(`${svc.url}/agents/${createAgent.id}/api/ping`, {
        method: 'POST',
        headers: { authorization: `Bearer ${createAgentApiKey.key}` },
      });
    expect((await call()).status).to.equal(200);
    await page.goto(`${svc.url}/console/agents/${createAgent.id}`);
    await page.getByRole('region', { name: 'Danger zone' }).getByRole('button', { name: 'Delete agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Scratch bot' });
    await dialog.getByText(/API keys/).waitFor();
    expect(await dialog.textContent())
      .to.include('documents')
      .and.include('activity log');
    const confirm = dialog.getByRole('button', { name: 'Delete this agent' });
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel(/Type the agent's name/).fill('Scratch');
    expect(await confirm.isDisabled()).to.equal(true);
    expect(await axeProblems()).to.deep.equal([]);
    await dialog.getByLabel(/Type the agent's name/).fill('Scratch bot');
    await confirm.click();
    await page.getByRole('heading', { name: 'Agents', level: 2 }).waitFor();
    await page.getByRole('row', { name: /Support bot/ }).waitFor();
    expect(await page.getByRole('row', { name: /Scratch bot/ }).count()).to.equal(0);
    const { agents } = await gql('{ agents { name } }');
    expect(agents.map((a: { name: string }) => a.name)).to.deep.equal(['Support bot']);
    expect((await call()).status).to.equal(404);
  });

  it('signs out: the sign-in page is back and the old cookie gets 401 on /graphql', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'aes_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').waitFor();
    expect((await context.cookies()).find((c) => c.name === 'aes_session')).to.equal(undefined);
    const res = await fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: new URL(svc.url).origin,
        cookie: `aes_session=${cookie.value}`,
      },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    expect(res.status).to.equal(401);
  });

  it('made no console error and no CSP violation', () => {
    expect(violations).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
  });
});
