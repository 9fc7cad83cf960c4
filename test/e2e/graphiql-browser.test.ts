import { expect } from 'chai';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable, sharedBrowser } from '../helpers/chromium.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// `/graphql` in a real headless Chromium: GraphiQL (bundled by the service, nothing from another
// host) under its strict CSP, with the documentation and completion built from the public SDL
// before any token is set, and an operation run with the Authorization header typed into its
// headers editor.

declare const window: any;
declare const document: any;

const ADMIN_TOKEN = 'graphiql-browser-admin-token-0123456789';

describe('e2e: GraphiQL at /graphql in Chromium', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Console errors and warnings, uncaught page errors, failed loads and CSP violations seen by the page. */
  const problems: string[] = [];
  /** Every URL the page requested. */
  const requested: string[] = [];
  /** The bodies of the POSTs the page sent to /graphql. */
  const posted: string[] = [];
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    svc = await startE2eService('graphiql_browser', { adminToken: ADMIN_TOKEN });
    await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
      i: { name: 'Graphiql Shop', defaultModel: 'fake-model' },
    });
    browser = await sharedBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.on('request', (req) => {
      requested.push(req.url());
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/graphql') posted.push(req.postData() ?? '');
    });
    page = await context.newPage();
    page.on('console', (msg) => {
      // Warnings too: GraphiQL reports a failed prettify only as a warning.
      if (msg.type() === 'error' || msg.type() === 'warning' || /Content Security Policy|Refused to/i.test(msg.text()))
        problems.push(`${msg.type()}: ${msg.text()}`);
    });
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  });

  after(async () => {
    await context?.close();
    await svc?.stop();
  });

  it('is served with its own strict CSP (no inline script, no eval) and cacheable, gzipped assets', async () => {
    const res = await fetch(`${svc.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).to.equal(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp)
      .to.contain("script-src 'self';")
      .and.contain("worker-src 'self';")
      .and.contain("frame-ancestors 'none'");
    expect(csp).not.to.match(/unsafe-eval|blob:|script-src[^;]*unsafe-inline/);
    const html = await res.text();
    expect(html).not.to.match(/<script>|<script [^>]*>[^<]/);
    const js = await fetch(`${svc.url}/graphql/assets/graphiql.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.match(/^application\/javascript/);
    expect(js.headers.get('cache-control')).to.equal('public, max-age=300');
    const etag = js.headers.get('etag')!;
    expect(etag).to.match(/^".+"$/);
    await js.arrayBuffer();
    // (node:http: fetch asks with `cache-control: no-cache` when it sends its own validators.)
    const again = await new Promise<number>((resolve, reject) => {
      http
        .get(`${svc.url}/graphql/assets/graphiql.js`, { headers: { 'if-none-match': etag } }, (r) =>
          resolve(r.resume().statusCode!),
        )
        .on('error', reject);
    });
    expect(again).to.equal(304);
    expect((await fetch(`${svc.url}/graphql/assets/graphiql.css`)).headers.get('content-type')).to.match(/^text\/css/);
    expect((await fetch(`${svc.url}/graphql/assets/nothing.js`)).status).to.equal(404);
  });

  it('shows the documentation and completes fields from the SDL without a token, runs a query with the Authorization header typed in, and reports no console error or CSP violation', async () => {
    await page.goto(`${svc.url}/graphql`);
    await page.locator('.graphiql-container .graphiql-query-editor .monaco-editor').waitFor();

    // The documentation explorer, from /graphql/schema.graphql (no token has been set yet).
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.getByRole('link', { name: 'Mutation' }).click();
    await docs.getByText('createAgent', { exact: true }).first().waitFor();

    // The headers editor (shown at start), then the query editor: typed as a user types.
    await page.locator('.monaco-editor[data-uri$="request-headers.json"]').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(`{"Authorization": "Bearer ${ADMIN_TOKEN}"}`);
    await page.locator('.graphiql-query-editor .monaco-editor').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    // Completion from the same schema (Monaco's GraphQL worker): a field of Query by its first letters.
    await page.keyboard.type('{ agen');
    await page.keyboard.press('Control+Space');
    const suggestion = page.locator('.suggest-widget .monaco-list-row', { hasText: 'agents' }).first();
    await suggestion.waitFor();
    // Its type comes from the schema: a suggestion of words already typed would have none.
    expect(await suggestion.textContent()).to.contain('[Agent!]!');
    await page.keyboard.press('Escape');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{ viewer { role } agents { name } }');
    await page.getByRole('button', { name: /Execute query/i }).click();

    const response = page.locator('.graphiql-response');
    await response.getByText('Graphiql Shop').waitFor();
    expect(await response.textContent()).to.contain('ADMIN');

    // Prettify loads Prettier, a chunk of its own, only now: the one-line query becomes several lines.
    await page.getByRole('button', { name: /Prettify query/i }).click();
    await page.waitForFunction(() =>
      window.__MONACO.editor
        .getModels()
        .some(
          (m: any) => m.uri.path.endsWith('operation.graphql') && m.getValue().includes('\n  agents {\n    name\n  }'),
        ),
    );

    // The operation went to this origin with the typed header; no introspection was needed.
    expect(posted.some((b) => b.includes('agents { name }'))).to.equal(true);
    expect(posted.some((b) => b.includes('__schema'))).to.equal(false);
    // Monaco's workers load from /graphql/assets/ (worker-src 'self').
    expect(requested.some((u) => u.endsWith('/graphql/assets/graphql.worker.js'))).to.equal(true);
    expect(requested.filter((u) => /\/graphql\/assets\/chunk-.*\.js$/.test(u)).length).to.be.above(1);
    expect(requested.every((u) => u.startsWith(svc.url) || u.startsWith('data:'))).to.equal(true);
    expect(await page.evaluate(() => typeof window.__MONACO)).to.equal('object');
    expect(problems).to.deep.equal([]);
  });
});
