import { expect } from 'chai';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { atPhoneSize, consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// The agent's OpenAI API tab in Chromium, under the console's CSP: the surface is off for a new
// agent and the official `openai` client gets 403; the tab's switch turns it on (GraphQL agrees,
// and the same client, pointed at the base URL the tab shows, gets the agent's answer). The tab
// shows the workspace URL and whether the agent allows workspace keys (following the API Keys
// tab), and snippets for curl, Python, TypeScript, the AI SDK, Open WebUI and LibreChat that name
// the right URL and hold no key. axe at 1280×800 and 390×844; no console error, no CSP violation.

describe('e2e: the console: the OpenAI API tab', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let page: Page;
  let agentId: string;
  let agentKey: string;

  consoleSuite('console_openai', async (started) => {
    h = started;
    page = h.page;
    const { createAgent } = await h.gql(
      'mutation { createAgent(input: { name: "Support bot", instructions: "Be brief.", defaultModel: "house-model" }) { id } }',
    );
    agentId = createAgent.id;
    agentKey = (
      await h.gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "client") { key } }', { a: agentId })
    ).createAgentApiKey.key;
    await h.signIn();
  });

  const connect = () => page.getByRole('region', { name: 'Connect a client' });
  const shown = async (label: string) =>
    (await connect().getByText(label, { exact: true }).locator('xpath=../..').locator('pre').textContent())!;
  const surface = async () =>
    (
      await h.gql('query($a: ID!) { agent(id: $a) { surfaces { surface enabled } } }', { a: agentId })
    ).agent.surfaces.find((s: { surface: string }) => s.surface === 'OPENAI');
  const ask = (baseURL: string) =>
    new OpenAI({ baseURL, apiKey: agentKey, maxRetries: 0 }).chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: 'Hi' }],
    });

  it('opens from the agent page, after the MCP server tab, at its own address', async () => {
    await page.goto(`${h.svc.url}/console/agents/${agentId}`);
    await page.getByRole('tab', { name: 'OpenAI API' }).waitFor();
    const labels = await page.getByRole('tablist', { name: 'Agent sections' }).getByRole('tab').allTextContents();
    expect(labels.indexOf('OpenAI API')).to.equal(labels.indexOf('MCP server') + 1);
    await page.getByRole('tab', { name: 'OpenAI API' }).click();
    await page.getByRole('switch', { name: 'Answer calls' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/console/agents/${agentId}/openai`);
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('the switch turns the surface on: GraphQL says OPENAI is enabled, and the client pointed at the shown base URL gets an answer', async () => {
    const base = await shown('Base URL');
    expect(base).to.equal(`${h.svc.url}/agents/${agentId}/v1`);
    const toggle = page.getByRole('switch', { name: 'Answer calls' });
    expect(await toggle.isChecked()).to.equal(false);
    expect((await surface()).enabled).to.equal(false);
    const refused = await ask(base).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(OpenAI.PermissionDeniedError);

    // The switch shows the saved state: it turns on when the mutation has answered.
    await toggle.click();
    await page.getByRole('switch', { name: 'Answer calls', checked: true }).waitFor();
    await page.getByText('On: calls are answered').waitFor();
    expect(await surface()).to.deep.equal({ surface: 'OPENAI', enabled: true });
    h.fake.enqueue({ text: 'Hello from the support bot.' });
    expect((await ask(base)).choices[0]!.message.content).to.equal('Hello from the support bot.');
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('the workspace URL and whether the agent allows workspace keys, following the API Keys tab', async () => {
    expect(await shown('Workspace URL')).to.equal(`${h.svc.url}/v1`);
    expect(await page.getByTestId('openai-workspace-keys').textContent()).to.include('not allowed');
    await page.getByRole('tab', { name: 'API Keys' }).click();
    await page.getByRole('switch', { name: /Allow workspace keys/ }).click();
    await page.getByRole('switch', { name: /Allow workspace keys/, checked: true }).waitFor();
    await page.getByRole('tab', { name: 'OpenAI API' }).click();
    await page
      .getByTestId('openai-workspace-keys')
      .filter({ hasText: 'allowed.' })
      .filter({ hasNotText: 'not allowed' })
      .waitFor();
    expect(await page.getByTestId('openai-workspace-keys').textContent()).to.include(agentId);
    expect(
      (await h.gql('query($a: ID!) { agent(id: $a) { allowWorkspaceKeys } }', { a: agentId })).agent.allowWorkspaceKeys,
    ).to.equal(true);
  });

  it('a snippet per client names the right URL, with a key placeholder and never a key', async () => {
    const agentUrl = `${h.svc.url}/agents/${agentId}/v1`;
    const expected: [string, string][] = [
      ['curl', `${agentUrl}/chat/completions`],
      ['Python', agentUrl],
      ['TypeScript', agentUrl],
      ['AI SDK', agentUrl],
      ['Open WebUI', `URL: ${h.svc.url}/v1`],
      ['LibreChat', `baseURL: "${h.svc.url}/v1"`],
    ];
    for (const [client, url] of expected) {
      await connect().getByRole('tab', { name: client }).click();
      const text = (await connect().getByRole('tabpanel').locator('pre').textContent())!;
      expect(text, client)
        .to.include(url)
        .and.match(/<your (agent|workspace) key|\$\{AGENTS_WORKSPACE_KEY\}/);
      expect(text, client)
        .to.not.include(agentKey)
        .and.not.match(/\b(ak|wk)_[A-Za-z0-9]{8,}/);
      await connect()
        .getByRole('button', { name: `Copy ${client} snippet` })
        .waitFor();
    }
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('at 390×844 the tab fits and passes axe', async () => {
    await atPhoneSize(page, async () => {
      await page.reload();
      await page.getByRole('switch', { name: 'Answer calls' }).waitFor();
      const overflow = await page.evaluate(() => {
        const root = (globalThis as any).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow).to.be.at.most(0);
      expect(await h.axeProblems()).to.deep.equal([]);
    });
  });

  it('made no console error and no CSP violation', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
