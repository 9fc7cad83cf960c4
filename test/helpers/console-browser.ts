import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable, sharedBrowser } from './chromium.js';
import type { FakeOpenAi } from './openai-server.js';
import { startE2eService, type E2eService, type InProcessService } from './surface-service.js';

// One harness for the console's browser tests: the service in process (with the fake model
// server), a headless Chromium under the console's own CSP, and the checks every page must pass
// (no console error, no CSP violation, axe-core finds nothing serious or critical).

declare const window: any;
declare const document: any;

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string; failureSummary?: string }[];
}

export interface ConsoleHarness {
  svc: InProcessService;
  fake: FakeOpenAi;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  adminToken: string;
  /** GraphQL as the admin, over HTTP with the bearer token (to set up and to check). */
  gql: E2eService['gql'];
  /** Console errors and uncaught exceptions of the page(s). */
  errors: string[];
  /** CSP violations: console reports and `securitypolicyviolation` events. */
  violations: string[];
  /** Serious and critical axe-core violations of the page as it is now. */
  axeProblems(page?: Page): Promise<string[]>;
  /** Signs in on the console's sign-in page with a token and waits for the agents page. */
  signIn(token?: string, page?: Page): Promise<void>;
  /** A new page in its own browser context (another session), watched like the first. */
  newSession(): Promise<{ context: BrowserContext; page: Page }>;
  /** Gathers the CSP events recorded in the page (call after each test). */
  collectViolations(): Promise<void>;
  stop(): Promise<void>;
}

function watch(page: Page, errors: string[], violations: string[]): void {
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    if (msg.type() === 'error') errors.push(`${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
}

async function newContext(browser: Browser): Promise<BrowserContext> {
  // Reduced motion: no transitions, so that axe sees the page as it settles (not a dialog fading in).
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  // Init scripts are injected by the browser itself, so the page's CSP does not apply to them.
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e: any) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return context;
}

/**
 * Starts the service (with a model `house-model` on the fake OpenAI-compatible server) and
 * Chromium. `null` when there is no Chromium here (the caller skips).
 */
export interface HarnessOptions {
  adminToken?: string;
  platformOrigin?: string;
  /** Options of the composition root and more configuration variables of the service. */
  build?: NonNullable<Parameters<typeof startE2eService>[1]>['build'];
  env?: Record<string, string>;
}

export async function startConsoleHarness(name: string, options: HarnessOptions = {}): Promise<ConsoleHarness | null> {
  if (!chromiumAvailable()) return null;
  const adminToken = options.adminToken ?? `${name}-admin-token-0123456789abcdef`;
  const svc = await startE2eService(name, {
    adminToken,
    platformOrigin: options.platformOrigin,
    build: options.build,
    env: options.env,
  });
  const { fake, gql } = svc;
  await gql('mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }', {
    i: { name: 'house-model', provider: 'OPENAI_COMPATIBLE', model: 'fake-model', baseUrl: fake.url },
  });
  const browser = await sharedBrowser();
  const context = await newContext(browser);
  const contexts = [context];
  const page = await context.newPage();
  const errors: string[] = [];
  const violations: string[] = [];
  watch(page, errors, violations);
  const pages = [page];

  const harness: ConsoleHarness = {
    svc,
    fake,
    browser,
    context,
    page,
    adminToken,
    gql,
    errors,
    violations,
    async axeProblems(p = page) {
      // Contrast is measured at rest: not while a dialog's opening transition still blends the page
      // behind it, nor under a pointer left hovering the button just clicked.
      await p.mouse.move(0, 0);
      await p.evaluate(() =>
        Promise.all(
          document.getAnimations().map((a: { finished: Promise<unknown> }) => a.finished.catch(() => undefined)),
        ),
      );
      if (!(await p.evaluate(() => typeof window.axe !== 'undefined'))) await p.evaluate(AXE_SOURCE);
      const found = (await p.evaluate(() =>
        window.axe.run(document, { resultTypes: ['violations'] }).then((r: { violations: unknown[] }) => r.violations),
      )) as AxeViolation[];
      return found
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map(
          (v) =>
            `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 160)} ${n.failureSummary ?? ''}`).join(', ')}`,
        );
    },
    async signIn(token = adminToken, p = page) {
      await p.goto(`${svc.url}/console`);
      await p.getByRole('button', { name: 'Use a member token instead' }).click();
      const field = p.getByLabel('Token');
      await field.waitFor();
      await field.fill(token);
      await field.press('Enter');
      await p.getByRole('heading', { name: 'Agents' }).waitFor();
    },
    async newSession() {
      const c = await newContext(browser);
      contexts.push(c);
      const p = await c.newPage();
      watch(p, errors, violations);
      pages.push(p);
      return { context: c, page: p };
    },
    async collectViolations() {
      for (const p of pages) {
        if (p.isClosed()) continue;
        violations.push(...((await p.evaluate(() => window.__csp ?? []).catch(() => [])) as string[]));
        await p
          .evaluate(() => {
            window.__csp = [];
          })
          .catch(() => undefined);
      }
    },
    async stop() {
      // The browser is the run's (test/helpers/chromium.ts): only this suite's contexts go.
      await Promise.all(contexts.map((c) => c.close()));
      await svc.stop();
    },
  };
  return harness;
}

/**
 * The hooks of a console browser suite (call it inside `describe`): starts the harness before the
 * tests (the suite is skipped without Chromium) and hands it to `setup` (the suite's data, signing
 * in), gathers the CSP events after each test, and stops everything after the suite.
 */
export function consoleSuite(
  name: string,
  setup: (h: ConsoleHarness) => Promise<void> | void,
  options: HarnessOptions = {},
): void {
  let h: ConsoleHarness | null = null;
  before(async function () {
    h = await startConsoleHarness(name, options);
    if (!h) return this.skip();
    await setup(h);
  });
  afterEach(async () => {
    await h?.collectViolations();
  });
  after(async () => {
    await h?.stop();
  });
}

/**
 * Runs `check` with the page at a phone's 390×844 once its layout has settled (what a resize sets
 * off — media queries, observers, re-renders — has run), then puts it back to 1280×800.
 */
export async function atPhoneSize(page: Page, check: () => Promise<void>): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        window.requestAnimationFrame(() => window.requestAnimationFrame(() => window.setTimeout(resolve, 50))),
      ),
  );
  try {
    await check();
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}
