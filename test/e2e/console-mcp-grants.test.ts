import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// The MCP tab's "Connected apps (OAuth)" in Chromium, under the console's CSP: the connector URL
// to paste into a hosted AI app (with its copy button) and the empty state; a grant the consent
// step stored is listed (app, redirect host, approving member, dates) → revoked after a
// confirmation (cancel first changes nothing) → the row is gone from the page and the database.
// The activity drawer of an OAuth call names the client and the approving member.
// axe on each state; no console error and no CSP violation.

describe('e2e: console MCP tab, connected apps (OAuth)', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let agentId: string;
  let workspaceId: string;
  let viewer: { id: string; name: string; email: string };

  consoleSuite('console_mcp_grants', async (started) => {
    h = started;
    await h.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(h.svc.url).origin });
    agentId = (await h.gql('mutation { createAgent(input: { name: "Connector" }) { id } }')).createAgent.id;
    const me = await h.gql('{ viewer { id name email } workspace { id } }');
    viewer = me.viewer;
    workspaceId = me.workspace.id;
    h.page.setDefaultTimeout(15_000);
    await h.signIn();
  });

  const section = () => h.page.getByRole('region', { name: 'Connected apps (OAuth)' });

  it('shows the connector URL with a copy button, and explains how an app connects when none has', async () => {
    const { page } = h;
    await page.goto(`${h.svc.url}/console/agents/${agentId}/mcp`);
    await section().getByText('No connected apps yet').waitFor();
    const url = `${h.svc.url}/agents/${agentId}/mcp`;
    expect(await section().locator('pre').first().textContent()).to.equal(url);
    expect(await h.axeProblems()).to.deep.equal([]);
    await section().getByRole('button', { name: 'Copy Connector URL' }).click();
    // The button keeps its accessible name; its text says it copied.
    await section().getByRole('button', { name: 'Copy Connector URL' }).getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).to.equal(url);
  });

  it('lists an approved app and revokes it after a confirmation: the row is gone, and so is the grant', async () => {
    const { page } = h;
    const { repos } = h.svc.service.store;
    const grantId = newId('grt');
    await repos.mcpGrants.insert({
      id: grantId,
      workspaceId,
      agentId,
      memberId: viewer.id,
      memberTokenId: null,
      clientId: 'https://claude.ai/oauth/mcp-client.json',
      clientName: 'Claude',
      redirectHost: 'claude.ai',
      createdAt: new Date(Date.now() - 3_600_000),
      lastUsedAt: null,
    });
    await page.reload();
    const row = section().getByRole('row', { name: /Claude/ });
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text)
      .to.include('claude.ai')
      .and.include(viewer.name || viewer.email)
      .and.include('Never');
    expect(await h.axeProblems()).to.deep.equal([]);

    await row.getByRole('button', { name: 'Revoke Claude' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke connected app' });
    await confirm.getByText(/Its tokens stop working at once/).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await repos.mcpGrants.get(grantId)).to.not.equal(null);

    await row.getByRole('button', { name: 'Revoke Claude' }).click();
    await confirm.getByRole('button', { name: 'Revoke access' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await section().getByText('No connected apps yet').waitFor();
    expect(
      await section()
        .getByRole('row', { name: /Claude/ })
        .count(),
    ).to.equal(0);
    expect(await repos.mcpGrants.get(grantId)).to.equal(null);
  });

  it('the activity drawer of an OAuth call names the client and the member who approved it', async () => {
    const { page } = h;
    const clientId = 'https://chatgpt.com/oauth/client.json';
    await h.svc.service.store.repos.activity.insert({
      id: newId('act'),
      workspaceId,
      agentId,
      kind: 'request',
      surface: 'MCP',
      entry: 'lookup',
      method: 'POST',
      path: `/agents/${agentId}/mcp`,
      status: 200,
      requestHeaders: {},
      requestBody: null,
      response: null,
      truncated: false,
      credits: 0,
      durationMs: 5,
      keyId: null,
      oauthClientId: clientId,
      grantedBy: viewer.id,
      runId: null,
      requestId: null,
      error: null,
      logs: null,
      createdAt: new Date(),
      protocol: false,
      deliveryId: null,
    });
    await page.goto(`${h.svc.url}/console/agents/${agentId}/activity`);
    const rows = page.getByRole('table', { name: 'Activity log' }).locator('tbody tr');
    await rows.first().getByRole('button').click();
    const drawer = page.getByRole('dialog', { name: 'Activity entry' });
    const caller = drawer.getByTestId('oauth-caller');
    await caller.getByText(viewer.email, { exact: false }).waitFor();
    expect((await caller.textContent())!.replace(/\s+/g, ' ')).to.equal(
      `OAuth client ${clientId}, approved by member ${viewer.name} (${viewer.email})`,
    );
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('made no console error and no CSP violation', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
