import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// Every page of the console, opened by its address as a reload or a shared link would: each
// settles (no loading state left), shows no error, and axe-core finds no serious or critical
// violation, at 1280×800 and at 390×844. The agent's tabs are reached by keyboard too. Nothing
// logs a console error or breaks the CSP on the way.

const AGENT_TABS: [string, string][] = [
  ['', 'Overview'],
  ['http', 'HTTP API'],
  ['documents', 'Document API'],
  ['mcp', 'MCP server'],
  ['openai', 'OpenAI API'],
  ['widget', 'Chat widget'],
  ['webhooks', 'Webhooks'],
  ['channels', 'Channels'],
  ['keys', 'API Keys'],
  ['limits', 'Limits'],
  ['activity', 'Activity'],
  ['usage', 'Usage'],
];
const WORKSPACE: [string, string][] = [
  ['members', 'Members'],
  ['keys', 'API Keys'],
  ['secrets', 'Secrets'],
  ['models', 'Models'],
  ['teams', 'Teams and limits'],
  ['settings', 'Settings'],
];

describe('e2e: every page of the console settles, accessible, under the CSP', function () {
  this.timeout(300_000);
  let h: ConsoleHarness;
  let agentId: string;

  consoleSuite('console_pages', async (started) => {
    h = started;
    // An agent with something on each surface, so that every tab has content to show.
    const { createAgent } = await h.gql(
      'mutation { createAgent(input: {name: "Pages bot", instructions: "Be brief."}) { id } }',
    );
    agentId = createAgent.id;
    await h.gql(
      `mutation($a: ID!) {
        addHttpEndpoint(agentId: $a, input: {path: "echo", methods: [POST], handler: {script: "return { echoed: input };"}}) { id }
        createAgentApiKey(agentId: $a, name: "backend") { key }
        addMcpTool(agentId: $a, input: {name: "lookup", description: "Looks up", handler: {prompt: "Answer briefly."}}) { id }
      }`,
      { a: agentId },
    );
    await h.signIn();
  });

  /** Waits until the page has no loading state left, then returns axe's serious and critical findings. */
  async function settled(page: Page): Promise<string[]> {
    await page.getByRole('main').waitFor();
    await page.waitForFunction(
      () => !(globalThis as any).document.querySelector('main [role="status"] .mantine-Loader-root'),
      undefined,
      { timeout: 20_000 },
    );
    const alerts = await page.getByRole('main').getByRole('alert').allTextContents();
    expect(
      alerts.filter((a) => /Something went wrong/.test(a)),
      'an error state',
    ).to.deep.equal([]);
    return h.axeProblems(page);
  }

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`every agent tab at ${width}×${height}`, async () => {
      await h.page.setViewportSize({ width, height });
      for (const [path, label] of AGENT_TABS) {
        await h.page.goto(`${h.svc.url}/console/agents/${agentId}${path ? `/${path}` : ''}`);
        const tab = h.page.getByRole('tab', { name: label });
        await tab.waitFor();
        expect(await tab.getAttribute('aria-selected'), label).to.equal('true');
        expect(await settled(h.page), label).to.deep.equal([]);
      }
    });

    it(`every workspace section at ${width}×${height}`, async () => {
      await h.page.setViewportSize({ width, height });
      for (const [path, label] of WORKSPACE) {
        await h.page.goto(`${h.svc.url}/console/workspace/${path}`);
        await h.page.getByRole('heading', { name: label, level: 2 }).waitFor();
        expect(await settled(h.page), label).to.deep.equal([]);
      }
    });
  }

  it('the agent tabs are reached by keyboard: arrow keys move between them, the address follows', async () => {
    await h.page.setViewportSize({ width: 1280, height: 800 });
    await h.page.goto(`${h.svc.url}/console/agents/${agentId}`);
    const overview = h.page.getByRole('tab', { name: 'Overview' });
    await overview.waitFor();
    await overview.focus();
    await h.page.keyboard.press('ArrowRight');
    await h.page.getByRole('tab', { name: 'HTTP API', selected: true }).waitFor();
    expect(new URL(h.page.url()).pathname).to.equal(`/console/agents/${agentId}/http`);
    await h.page.goBack();
    await h.page.getByRole('tab', { name: 'Overview', selected: true }).waitFor();
  });

  it('made no console error and no CSP violation', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
