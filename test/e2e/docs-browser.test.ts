import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { chromiumAvailable, sharedBrowser } from '../helpers/chromium.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The docs page (Swagger UI served from the package) in a real headless Chromium: it loads an
// agent's own document with the agent key it asks for, and "Try it out" reaches a nested endpoint
// both as that document's own operation and through the generic `{path}` operation, which the page
// sends percent-encoded whole (`orders%2F42%2Fsummary`).

declare const window: any;
declare const document: any;

const ADMIN_TOKEN = 'docs-browser-admin-token-0123456789';

describe('e2e: the docs page in Chromium', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let agentId: string;
  let apiKey: string;
  const prompts: string[] = [];
  /** Console messages of the page that report a Content-Security-Policy violation. */
  const violations: string[] = [];
  /** Every request path the page sent to the service, as sent (still percent-encoded). */
  const sent: string[] = [];
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    svc = await startE2eService('docs_browser', { adminToken: ADMIN_TOKEN });
    agentId = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name: 'Shop', defaultModel: 'fake-model' },
      })
    ).createAgent.id;
    apiKey = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "docs") { key } }', { a: agentId }))
      .createAgentApiKey.key;
    await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: {
        path: 'orders/{id}/summary',
        methods: ['GET'],
        handler: { script: 'return { id: request.params.id, path: request.path };' },
      },
    });
    browser = await sharedBrowser();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    // The documents name BASE_URL as their server; the test service listens on a port of its own,
    // so the server URL is pointed at it (the only change made to what the service answered).
    const sameServer = async (route: Route) => {
      const res = await route.fetch();
      const doc = await res.json();
      doc.servers = doc.servers.map((s: { url: string }) => ({
        ...s,
        url: s.url.replace(/^http:\/\/localhost:0/, svc.url),
      }));
      await route.fulfill({ response: res, json: doc });
    };
    await context.route(/\/openapi\.json$/, sameServer);
    context.on('request', (req) => sent.push(new URL(req.url()).pathname));
    page = await context.newPage();
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    page.on('dialog', (dialog) => {
      prompts.push(dialog.message());
      void dialog.accept(apiKey);
    });
  });

  after(async () => {
    await context?.close();
    await svc?.stop();
  });

  /** Opens an operation, tries it out with the given parameter values, and returns the answer's status and body. */
  async function tryOut(
    operationId: string,
    params: Record<string, string>,
  ): Promise<{ status: string; body: string }> {
    const op = page.locator(`[id$="-${operationId}"]`);
    await op.locator('.opblock-summary').first().click();
    await op.getByRole('button', { name: 'Try it out' }).click();
    for (const [name, value] of Object.entries(params))
      await op.locator(`tr[data-param-name="${name}"] input`).fill(value);
    await op.getByRole('button', { name: 'Execute' }).click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    return {
      status: (await status.textContent())!.trim(),
      body: (await op.locator('.live-responses-table .response-col_description pre').first().textContent())!,
    };
  }

  it('is served with a CSP that forbids framing, nosniff and no referrer, and Swagger UI works under it', async () => {
    const res = await fetch(`${svc.url}/docs`);
    expect(res.headers.get('content-security-policy'))
      .to.contain("frame-ancestors 'none'")
      .and.contain("script-src 'self'");
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    for (const asset of ['/docs/init.js', '/docs/swagger-ui-bundle.js'])
      expect((await fetch(`${svc.url}${asset}`)).headers.get('x-content-type-options')).to.equal('nosniff');
    await page.goto(`${svc.url}/docs`);
    await page.getByText('callEndpointGet').waitFor();
    expect(violations).to.deep.equal([]);
  });

  it('cannot be framed by another site', async () => {
    const framing = await browser.newPage();
    try {
      // 'load' waits for the frame to have loaded, or to have been refused.
      await framing.setContent(`<iframe id="f" src="${svc.url}/docs"></iframe>`, { waitUntil: 'load' });
      const inner = framing.frames().find((f) => f.url().startsWith(svc.url));
      const loaded = inner
        ? await inner.evaluate(() => document.querySelector('#ui') !== null).catch(() => false)
        : false;
      expect(loaded).to.equal(false);
    } finally {
      await framing.close();
    }
  });

  it("loads the agent's own document with the key it asks for once, and tries the nested endpoint by its operation", async () => {
    await page.goto(`${svc.url}/docs?agent=${agentId}`);
    await page.getByText('getOrdersByIdSummary').waitFor();
    expect(prompts).to.have.length(1);
    expect(prompts[0]).to.contain(agentId);
    const r = await tryOut('getOrdersByIdSummary', { id: '42' });
    expect(r.status).to.equal('200');
    expect(JSON.parse(r.body).output).to.deep.equal({ id: '42', path: 'orders/42/summary' });
    expect(violations).to.deep.equal([]);
  });

  it('tries the nested endpoint through the generic {path} operation, which the page sends encoded', async () => {
    await page.locator('select#select').selectOption({ label: 'Agent surfaces' });
    await page.getByText('callEndpointGet').waitFor();
    await page.evaluate((key) => window.ui.preauthorizeApiKey('agentKey', key), apiKey);
    const r = await tryOut('callEndpointGet', { agentId, path: 'orders/42/summary' });
    expect(sent).to.include(`/agents/${agentId}/api/orders%2F42%2Fsummary`);
    expect(r.status).to.equal('200');
    expect(JSON.parse(r.body).output).to.deep.equal({ id: '42', path: 'orders/42/summary' });
  });
});
