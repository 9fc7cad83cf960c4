import fs from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// The agent's HTTP API, MCP server and Chat widget tabs in Chromium, under the console's CSP:
// sign in → create an agent → a script endpoint with a syntax error (the editor marks its line and
// column) → fixed → Try it answers 200 with the output, and the Activity tab open in another window
// shows the call without a reload; a daily limit of 0 saved on the Limits tab → Try it shows the 429
// with its reason and retry time; CORS lets the console's origin reach the MCP
// server, whose Try it lists and calls a tool; the client configurations carry the URL; the
// widget's script tag and live preview; the chat's Try it streams the fake model's answer; and
// sign-out revokes the session's Try-it key (401).

declare const window: any;
declare const document: any;

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Replaces the text of the code editor labelled `label`. */
async function typeInEditor(page: Page, label: string, text: string): Promise<void> {
  const content = page.getByRole('textbox', { name: label, exact: true });
  await content.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

describe('e2e: console HTTP API, MCP and Chat widget tabs with Try it', function () {
  this.timeout(240_000);
  let h: ConsoleHarness;
  let page: Page;
  let agentId = '';
  /** Console errors the tests expect (refused Try-it calls are reported by the browser as failed loads). */
  const expectedErrors: RegExp[] = [];

  /** axe over the page and the frames in it (axe waits for a frame that has no axe of its own). */
  async function axeProblems(): Promise<string[]> {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      if (!(await f.evaluate(() => typeof window.axe !== 'undefined').catch(() => true))) await f.evaluate(AXE_SOURCE);
    }
    return h.axeProblems();
  }

  function dropExpectedErrors(): void {
    for (let i = h.errors.length - 1; i >= 0; i--)
      if (expectedErrors.some((re) => re.test(h.errors[i]!))) h.errors.splice(i, 1);
  }

  consoleSuite('console_http_api', async (started) => {
    h = started;
    page = h.page;
  });

  it('signs in, creates an agent and opens its HTTP API tab (empty state, switches)', async () => {
    await h.signIn();
    await page.getByRole('button', { name: 'Create agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create agent' });
    await dialog.getByLabel('Name').fill('Greeter');
    await dialog.getByRole('button', { name: 'Create agent' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const { agents } = await h.gql('{ agents { id name } }');
    agentId = agents.find((a: { name: string }) => a.name === 'Greeter').id;
    await h.gql('mutation($a: ID!) { updateAgent(id: $a, input: { defaultModel: "house-model" }) { id } }', {
      a: agentId,
    });
    // A created agent opens on its Overview.
    await page.getByRole('heading', { name: 'Greeter', level: 2 }).waitFor();
    await page.getByRole('tab', { name: 'HTTP API' }).click();
    await page.getByText('No endpoints yet').waitFor();
    expect(await page.getByRole('switch', { name: 'Answer calls' }).isChecked()).to.equal(true);
    expect(await page.getByRole('switch', { name: 'Activity logging' }).isChecked()).to.equal(true);
    expect(await axeProblems()).to.deep.equal([]);
  });

  it('a script with a syntax error is refused and the editor shows its line and column; fixed, it is saved', async () => {
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await form.getByLabel('Path').fill('greet');
    await typeInEditor(page, 'Script', "const name = input.name;\nreturn { greeting: 'Hello ' + name + };");
    expect(await axeProblems()).to.deep.equal([]);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const where = form.getByText(/^Line 2, column \d+: /);
    await where.waitFor();
    // The editor marks the place: a lint range and a gutter marker on line 2.
    await form.locator('.cm-lintRange-error').first().waitFor();
    expect(await form.locator('.cm-gutterElement .cm-lint-marker-error').count()).to.equal(1);
    expect(await axeProblems()).to.deep.equal([]);

    await typeInEditor(page, 'Script', "const name = input.name;\nreturn { greeting: 'Hello ' + name };");
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form.waitFor({ state: 'hidden' });
    await page.getByRole('table', { name: 'Endpoints' }).getByText('greet').waitFor();
    const { agent } = await h.gql(
      'query($a: ID!) { agent(id: $a) { httpEndpoints { path methods handler { script } } } }',
      { a: agentId },
    );
    expect(agent.httpEndpoints).to.deep.equal([
      {
        path: 'greet',
        methods: ['POST'],
        handler: { script: "const name = input.name;\nreturn { greeting: 'Hello ' + name };" },
      },
    ]);
  });

  it('Try it calls the endpoint with a session key: 200, the answer, credits and run id; the call appears in Activity without a reload', async () => {
    // The Activity tab open in another window of the same session, before the call.
    const watcher = await page.context().newPage();
    await watcher.goto(`${h.svc.url}/console/agents/${agentId}/activity`);
    const log = watcher.getByRole('table', { name: 'Activity log' });
    await watcher
      .getByText(/No activity/i)
      .or(log)
      .first()
      .waitFor();
    await watcher.evaluate(() => {
      (globalThis as any).__sameDocument = true;
    });
    expect(await log.getByRole('row', { name: /greet/ }).count()).to.equal(0);

    const tryIt = page.getByRole('region', { name: 'Try it' });
    await tryIt.getByLabel('Body (JSON)').fill('{"name": "Ada"}');
    await tryIt.getByRole('button', { name: 'Send request' }).click();
    await tryIt.getByTestId('try-it-status').filter({ hasText: /^200/ }).waitFor();
    // The live tail shows the call; the page was not loaded again.
    await log.getByRole('row', { name: /greet.*200/ }).waitFor({ timeout: 15_000 });
    expect(await watcher.evaluate(() => (globalThis as any).__sameDocument)).to.equal(true);
    await watcher.close();
    expect(await tryIt.getByTestId('try-it-answer').textContent()).to.include('"greeting": "Hello Ada"');
    expect(await tryIt.getByTestId('try-it-credits').textContent()).to.match(/Credits: \d/);
    await tryIt.getByText(/^Run run_/).waitFor();
    await tryIt.getByText(/Calls use the key “Console Try it — Admin” \(ak_/).waitFor();
    // When the key ends, also for a tab closed without signing out.
    await tryIt.getByText(/It stops working at .+, an hour after it was made, even if you close this tab/).waitFor();
    await tryIt.getByRole('button', { name: /Headers/ }).click();
    await tryIt.getByRole('rowheader', { name: 'x-run-id' }).waitFor();
    expect(await axeProblems()).to.deep.equal([]);
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { apiKeys { name expiresAt revokedAt origin } } }', {
      a: agentId,
    });
    expect(agent.apiKeys).to.have.length(1);
    expect(agent.apiKeys[0].name).to.equal('Console Try it — Admin');
    expect(agent.apiKeys[0].origin).to.equal('TRY_IT');
    expect(agent.apiKeys[0].revokedAt).to.equal(null);
    expect(new Date(agent.apiKeys[0].expiresAt).getTime() - Date.now()).to.be.within(50 * 60_000, 61 * 60_000);
  });

  it('a body that is not JSON is caught before sending, at its line and column', async () => {
    const tryIt = page.getByRole('region', { name: 'Try it' });
    await tryIt.getByLabel('Body (JSON)').fill('{"name": }');
    await tryIt.getByRole('button', { name: 'Send request' }).click();
    await tryIt.getByText(/is not valid JSON/).waitFor();
    expect(await tryIt.getByLabel('Body (JSON)').getAttribute('aria-invalid')).to.equal('true');
    await tryIt.getByLabel('Body (JSON)').fill('{"name": "Bo"}');
  });

  it('the MCP tab: the URL and the Claude Desktop, Cursor and VS Code configurations name it, with a key placeholder or a new key filled in', async () => {
    await page.getByRole('tab', { name: 'MCP server' }).click();
    await page.getByText('No tools yet').waitFor();
    const url = `${h.svc.url}/agents/${agentId}/mcp`;
    const connect = page.getByRole('region', { name: 'Connect a client' });
    expect(await connect.locator('pre').first().textContent()).to.equal(url);
    for (const client of ['Claude Desktop', 'Cursor', 'VS Code']) {
      await connect.getByRole('tab', { name: client }).click();
      const config = await connect.getByRole('tabpanel').locator('pre').textContent();
      expect(config, client).to.include(url);
      expect(config, client).to.not.match(/ak_[A-Za-z0-9]{8}/);
      expect(JSON.parse(config!), client).to.be.an('object');
      await connect.getByRole('button', { name: `Copy ${client} configuration` }).waitFor();
    }
    expect(await axeProblems()).to.deep.equal([]);

    // "Create a key and fill it in": a new agent key in every configuration, and it works.
    await connect.getByRole('button', { name: 'Create a key and fill it in' }).click();
    await connect.getByText('The configurations below hold a new key: copy one now').waitFor();
    await connect.getByRole('tab', { name: 'Cursor' }).click();
    const cursor = JSON.parse((await connect.getByRole('tabpanel').locator('pre').textContent())!);
    const key: string = (Object.values(cursor.mcpServers)[0] as { headers: Record<string, string> }).headers[
      'X-Agent-Access-Key'
    ]!;
    expect(key).to.match(/^ak_/);
    const listed = await fetch(url, {
      method: 'POST',
      headers: {
        'x-agent-access-key': key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(listed.status).to.equal(200);
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { apiKeys { name origin revokedAt } } }', {
      a: agentId,
    });
    expect(agent.apiKeys).to.deep.include({ name: 'MCP client', origin: 'PERSON', revokedAt: null });
    expect(await axeProblems()).to.deep.equal([]);
    await connect.getByRole('button', { name: 'Show the placeholder again' }).click();
    expect(await connect.getByRole('tabpanel').locator('pre').textContent()).to.include('<your agent key (ak_…)>');
  });

  it("MCP Try it from the console is refused until the console's origin is allowed (CORS), then lists and calls a tool", async () => {
    await page.getByRole('button', { name: 'Add tool' }).click();
    const form = page.getByRole('form', { name: 'New tool' });
    // A tool without an input schema takes {"input": "<text>"}: the form says so, and so does tools/list.
    await form.getByText('clients are also told it takes {"input": "<text>"}').waitFor();
    await form.getByLabel('Name').fill('echo_tool');
    await form.getByLabel('Description').fill('Echoes its input');
    await form.getByRole('button', { name: 'Add tool' }).click();
    await form.waitFor({ state: 'hidden' });
    const tryIt = page.getByRole('region', { name: 'Try it' });
    expectedErrors.push(/status of 403/);
    await tryIt.getByRole('button', { name: 'List tools' }).click();
    await tryIt.getByTestId('try-it-status').filter({ hasText: /^403/ }).waitFor();
    await tryIt.getByText(/add http:\/\/127\.0\.0\.1:\d+ as a custom origin/).waitFor();
    dropExpectedErrors();

    await page.getByRole('tab', { name: 'HTTP API' }).click();
    const cors = page.getByRole('form', { name: 'CORS' });
    await cors.getByLabel('Custom origins').fill('not-an-origin');
    await cors.getByRole('button', { name: 'Save CORS' }).click();
    const originError = cors.getByLabel('Custom origins');
    await page.waitForFunction(() => document.querySelector('textarea[aria-invalid="true"]') !== null);
    expect(await originError.getAttribute('aria-invalid')).to.equal('true');
    await cors.getByLabel('Custom origins').fill(h.svc.url);
    await cors.getByRole('button', { name: 'Save CORS' }).click();
    await cors.getByText('Saved', { exact: true }).waitFor();

    await page.getByRole('tab', { name: 'MCP server' }).click();
    const again = page.getByRole('region', { name: 'Try it' });
    await again.getByRole('button', { name: 'List tools' }).click();
    await again.getByTestId('try-it-status').filter({ hasText: /^200/ }).waitFor();
    expect(await again.getByTestId('try-it-answer').textContent())
      .to.include('echo_tool — Echoes its input')
      .and.include('Arguments: {"input": "<text>"}');
    await again.getByLabel('Arguments (JSON)').fill('{"input": "ping"}');
    await again.getByRole('button', { name: 'Call tool' }).click();
    await again.getByTestId('try-it-credits').filter({ hasText: 'from the activity log' }).waitFor();
    expect(await again.getByTestId('try-it-answer').textContent()).to.include('ping');
    expect(await again.getByTestId('try-it-status').textContent()).to.match(/^200/);
    expect(await axeProblems()).to.deep.equal([]);
  });

  it('the Chat widget tab: the script tag with its data- attributes and a live preview that answers', async () => {
    await page.getByRole('tab', { name: 'Chat widget' }).click();
    const embed = page.getByRole('region', { name: 'Embed' });
    await embed.getByLabel('Title (data-title)').fill('Help "desk"');
    const tag = embed.locator('pre').first();
    await page.waitForFunction(() =>
      /data-title="Help &quot;desk&quot;"/.test(document.querySelector('pre')?.textContent ?? ''),
    );
    const text = (await tag.textContent())!;
    expect(text)
      .to.include(`<script src="${h.svc.url}/widget.js"`)
      .and.include('data-endpoint="/chat"')
      .and.include('async></script>');

    await page.locator('iframe[title="Chat widget preview"]').scrollIntoViewIfNeeded();
    const frame = page.frameLocator('iframe[title="Chat widget preview"]');
    const message = frame.getByRole('textbox', { name: 'Message' });
    await message.waitFor();
    // The preview follows the attributes: its title is the one typed above.
    await frame.getByRole('heading', { name: 'Help "desk"' }).waitFor();
    await message.fill('hello preview');
    await frame.getByRole('button', { name: 'Send' }).click();
    await frame.getByRole('log').getByText('echo: hello preview').waitFor();
    expect(await axeProblems()).to.deep.equal([]);
  });

  it('chat Try it streams the answer as it arrives, with credits', async () => {
    h.fake.enqueue({ text: 'one two three four five', chunkDelayMs: 150 });
    const tryIt = page.getByRole('region', { name: 'Try it' });
    await tryIt.getByLabel('Message').fill('count please');
    await tryIt.getByRole('button', { name: 'Send message' }).click();
    // While it streams: part of the answer is there before the end.
    await tryIt.getByText('Streaming…').waitFor();
    const partial = await tryIt.getByTestId('try-it-answer').textContent();
    expect(partial).to.not.equal('one two three four five');
    await tryIt
      .getByTestId('try-it-answer')
      .filter({ hasText: /^one two three four five$/ })
      .waitFor();
    await tryIt
      .getByTestId('try-it-credits')
      .filter({ hasText: /Credits: \d/ })
      .waitFor();
    const events = (await tryIt.getByTestId('try-it-events').textContent())!;
    expect(events).to.include('event: start').and.include('event: delta').and.include('event: done');
    await tryIt.getByText(/^Conversation /).waitFor();
    expect(await axeProblems()).to.deep.equal([]);
  });

  it('works at 390×844 (the sections are a select, Try it is usable)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByRole('combobox', { name: 'Section' }).selectOption({ label: 'HTTP API' });
      const send = page.getByRole('region', { name: 'Try it' }).getByRole('button', { name: 'Send request' });
      await send.scrollIntoViewIfNeeded();
      expect(await send.isVisible()).to.equal(true);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e: any) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
          .slice(0, 8)
          .map(
            (e: any) =>
              `${e.tagName}.${String(e.className).slice(0, 60)} ${Math.round(e.getBoundingClientRect().right)}`,
          ),
      );
      expect(overflow, wide.join('\n')).to.be.at.most(0);
      expect(await axeProblems()).to.deep.equal([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('a daily credit limit of 0 set on the Limits tab: Try it shows the 429 with its reason and retry time', async () => {
    await page.getByRole('tab', { name: 'Limits' }).click();
    await page.getByLabel('Daily credit limit').fill('0');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('progressbar', { name: /agent's daily limit/ }).waitFor();
    expect(
      (await h.gql('query($a: ID!) { agent(id: $a) { limits { dailyCreditLimit } } }', { a: agentId })).agent.limits
        .dailyCreditLimit,
    ).to.equal(0);
    try {
      await page.getByRole('tab', { name: 'HTTP API' }).click();
      const tryIt = page.getByRole('region', { name: 'Try it' });
      expectedErrors.push(/status of 429/);
      await tryIt.getByRole('button', { name: 'Send request' }).click();
      await tryIt.getByTestId('try-it-status').filter({ hasText: /^429/ }).waitFor();
      const problem = (await tryIt.getByTestId('try-it-problem').textContent())!;
      expect(problem)
        .to.include('Reason: daily_credit_limit')
        .and.match(/Try again in [\d.]+ (seconds|minutes|hours) \(Retry-After: \d+; at /);
      expect(await axeProblems()).to.deep.equal([]);
    } finally {
      await h.gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: null) { id } }', { a: agentId });
    }
  });

  it("sign-out revokes the session's Try-it key: a call with it afterwards gets 401", async () => {
    // The widget preview's cookie holds the session's Try-it key for this agent.
    const cookie = (await h.context.cookies()).find((c) => c.name === 'aes_try_it');
    expect(cookie?.path).to.equal(`/console/widget-preview/${agentId}`);
    const key = decodeURIComponent(cookie!.value);
    const call = () =>
      fetch(`${h.svc.url}/agents/${agentId}/api/greet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
        body: '{"name":"Eve"}',
      });
    expect((await call()).status).to.equal(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').waitFor();
    const after = await call();
    expect(after.status).to.equal(401);
    expect(((await after.json()) as { error: string }).error).to.match(/revoked/);
  });

  it('no console error and no CSP violation on the way', async () => {
    await h.collectViolations();
    dropExpectedErrors();
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
