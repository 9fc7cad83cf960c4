import { expect } from 'chai';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// The agent's Activity, Usage and Limits tabs in Chromium, under the console's CSP. Calls made over
// HTTP to the agent's HTTP API appear in Activity without a reload (the live tail); the filters
// narrow the list; the detail drawer shows headers, body, response, credits and ids, and the values
// the service redacted (a credential header, an e-mail address the guardrails redact) as
// "redacted"; Usage's tables give the same figures as the calls; a daily limit of 0 saved in Limits
// makes the next call a 429, and clearing it lets calls through again. A prompt run that calls a
// document tool shows its spans in the drawer's timeline. axe-core on every tab, at
// 1280×800 and at 390×844; no console error and no CSP violation.

describe('e2e: the console’s Activity, Usage and Limits tabs', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let page: ConsoleHarness['page'];
  let gql: ConsoleHarness['gql'];
  let agentId: string;
  let key: string;
  let keyId: string;
  const base = () => h.svc.url;
  const callEndpoint = (path: string, body: unknown, k = key) =>
    fetch(`${base()}/agents/${agentId}/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': k },
      body: JSON.stringify(body),
    });
  const status = () => page.getByRole('combobox', { name: 'Status' });
  const rows = () => page.getByRole('table', { name: 'Activity log' }).locator('tbody tr');
  const rowTexts = async () => (await rows().allTextContents()).map((t) => t.replace(/\s+/g, ' '));
  /** Waits until the activity table shows exactly `n` rows (or the empty state when 0). */
  const expectRows = async (n: number) => {
    if (n === 0) return page.getByText(/No entries match|No activity yet/).waitFor();
    await page.waitForFunction(
      (count) =>
        (globalThis as any).document.querySelectorAll('table[aria-label="Activity log"] tbody tr').length === count,
      n,
      { timeout: 10_000 },
    );
  };

  consoleSuite('console_activity', async (started) => {
    h = started;
    ({ page, gql } = h);
    agentId = (await gql('mutation { createAgent(input: { name: "Activity bot" }) { id } }')).createAgent.id;
    const endpoint = 'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }';
    await gql(endpoint, {
      a: agentId,
      i: { path: 'orders', handler: { script: "return { got: input, contact: 'ops@example.com' };" } },
    });
    await gql(endpoint, { a: agentId, i: { path: 'refunds', handler: { script: 'return { refunded: true };' } } });
    // The guardrails redact e-mail addresses from the agent's output.
    await gql('mutation($a: ID!) { setGuardrails(agentId: $a, input: { redactPresets: [email] }) { id } }', {
      a: agentId,
    });
    const created = (
      await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "test") { key apiKey { id } } }', {
        a: agentId,
      })
    ).createAgentApiKey;
    key = created.key;
    keyId = created.apiKey.id;
    await h.signIn();
  });

  it('Activity: calls appear without a reload (live tail)', async () => {
    await page.goto(`${base()}/console/agents/${agentId}/activity`);
    await page.getByText('No activity yet').waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);
    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));

    expect((await callEndpoint('orders', { q: 'hello' })).status).to.equal(200);
    await expectRows(1);
    expect((await callEndpoint('refunds', { id: 7 })).status).to.equal(200);
    expect((await callEndpoint('orders', { q: 'no key' }, 'ak_not_a_key_at_all_0000000000')).status).to.equal(401);
    await expectRows(3);
    expect(navigations).to.deep.equal([]);
    const texts = await rowTexts();
    expect(texts[0]).to.include('orders').and.include('401');
    expect(texts[1]).to.include('refunds').and.include('200');
    expect(texts[2]).to.include('orders').and.include('200').and.include('POST /api/orders');
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('Activity: the filters narrow the list (surface, status, entry, date); a bad status is shown under its field', async () => {
    await status().fill('4xx');
    await expectRows(1);
    expect((await rowTexts())[0]).to.include('401');
    await status().fill('2xx');
    await expectRows(2);
    await page.getByLabel('Entry').fill('refunds');
    await expectRows(1);
    expect((await rowTexts())[0]).to.include('refunds');
    await page.getByLabel('Entry').fill('');
    await status().fill('');
    await expectRows(3);

    await page.getByRole('combobox', { name: 'Surface' }).click();
    await page.getByRole('option', { name: 'MCP' }).click();
    await page.getByText('No entries match').waitFor();
    await page.getByRole('combobox', { name: 'Surface' }).click();
    await page.getByRole('option', { name: 'HTTP API' }).click();
    await expectRows(3);

    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From (UTC day)').fill(tomorrow);
    await page.getByText('No entries match').waitFor();
    await page.getByLabel('From (UTC day)').fill(today);
    await page.getByLabel('To (UTC day)').fill(today);
    await expectRows(3);
    // An end before the start: the service's error, under "To".
    await page.getByLabel('From (UTC day)').fill(tomorrow);
    await page.getByText('Must be later than since').waitFor();
    expect(await page.getByLabel('To (UTC day)').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('From (UTC day)').fill('');
    await page.getByLabel('To (UTC day)').fill('');

    await status().fill('42');
    await page.getByText(/Must be a status code/).waitFor();
    expect(await status().getAttribute('aria-invalid')).to.equal('true');
    expect(await h.axeProblems()).to.deep.equal([]);
    await status().fill('');
    await expectRows(3);
    // Only the "surface" filter was a deliberate choice: clear it too.
    await page.getByRole('combobox', { name: 'Surface' }).click();
    await page.getByRole('option', { name: 'HTTP API' }).click(); // picking the chosen option again clears it
    await expectRows(3);
  });

  it('Activity: the detail drawer shows headers, body, response, credits and ids, with redactions as "redacted"', async () => {
    const { nodes } = (
      await gql(
        'query($a: ID!) { agent(id: $a) { activity(first: 10) { nodes { id entry status runId requestId credits } } } }',
        { a: agentId },
      )
    ).agent.activity;
    const first = nodes.find((n: any) => n.entry === 'orders' && n.status === 200);
    expect(first.credits).to.be.greaterThan(0);
    await rows().nth(2).getByRole('button').click();
    const drawer = page.getByRole('dialog', { name: 'Activity entry' });
    await drawer.getByText('Request headers').waitFor();
    await drawer.getByText(first.runId, { exact: true }).waitFor();
    await drawer.getByText(first.requestId, { exact: true }).waitFor();
    await drawer.getByText(keyId, { exact: true }).waitFor();
    expect(await drawer.getByRole('button', { name: 'Copy the run id' }).count()).to.equal(1);
    // The key header is stored redacted: a badge, not the key.
    const keyRow = drawer.getByRole('row', { name: /x-agent-access-key/ });
    expect((await keyRow.textContent())!.replace(/\s+/g, ' '))
      .to.include('redacted')
      .and.not.include(key);
    expect(await keyRow.locator('.mantine-Badge-root').count()).to.equal(1);
    // The body as sent; the e-mail address the guardrails redacted from the response as a badge.
    expect(await drawer.getByRole('region', { name: 'Request body' }).textContent()).to.include('"q": "hello"');
    const response = drawer.getByRole('region', { name: 'Response' });
    expect(await response.textContent())
      .to.include('"got"')
      .and.not.include('ops@example.com');
    expect(await response.locator('.mantine-Badge-root', { hasText: 'redacted' }).count()).to.equal(1);
    expect(await drawer.textContent()).to.include(`Credits ${first.credits}`);
    expect(await h.axeProblems()).to.deep.equal([]);

    // The same drawer at 390×844.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await drawer.getByText('Request headers').waitFor();
      expect(await h.axeProblems()).to.deep.equal([]);
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'hidden' });
      expect(await h.axeProblems()).to.deep.equal([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('Usage: the charts, and tables whose figures match the calls', async () => {
    await page.getByRole('tab', { name: 'Usage' }).click();
    await page.getByRole('img', { name: /credits per UTC day/ }).waitFor();
    await page.getByRole('img', { name: /runs per UTC day by surface/ }).waitFor();
    expect(await page.locator('.recharts-bar-rectangle').count()).to.be.greaterThan(0);
    expect(await h.axeProblems()).to.deep.equal([]);

    const { usage, activity } = (
      await gql(
        'query($a: ID!) { agent(id: $a) { usage(days: 1) { day credits runs } activity(first: 10) { nodes { credits runId } } } }',
        { a: agentId },
      )
    ).agent;
    const runs = activity.nodes.filter((n: any) => n.runId);
    expect(runs).to.have.length(2); // the refused call ran nothing
    const credits = runs.reduce((a: number, n: any) => a + n.credits, 0);
    expect(usage[0]).to.include({ runs: 2 });
    expect(usage[0].credits).to.be.closeTo(credits, 1e-9);

    await page.getByRole('button', { name: 'Show credits per day as a table' }).click();
    const today = new Date().toISOString().slice(0, 10);
    const dayRow = page.getByRole('table', { name: 'Credits per day' }).getByRole('row', { name: new RegExp(today) });
    const cells = await dayRow.locator('td').allTextContents();
    expect(Number(cells[0])).to.be.closeTo(credits, 1e-6);
    expect(cells[1]).to.equal('2');
    await page.getByRole('button', { name: 'Show runs per surface as a table' }).click();
    const http = await page
      .getByRole('table', { name: 'Runs per surface' })
      .getByRole('row', { name: /HTTP API/ })
      .locator('td')
      .allTextContents();
    expect(http[0]).to.equal('2');
    expect(Number(http[1])).to.be.closeTo(credits, 1e-6);
    const mcp = await page
      .getByRole('table', { name: 'Runs per surface' })
      .getByRole('row', { name: /^MCP/ })
      .locator('td')
      .allTextContents();
    expect(mcp[0]).to.equal('0');
    expect(await h.axeProblems()).to.deep.equal([]);

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByRole('img', { name: /credits per UTC day/ }).waitFor();
      expect(await h.axeProblems()).to.deep.equal([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('Limits: a daily limit of 0 makes the next call a 429; clearing it (one click) lets calls through', async () => {
    await page.getByRole('tab', { name: 'Limits' }).click();
    const daily = page.getByLabel('Daily credit limit');
    await daily.waitFor();
    await page
      .getByText(/credits today · no daily limit/)
      .first()
      .waitFor();
    await page.getByRole('table', { name: 'Team and workspace limits' }).getByText('The agent is in no team').waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);

    await daily.fill('0');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('status').getByText('Saved', { exact: true }).waitFor();
    await page.getByRole('progressbar', { name: /agent's daily limit/ }).waitFor();
    expect(
      await page.getByRole('progressbar', { name: /agent's daily limit/ }).getAttribute('aria-valuetext'),
    ).to.match(/^[\d.]+ of 0 credits today$/);
    const limits = (
      await gql('query($a: ID!) { agent(id: $a) { limits { dailyCreditLimit maxConcurrentRequests } } }', {
        a: agentId,
      })
    ).agent.limits;
    expect(limits).to.deep.equal({ dailyCreditLimit: 0, maxConcurrentRequests: null });
    const refused = await callEndpoint('orders', { q: 'over the limit' });
    expect(refused.status).to.equal(429);
    expect(((await refused.json()) as { error: string }).error).to.match(/daily credit limit of 0/);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await h.axeProblems()).to.deep.equal([]);

    // A bad value: the service's message under the field.
    await page.getByLabel('Max concurrent requests').fill('0');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText('Must be at least 1').waitFor();
    expect(await page.getByLabel('Max concurrent requests').getAttribute('aria-invalid')).to.equal('true');

    // Cleared: no limit, saved by the one click (no Save after it), and the 429 stops.
    await page.getByRole('button', { name: 'Clear both limits' }).click();
    await page.getByRole('status').getByText('Saved', { exact: true }).waitFor();
    await page
      .getByText(/credits today · no daily limit/)
      .first()
      .waitFor();
    expect(
      (
        await gql('query($a: ID!) { agent(id: $a) { limits { dailyCreditLimit maxConcurrentRequests } } }', {
          a: agentId,
        })
      ).agent.limits,
    ).to.deep.equal({
      dailyCreditLimit: null,
      maxConcurrentRequests: null,
    });
    expect((await callEndpoint('orders', { q: 'again' })).status).to.equal(200);

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      expect(await h.axeProblems()).to.deep.equal([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('Activity after the limit: the 429 is in the log with its reason, shown live', async () => {
    await page.getByRole('tab', { name: 'Activity' }).click();
    await status().fill('429');
    await expectRows(1);
    await rows().first().getByRole('button').click();
    const drawer = page.getByRole('dialog', { name: 'Activity entry' });
    await drawer
      .getByText(/daily credit limit of 0/)
      .first()
      .waitFor();
    await page.keyboard.press('Escape');
    await status().fill('');
    await expectRows(5);
  });

  it('Activity: one row per call — MCP protocol traffic dimmed behind a switch, a webhook’s receipt and run as one row', async () => {
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: MCP, enabled: true) { id } }', { a: agentId });
    await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: { name: 'echo', description: 'Echoes', handler: { script: 'return input;' } },
    });
    // What an MCP client sends to list the tools: the handshake, its notification, the stream probe, the list.
    const mcp = (method: string, body?: unknown) =>
      fetch(`${base()}/agents/${agentId}/mcp`, {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'x-agent-access-key': key,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const init = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'console-test', version: '1' },
    };
    expect((await mcp('POST', { jsonrpc: '2.0', id: 1, method: 'initialize', params: init })).status).to.equal(200);
    expect((await mcp('POST', { jsonrpc: '2.0', method: 'notifications/initialized' })).status).to.equal(202);
    expect((await mcp('GET')).status).to.equal(405);
    expect((await mcp('POST', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).to.equal(200);
    // Off by default: the list is the one call.
    await expectRows(6);
    expect((await rowTexts())[0])
      .to.include('tools/list')
      .and.include('200');
    expect(await page.locator('tr[data-protocol]').count()).to.equal(0);

    await page.getByRole('switch', { name: 'Protocol traffic' }).check();
    await expectRows(9);
    const dimmed = page.locator('tr[data-protocol]');
    expect(await dimmed.count()).to.equal(3);
    const probe = ((await dimmed.filter({ hasText: 'GET /mcp' }).textContent()) ?? '').replace(/\s+/g, ' ');
    expect(probe).to.include('405').and.include('protocol').and.not.include('error');
    expect(
      await dimmed
        .filter({ hasText: 'GET /mcp' })
        .locator('.mantine-Badge-root', { hasText: '405' })
        .getAttribute('style'),
    ).to.include('gray');
    expect(await dimmed.filter({ hasText: 'notifications/initialized' }).count()).to.equal(1);
    expect(await h.axeProblems()).to.deep.equal([]);
    await page.getByRole('switch', { name: 'Protocol traffic' }).uncheck();
    await expectRows(6);

    // A webhook delivery: its receipt and its run, one row with both statuses.
    await gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: { integration: 'orders-hook', handler: { script: 'return { ok: true };' } },
    });
    const delivered = await fetch(`${base()}/agents/${agentId}/webhook/orders-hook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: 1 }),
    });
    expect(delivered.status).to.equal(200);
    await rows().first().getByText('run ok').waitFor({ timeout: 30_000 });
    await expectRows(7);
    expect((await rowTexts())[0])
      .to.include('orders-hook')
      .and.include('200')
      .and.include('run ok');
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('Activity: the drawer’s timeline shows a prompt run’s spans — the run, two model calls with their tokens, the document tool with its input', async () => {
    const bot = (
      await gql('mutation { createAgent(input: { name: "Timeline bot", defaultModel: "house-model" }) { id } }')
    ).createAgent.id;
    await gql('mutation($a: ID!, $c: CapabilitiesInput!) { setCapabilities(agentId: $a, input: $c) { id } }', {
      a: bot,
      c: { documents: true },
    });
    const doc = (
      await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
        a: bot,
        i: { name: 'Guide', kind: 'TEXT', content: 'Be kind to leads.' },
      })
    ).createDocument.id;
    await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: bot,
      i: { path: 'assist', handler: { prompt: 'Use your tools.' } },
    });
    const botKey = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "t") { key } }', { a: bot }))
      .createAgentApiKey.key;
    h.fake.reset();
    h.fake.enqueue(
      { toolCalls: [{ name: 'read_document', arguments: { documentId: doc } }], usage: { prompt: 31, completion: 7 } },
      { text: 'Be kind.', usage: { prompt: 53, completion: 4 } },
    );
    const r = await fetch(`${base()}/agents/${bot}/api/assist`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': botKey },
      body: JSON.stringify({ task: 'read the guide' }),
    });
    expect(r.status, await r.clone().text()).to.equal(200);
    expect(h.fake.pending()).to.equal(0);

    await page.goto(`${base()}/console/agents/${bot}/activity`);
    await expectRows(1);
    await rows().first().getByRole('button').click();
    const drawer = page.getByRole('dialog', { name: 'Activity entry' });
    const timeline = drawer.getByRole('list', { name: 'Run timeline' });
    await timeline.waitFor();
    const text = async (l: ReturnType<typeof timeline.locator>) => ((await l.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(await timeline.locator('li[data-span^="invoke_agent"]').count()).to.equal(1);
    expect(await text(timeline.locator('li[data-span^="invoke_agent"]')))
      .to.include('Timeline bot')
      .and.match(/credits/);
    const chats = timeline.locator('li[data-span^="chat"]');
    expect(await chats.count()).to.equal(2);
    expect(await text(chats.nth(0)))
      .to.include('tokens 31 in / 7 out')
      .and.match(/\d ms/);
    expect(await text(chats.nth(1))).to.include('tokens 53 in / 4 out');
    const tool = timeline.locator('li[data-span="execute_tool read_document"]');
    expect(await tool.count()).to.equal(1);
    // Collapsed until asked for, as long bodies are.
    expect(await drawer.getByRole('region', { name: /Input of execute_tool read_document/ }).count()).to.equal(0);
    await tool.getByRole('button', { name: 'Input and output of execute_tool read_document' }).click();
    expect(await drawer.getByRole('region', { name: /Input of execute_tool read_document/ }).textContent()).to.include(
      doc,
    );
    expect(await drawer.getByRole('region', { name: /Output of execute_tool read_document/ }).textContent()).to.include(
      'Be kind to leads.',
    );
    const [{ id: entryId }] = (
      await gql('query($a: ID!) { agent(id: $a) { activity(first: 1) { nodes { id } } } }', { a: bot })
    ).agent.activity.nodes;
    const { traceId } = (
      await gql('query($a: ID!, $id: ID!) { agent(id: $a) { activityEntry(id: $id) { traceId } } }', {
        a: bot,
        id: entryId,
      })
    ).agent.activityEntry;
    expect(traceId).to.match(/^[0-9a-f]{32}$/);
    await drawer.getByText(traceId, { exact: true }).waitFor();
    expect(await drawer.getByRole('button', { name: 'Copy the trace id' }).count()).to.equal(1);
    expect(await h.axeProblems()).to.deep.equal([]);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await timeline.waitFor();
      expect(await h.axeProblems()).to.deep.equal([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('made no console error and no CSP violation', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
