import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// Every page of the console, opened by its address as a reload or a shared link would: each
// settles (no loading state left), shows no error, and axe-core finds no serious or critical
// violation, at 1280×800 and at 390×844 — where no page scrolls sideways and the agent's sections
// are a select. At 1280 every tab group is in view, so Activity is one click away; the tabs are
// reached by keyboard too. Nothing logs a console error or breaks the CSP on the way.

const AGENT_TABS: [string, string][] = [
  ['', 'Overview'],
  ['http', 'HTTP API'],
  ['documents', 'Document API'],
  ['mcp', 'MCP server'],
  ['openai', 'OpenAI API'],
  ['a2a', 'A2A server'],
  ['widget', 'Chat widget'],
  ['webhooks', 'Webhooks'],
  ['channels', 'Channels'],
  ['schedules', 'Schedules'],
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
  ['events', 'Event webhooks'],
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
    // Rows in the tables a phone must not scroll sideways for: an integration and a delivery, a
    // document, a workspace key, a secret and an event webhook.
    await h.gql(
      `mutation($a: ID!) {
        addWebhook(agentId: $a, input: {integration: "orders", handler: {script: "return { ok: true };"}}) { id }
        createDocument(agentId: $a, input: {name: "Notes", content: "Open 9 to 5."}) { id }
        createWorkspaceApiKey(name: "reporting") { key }
        createSecret(name: "orders-signing", kind: WEBHOOK_SIGNING_SECRET, value: "0123456789abcdef0123") { id }
        createEventSubscription(input: {url: "http://127.0.0.1:9/aes-events", kinds: ["run.completed", "run.failed"]}) { secret }
      }`,
      { a: agentId },
    );
    const delivered = await fetch(`${h.svc.url}/agents/${agentId}/webhook/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: 1 }),
    });
    expect(delivered.status).to.be.below(300);
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

  /** The page does not scroll sideways (what sticks out is named when it does). */
  async function noSidewaysScroll(page: Page, label: string): Promise<void> {
    const { scroll, client, wide } = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const root = doc.scrollingElement;
      return {
        scroll: root.scrollWidth as number,
        client: root.clientWidth as number,
        wide: [...doc.querySelectorAll('body *')]
          .filter((e: any) => e.getBoundingClientRect().right > root.clientWidth + 1)
          .slice(0, 6)
          .map(
            (e: any) =>
              `${e.tagName}.${String(e.className).slice(0, 50)} → ${Math.round(e.getBoundingClientRect().right)}`,
          ),
      };
    });
    expect(scroll, `${label} scrolls sideways: ${wide.join('; ')}`).to.be.at.most(client);
  }

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    const phone = width < 768;
    it(`every agent tab at ${width}×${height}${phone ? ', without sideways scrolling' : ''}`, async () => {
      await h.page.setViewportSize({ width, height });
      for (const [path, label] of AGENT_TABS) {
        await h.page.goto(`${h.svc.url}/console/agents/${agentId}${path ? `/${path}` : ''}`);
        if (phone) {
          // A phone gets the sections as a select, the current one chosen.
          const select = h.page.getByRole('combobox', { name: 'Section' });
          await select.waitFor();
          expect(await select.inputValue(), label).to.equal(path || 'overview');
        } else {
          const tab = h.page.getByRole('tab', { name: label });
          await tab.waitFor();
          expect(await tab.getAttribute('aria-selected'), label).to.equal('true');
        }
        expect(await settled(h.page), label).to.deep.equal([]);
        if (phone) await noSidewaysScroll(h.page, label);
      }
    });

    it(`every workspace section at ${width}×${height}${phone ? ', without sideways scrolling' : ''}`, async () => {
      await h.page.setViewportSize({ width, height });
      for (const [path, label] of WORKSPACE) {
        await h.page.goto(`${h.svc.url}/console/workspace/${path}`);
        await h.page.getByRole('heading', { name: label, level: 2 }).waitFor();
        expect(await settled(h.page), label).to.deep.equal([]);
        if (phone) await noSidewaysScroll(h.page, label);
      }
    });
  }

  it('at 390×844 the section select opens another tab, and the address follows', async () => {
    await h.page.setViewportSize({ width: 390, height: 844 });
    try {
      await h.page.goto(`${h.svc.url}/console/agents/${agentId}/keys`);
      const select = h.page.getByRole('combobox', { name: 'Section' });
      await select.selectOption({ label: 'Activity' });
      await h.page.waitForURL((url) => url.pathname === `/console/agents/${agentId}/activity`);
      expect(await select.inputValue()).to.equal('activity');
      expect(await settled(h.page)).to.deep.equal([]);
      expect(await h.page.getByRole('tablist', { name: 'Agent sections' }).isVisible()).to.equal(false);
    } finally {
      await h.page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('at 1280×800 every tab group is in view and Activity is one click away from any tab', async () => {
    await h.page.setViewportSize({ width: 1280, height: 800 });
    await h.page.goto(`${h.svc.url}/console/agents/${agentId}/http`);
    const list = h.page.getByRole('tablist', { name: 'Agent sections' });
    await list.waitFor();
    for (const group of ['Build', 'Access', 'Monitor']) {
      expect(await list.getByText(group, { exact: true }).isVisible(), group).to.equal(true);
    }
    // Every tab is inside the window: nothing hides off-screen behind a scroll.
    const tabs = await list.getByRole('tab').all();
    expect(tabs.length).to.equal(AGENT_TABS.length);
    for (const tab of tabs) {
      const box = (await tab.boundingBox())!;
      const name = (await tab.textContent()) ?? '';
      expect(box.x + box.width, name).to.be.at.most(1280);
      expect(box.y + box.height, name).to.be.at.most(800);
    }
    await list.getByRole('tab', { name: 'Activity' }).click();
    await h.page.getByRole('tab', { name: 'Activity', selected: true }).waitFor();
    expect(new URL(h.page.url()).pathname).to.equal(`/console/agents/${agentId}/activity`);
  });

  it("the Models page shows the environment's provider as a read-only row; GraphQL gives no key", async () => {
    await h.page.setViewportSize({ width: 1280, height: 800 });
    await h.page.goto(`${h.svc.url}/console/workspace/models`);
    const row = h.page.getByTestId('environment-model');
    await row.waitFor();
    expect(await row.textContent())
      .to.include(`OpenAI-compatible at ${h.fake.url}`)
      .and.include('from OPENAI_BASE_URL');
    const { environmentModels } = await h.gql(
      '{ environmentModels { provider baseUrl model source hasKey isFallback } }',
    );
    expect(environmentModels).to.have.length(1);
    expect(environmentModels[0]).to.include({ provider: 'OPENAI_COMPATIBLE', source: 'OPENAI_BASE_URL', hasKey: true });
    expect(JSON.stringify(environmentModels)).to.not.include('"test"');
  });

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
