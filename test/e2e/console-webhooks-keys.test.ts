import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// The agent's API Keys and Webhooks tabs in Chromium, under the console's CSP:
// - create an agent key (shown once, with a copy button; afterwards only prefix and last four) →
//   it calls the agent's HTTP API → revoke it through the confirmation → the same call gets 401;
// - add a webhook integration with a signing secret (a script with a syntax error first: the editor
//   shows its line and column) → the test sends a signed delivery → it appears under deliveries
//   with its run's output → replay runs it again (a second delivery with its own run).
// axe on each tab (1280×800 and 390×844); no console error and no CSP violation.

const SECRET_VALUE = 'whsec-console-test-0123456789';

describe('e2e: console API Keys and Webhooks tabs', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let agentId: string;
  /** The key the console showed once (kept by the test, as its user would copy it). */
  let createdKey: string;

  consoleSuite('console_hooks_keys', async (started) => {
    h = started;
    await h.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(h.svc.url).origin });
    const { createAgent } = await h.gql('mutation { createAgent(input: { name: "Hooks and keys" }) { id } }');
    agentId = createAgent.id;
    await h.gql(
      'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: { path: "ping", methods: [POST], handler: { script: "return { pong: true };" } }) { id } }',
      { a: agentId },
    );
    await h.gql(
      'mutation { createSecret(kind: WEBHOOK_SIGNING_SECRET, name: "orders-signing", value: "' +
        SECRET_VALUE +
        '") { id } }',
    );
    h.page.setDefaultTimeout(15_000);
    await h.signIn();
  });

  const ping = (key: string) =>
    fetch(`${h.svc.url}/agents/${agentId}/api/ping`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });

  it('creates an agent key shown once with a copy button, then lists only its prefix and last four', async () => {
    const { page } = h;
    await page.goto(`${h.svc.url}/console/agents/${agentId}/keys`);
    await page.getByText('No API keys yet').waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);

    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('dialog', { name: 'Create API key' });
    await form.waitFor();
    // An empty name: the error appears under Name.
    await form.getByRole('button', { name: 'Create key' }).click();
    await form.getByText(/must not be empty/i).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);
    await form.getByLabel('Name').fill('Checkout app');
    await form.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    await shown.waitFor();
    await shown.getByText(/You won.t see it again/).waitFor();
    const key = (await shown.getByTestId('new-key').textContent())!.trim();
    expect(key).to.match(/^ak_/);
    createdKey = key;
    expect(await h.axeProblems()).to.deep.equal([]);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).to.equal(key);
    expect((await ping(key)).status).to.equal(200);

    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Checkout app/ });
    await row.waitFor();
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { apiKeys { prefix last4 } } }', { a: agentId });
    const [{ prefix, last4 }] = agent.apiKeys;
    expect(await row.textContent())
      .to.include(`${prefix}…${last4}`)
      .and.include('Active')
      .and.include('Never');
    expect(key.startsWith(prefix) && key.endsWith(last4)).to.equal(true);
    // The key itself is nowhere on the page any more.
    expect(await page.content()).to.not.include(key);
    await page.reload();
    await page.getByRole('row', { name: /Checkout app/ }).waitFor();
    expect(await page.content()).to.not.include(key);
  });

  it('revokes the key after a confirmation (cancel first changes nothing); a call with it then gets 401', async () => {
    const { page } = h;
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { apiKeys { id } } }', { a: agentId });
    const keyId: string = agent.apiKeys[0].id;
    await page.getByRole('button', { name: 'Revoke Checkout app' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke API key' });
    await confirm.waitFor();
    await confirm.getByText(/Calls with it are refused with 401/).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);
    // Cancel first: nothing happens.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(
      (await h.gql('query($a: ID!) { agent(id: $a) { apiKeys { revokedAt } } }', { a: agentId })).agent.apiKeys[0]
        .revokedAt,
    ).to.equal(null);

    await page.getByRole('button', { name: 'Revoke Checkout app' }).click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'hidden' });
    // A revoked key leaves the list; "Show revoked" brings it back, marked.
    await page.getByText('No keys to show').waitFor();
    await page.getByRole('checkbox', { name: 'Show revoked (1)' }).check();
    await page
      .getByRole('row', { name: /Checkout app/ })
      .getByText(/Revoked/)
      .waitFor();
    const after = await h.gql('query($a: ID!) { agent(id: $a) { apiKeys { id revokedAt } } }', { a: agentId });
    expect(after.agent.apiKeys[0].id).to.equal(keyId);
    expect(after.agent.apiKeys[0].revokedAt).to.be.a('string');
    const res = await ping(createdKey);
    expect(res.status).to.equal(401);
  });

  it('hides the keys Try it and the CLI made until asked, and names who made them', async () => {
    const { page } = h;
    await h.gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "aes cli — laptop", origin: CLI) { key } }', {
      a: agentId,
    });
    await page.reload();
    await page.getByText('No keys to show').waitFor();
    expect(await page.getByRole('row', { name: /aes cli/ }).count()).to.equal(0);
    await page.getByRole('checkbox', { name: 'Show keys made by Try it and the CLI (1)' }).check();
    const row = page.getByRole('row', { name: /aes cli — laptop/ });
    await row.waitFor();
    expect(await row.getByText('CLI', { exact: true }).count()).to.equal(1);
    await page.getByText(/A Try-it key works for an hour after Try it made it/).waitFor();
    // The revoked person's key stays hidden until its own switch is on.
    expect(await page.getByRole('row', { name: /Checkout app/ }).count()).to.equal(0);
    await page.getByRole('checkbox', { name: 'Show revoked (1)' }).check();
    await page.getByRole('row', { name: /Checkout app/ }).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('the allow-workspace-keys switch writes the agent setting', async () => {
    const { page } = h;
    const toggle = page.getByRole('switch', { name: /Allow workspace keys/ });
    expect(await toggle.isChecked()).to.equal(false);
    await toggle.click({ force: true });
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('input[role="switch"]')?.checked === true,
    );
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { allowWorkspaceKeys } }', { a: agentId });
    expect(agent.allowWorkspaceKeys).to.equal(true);
  });

  it('adds a signed webhook integration (a script error is shown at its line and column first) and shows its URL', async () => {
    const { page } = h;
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    await page.getByText('No integrations yet').waitFor();
    await page.getByText('No deliveries').waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);

    await page.getByRole('button', { name: 'Add integration' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add integration' });
    await dialog.waitFor();
    await dialog.getByLabel('Integration name').fill('orders');
    expect(await dialog.getByRole('switch', { name: "Check the sender's signature" }).isChecked()).to.equal(true);
    expect(await dialog.getByRole('combobox', { name: 'Signing secret' }).inputValue()).to.equal('orders-signing');
    expect(await h.axeProblems()).to.deep.equal([]);

    const editor = dialog.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(
      'const order = input.order;\nreturn { got: order, attempt: request.delivery.attempt ;',
    );
    await dialog.getByRole('button', { name: 'Add integration' }).click();
    await dialog.getByText(/Line 2, column \d+:/).waitFor();
    await dialog.locator('.cm-lint-marker-error').waitFor();

    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(
      'const order = input.order;\nreturn { got: order, attempt: request.delivery.attempt };',
    );
    await dialog.getByRole('button', { name: 'Add integration' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const card = page.getByRole('region', { name: 'Integration orders' });
    await card.waitFor();
    expect(await card.textContent()).to.include('Signed: HMAC_SHA256 with orders-signing');
    expect(await card.getByTestId('webhook-url').textContent()).to.equal(
      `${h.svc.url}/agents/${agentId}/webhook/orders`,
    );
    const { agent } = await h.gql(
      'query($a: ID!) { agent(id: $a) { webhooks { integration signature { scheme secretName } handler { script } warning } } }',
      { a: agentId },
    );
    expect(agent.webhooks).to.have.length(1);
    expect(agent.webhooks[0]).to.deep.include({
      integration: 'orders',
      signature: { scheme: 'HMAC_SHA256', secretName: 'orders-signing' },
      warning: null,
    });
  });

  it('a signed delivery appears under deliveries with its run output; replay runs it again', async () => {
    const { page } = h;
    const url = (await page
      .getByRole('region', { name: 'Integration orders' })
      .getByTestId('webhook-url')
      .textContent())!;
    const body = JSON.stringify({ order: { id: 'ord_42', total: 19.5 } });
    const signature = `sha256=${createHmac('sha256', SECRET_VALUE).update(body).digest('hex')}`;
    // A wrong signature is refused and stores nothing.
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': 'sha256=00' },
      body,
    });
    expect(forged.status).to.equal(401);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': signature },
      body,
    });
    expect(res.status).to.equal(200);
    const { deliveryId } = (await res.json()) as { deliveryId: string };

    // The list refreshes by itself while the delivery is pending (no reload, no click).
    const row = page.locator(`tr[data-delivery="${deliveryId}"]`);
    await row.waitFor({ timeout: 30_000 });
    await row.getByText('DONE').waitFor({ timeout: 30_000 });
    await row.getByText(/ord_42/).waitFor();
    expect(await row.textContent()).to.include('orders');
    await row.getByRole('button', { name: `Details of ${deliveryId}` }).click();
    const detail = page.getByRole('region', { name: `Delivery ${deliveryId}` });
    await detail.waitFor();
    const output = JSON.parse((await detail.getByTestId('run-output').textContent())!);
    expect(output).to.deep.equal({ got: { id: 'ord_42', total: 19.5 }, attempt: 1 });
    expect(await detail.textContent()).to.include(body);
    expect(await h.axeProblems()).to.deep.equal([]);

    await row.getByRole('button', { name: `Replay ${deliveryId}` }).click();
    const notice = page.getByText(new RegExp(`Replay of ${deliveryId} queued as (whd_\\w+)`));
    await notice.waitFor();
    const replayId = /queued as (whd_\w+)/.exec((await notice.textContent())!)![1]!;
    const replayRow = page.locator(`tr[data-delivery="${replayId}"]`);
    await replayRow.getByText('DONE').waitFor({ timeout: 30_000 });
    await replayRow.getByText(/ord_42/).waitFor();
    expect(await replayRow.textContent()).to.include(`Replay of ${deliveryId}`);

    const d = await h.gql(
      'query($a: ID!) { webhookDeliveries(agentId: $a) { nodes { id status replayOf run { runId output } } } }',
      { a: agentId },
    );
    const nodes = d.webhookDeliveries.nodes as {
      id: string;
      status: string;
      replayOf: string | null;
      run: { runId: string; output: unknown };
    }[];
    expect(nodes.map((n) => n.id)).to.deep.equal([replayId, deliveryId]);
    expect(nodes.every((n) => n.status === 'DONE')).to.equal(true);
    expect(nodes[0]!.replayOf).to.equal(deliveryId);
    expect(nodes[0]!.run.runId).to.not.equal(nodes[1]!.run.runId);
    expect(nodes[0]!.run.output).to.deep.equal(output);
  });

  it('filters deliveries by status and integration', async () => {
    const { page } = h;
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await page.getByText('None matches these filters.').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Done' }).click();
    await page.locator('tr[data-delivery]').nth(1).waitFor();
    expect(await page.locator('tr[data-delivery]').count()).to.equal(2);
    await page.getByRole('combobox', { name: 'Integration' }).click();
    await page.getByRole('option', { name: 'orders' }).click();
    expect(await page.locator('tr[data-delivery]').count()).to.equal(2);
  });

  it("an integration without a signature check says in the console's words how to add one", async () => {
    const { page } = h;
    await h.gql(
      'mutation($a: ID!) { addWebhook(agentId: $a, input: { integration: "open-hook", handler: { script: "return 1;" } }) { id } }',
      { a: agentId },
    );
    await page.reload();
    const card = page.getByRole('region', { name: 'Integration open-hook' });
    await card.waitFor();
    const text = (await card.textContent())!;
    expect(text).to.include("Add a signing secret in Workspace → Secrets, then Edit → Check the sender's signature.");
    expect(text).to.not.match(/createSecret|updateWebhook/);
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('at 390×844 the Webhooks and API Keys tabs pass axe', async () => {
    const { page } = h;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await page.getByRole('region', { name: 'Integration orders' }).waitFor();
      expect(await h.axeProblems()).to.deep.equal([]);
      await page.goto(`${h.svc.url}/console/agents/${agentId}/keys`);
      await page.getByRole('checkbox', { name: /^Show revoked/ }).check();
      await page.getByRole('row', { name: /Checkout app/ }).waitFor();
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
