import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable, sharedBrowser } from '../helpers/chromium.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The chat widget in a real headless Chromium: a page served by the runnable example
// (`node examples/widget/server.js`, the site's own backend with the proxy helper) embeds
// `/widget.js` from the service started in the test process, which answers from the local
// OpenAI-compatible model server. The browser finds everything by its accessible name.

// The functions given to page.evaluate run in the page; this Node program has no DOM types.
declare const window: any, document: any, localStorage: any, sessionStorage: any, MutationObserver: any;
type ShadowRoot = any;
type HTMLButtonElement = any;

const ADMIN_TOKEN = 'widget-browser-admin-token-0123456789';
const SCREENSHOT = path.resolve('docs/images/widget.png');

/** The example site: the proxy and the demo page, as a child process like a customer runs it. */
async function startExample(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['examples/widget/server.js'], {
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the example exited with ${code}`)));
    lines.on('line', (line) => {
      const m = /^Example page: (http:\/\/\S+)$/.exec(line);
      if (m) resolve(m[1]!.replace(/\/$/, ''));
    });
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

/** The widget's shadow root, seen from the page (an open root, by design). */
const inWidget = <T>(page: Page, fn: (root: ShadowRoot) => T): Promise<T> =>
  page.evaluate(`(${fn.toString()})(document.querySelector('agent-chat-widget').shadowRoot)`) as Promise<T>;

describe('e2e: the chat widget in Chromium', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let example: Awaited<ReturnType<typeof startExample>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let agentId: string;
  let apiKey: string;
  /** Every body and header the browser received, to look for the key in. */
  const received: string[] = [];
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    svc = await startE2eService('widget_browser', { adminToken: ADMIN_TOKEN });
    agentId = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name: 'Shop assistant', instructions: 'You help with orders.', defaultModel: 'fake-model' },
      })
    ).createAgent.id;
    apiKey = (
      await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "site proxy") { key } }', { a: agentId })
    ).createAgentApiKey.key;
    example = await startExample({
      SERVICE_URL: svc.url,
      AGENT_ID: agentId,
      AGENT_API_KEY: apiKey,
      WIDGET_COOKIE_SECRET: 'a-cookie-secret-of-at-least-32-characters',
    });
    browser = await sharedBrowser();
    context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
    context.on('response', (res) => {
      received.push(JSON.stringify(res.headers()));
      res.body().then(
        (b) => received.push(b.toString('utf8')),
        () => {},
      );
    });
    page = await context.newPage();
  });

  after(async () => {
    await context?.close();
    await example?.stop();
    await svc?.stop();
  });

  it('opens by its accessible name, streams the answer in several visible steps, and restores the conversation after a reload', async () => {
    await page.goto(example.url);
    const bubble = page.getByRole('button', { name: 'Open chat' });
    await bubble.click();
    const log = page.getByRole('log');
    expect(await log.textContent()).to.include('Hi! Ask me about your order.');

    // Record what the visitor sees of the answer each time the log changes.
    await inWidget(page, (root) => {
      const w = window as unknown as { seen: string[] };
      w.seen = [];
      new MutationObserver(() => {
        const last = root.querySelector('.log .msg.assistant:last-child');
        if (last) w.seen.push(last.textContent ?? '');
      }).observe(root.querySelector('.log')!, { subtree: true, childList: true, characterData: true });
    });
    svc.fake.enqueue({
      text: 'Your order **42** ships *tomorrow*:\n\n- a blue mug\n- a `gift card`\n\nTrack it [here](https://shop.example/track/42).',
      chunkDelayMs: 60,
    });
    await page.getByRole('textbox', { name: 'Message' }).fill('Where is my order 42?');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('.msg.assistant').last();
    await answer.getByRole('link', { name: 'here' }).waitFor();
    await page.waitForFunction(
      () =>
        !(document.querySelector('agent-chat-widget')!.shadowRoot!.querySelector('.send') as HTMLButtonElement)
          .disabled,
    );

    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    const final = 'Your order 42 ships tomorrow:a blue muga gift cardTrack it here.';
    const partial = new Set(seen.filter((t) => t && t !== final));
    expect(partial.size, `updates before the end: ${JSON.stringify([...partial])}`).to.be.above(1);
    expect(await answer.locator('strong').textContent()).to.equal('42');
    expect(await answer.locator('em').textContent()).to.equal('tomorrow');
    expect(await answer.locator('li').allTextContents()).to.deep.equal(['a blue mug', 'a gift card']);
    expect(await answer.locator('code').textContent()).to.equal('gift card');
    const link = answer.getByRole('link', { name: 'here' });
    expect(await link.getAttribute('href')).to.equal('https://shop.example/track/42');
    expect(await link.getAttribute('rel')).to.equal('noopener noreferrer nofollow');

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    await page.reload();
    // The panel was open: it opens again and shows the stored turns from the history endpoint.
    await page.getByRole('log').getByText('Where is my order 42?').waitFor();
    const restored = await inWidget(page, (root) =>
      [...root.querySelectorAll('.msg')].map(
        (m) => `${m.classList.contains('user') ? 'user' : 'assistant'}: ${m.textContent}`,
      ),
    );
    expect(restored).to.deep.equal([
      'assistant: Hi! Ask me about your order.',
      'user: Where is my order 42?',
      `assistant: ${final}`,
    ]);

    // The next message continues the same conversation: the model sees the earlier turns.
    svc.fake.enqueue({ text: 'It left the warehouse.' });
    await page.getByRole('textbox', { name: 'Message' }).fill('And now?');
    await page.keyboard.press('Enter');
    await page.getByRole('log').getByText('It left the warehouse.').waitFor();
    const sent = svc.fake.requests.at(-1)!.body.messages!.map((m) => m.role);
    expect(sent).to.deep.equal(['system', 'user', 'assistant', 'user']);
  });

  it('renders model output that holds HTML as text: no element, no script runs', async () => {
    svc.fake.enqueue({
      text: 'Look: <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script> and [click](javascript:window.__pwned=3) for snake_case_name',
    });
    await page.getByRole('textbox', { name: 'Message' }).fill('Show me HTML');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('.msg.assistant').last();
    await answer.getByText('window.__pwned=2').waitFor();
    expect(await answer.textContent()).to.equal(
      'Look: <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script> and [click](javascript:window.__pwned=3) for snake_case_name',
    );
    expect(await answer.locator('img, script, a, em, strong').count()).to.equal(0);
    await answer.getByText('[click]', { exact: false }).click();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).to.equal(undefined);
  });

  it('is keyboard-usable: Esc closes the panel and gives the focus back to the bubble; it fits a 360 px screen', async () => {
    await page.getByRole('textbox', { name: 'Message' }).focus();
    await page.keyboard.press('Escape');
    expect(await page.getByRole('dialog').count()).to.equal(0);
    expect(await inWidget(page, (root) => root.activeElement?.getAttribute('aria-label'))).to.equal('Open chat');
    await page.keyboard.press('Enter');
    expect(await page.getByRole('dialog').isVisible()).to.equal(true);

    await page.setViewportSize({ width: 360, height: 640 });
    for (const target of [
      page.getByRole('dialog'),
      page.getByRole('textbox', { name: 'Message' }),
      page.getByRole('button', { name: 'Send' }),
    ]) {
      const box = (await target.boundingBox())!;
      expect(box.x, 'inside the screen').to.be.at.least(0);
      expect(box.x + box.width).to.be.at.most(360);
      expect(box.y + box.height).to.be.at.most(640);
    }
    await page.setViewportSize({ width: 1000, height: 720 });
  });

  it('shows a readable message and a Retry button on a 429, and Retry sends the message once the limit is lifted', async () => {
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: agentId });
    await page.getByRole('textbox', { name: 'Message' }).fill('Are you there?');
    await page.getByRole('button', { name: 'Send' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText(/busy right now\. Please try again in \d+ (seconds|minutes|hours)\./).waitFor();
    expect(await page.getByRole('button', { name: 'Send' }).isEnabled(), 'no stuck spinner').to.equal(true);
    expect(await page.locator('.typing').count()).to.equal(0);

    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: null) { id } }', { a: agentId });
    svc.fake.enqueue({ text: 'Yes, I am here.' });
    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('log').getByText('Yes, I am here.').waitFor();
    expect(await alert.isVisible()).to.equal(false);
    const users = await inWidget(page, (root) => [...root.querySelectorAll('.msg.user')].map((m) => m.textContent));
    expect(
      users.filter((t) => t === 'Are you there?'),
      'the retried message is shown once',
    ).to.have.length(1);
  });

  it('a network failure shows a message and a Retry, never a stuck spinner', async () => {
    await context.setOffline(true);
    try {
      await page.getByRole('textbox', { name: 'Message' }).fill('Hello?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page
        .getByRole('alert')
        .getByText('Could not reach the assistant. Check your connection and try again.')
        .waitFor();
      expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).to.equal(true);
    } finally {
      await context.setOffline(false);
    }
    svc.fake.enqueue({ text: 'Back online.' });
    await page.getByRole('alert').getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('log').getByText('Back online.').waitFor();
  });

  it('the API key is in nothing the browser received: page, widget.js, events, history, storage or cookies', async () => {
    // Reload once more so the history answer is among the received bodies.
    await page.reload();
    await page.getByRole('log').getByText('Back online.').waitFor();
    const storage = await page.evaluate(
      () =>
        JSON.stringify({ ...localStorage }) +
        JSON.stringify({ ...sessionStorage }) +
        document.documentElement.outerHTML,
    );
    const cookies = JSON.stringify(await context.cookies());
    const widgetJs = await (await fetch(`${svc.url}/widget.js`)).text();
    const everything = [...received, storage, cookies, widgetJs];
    expect(
      received.some((b) => b.includes('event: delta')),
      'the event streams were captured',
    ).to.equal(true);
    expect(
      received.some((b) => b.includes('"messages"')),
      'a history answer was captured',
    ).to.equal(true);
    for (const text of everything) {
      expect(text.includes(apiKey), 'the key reached the browser').to.equal(false);
      expect(text.includes(apiKey.slice(0, 24)), 'a prefix of the key reached the browser').to.equal(false);
    }
    expect(cookies).to.match(/"httpOnly":true/);
  });
});
