import { expect } from 'chai';
import { consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// The agent's Document API tab in Chromium, under the console's CSP: create a database document
// with fields (a field error first), expose it read/write (and as an MCP resource and back), records added over the Document API with
// an agent key → the records browser filters (a bad filter shows its error under Filter), sorts
// and pages them; a text document's content is edited. axe at 1280×800 and 390×844; no console
// error and no CSP violation.

describe('e2e: console Document API tab', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let agentId: string;
  let docId: string;

  consoleSuite('console_documents', async (started) => {
    h = started;
    const { createAgent } = await h.gql('mutation { createAgent(input: { name: "Docs agent" }) { id } }');
    agentId = createAgent.id;
    h.page.setDefaultTimeout(15_000);
    await h.signIn();
  });

  const rowTitles = async () =>
    (await h.page.getByRole('table', { name: 'Records of the document' }).locator('tbody tr').allTextContents()).map(
      (t) => /task \d\d/.exec(t)?.[0],
    );

  it('creates a database document with fields (a bad field name is shown first)', async () => {
    const { page } = h;
    await page.goto(`${h.svc.url}/console/agents/${agentId}/documents`);
    await page.getByText('No documents yet').waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);

    await page.getByRole('button', { name: 'Create document' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create document' });
    await dialog.waitFor();
    await dialog.getByRole('textbox', { name: /^Name/ }).fill('Tasks');
    await dialog.getByLabel('Description').fill('Work items');
    await dialog.getByText('Database').click();
    for (let i = 0; i < 3; i++) await dialog.getByRole('button', { name: 'Add field' }).click();
    await dialog.getByLabel('Field 1 name').fill('id');
    await dialog.getByLabel('Field 2 name').fill('score');
    await dialog.getByLabel('Field 3 name').fill('done');
    await dialog.getByRole('button', { name: 'Create document' }).click();
    await dialog.getByText(/'id' is reserved/).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);

    await dialog.getByLabel('Field 1 name').fill('title');
    await dialog.getByRole('checkbox', { name: 'Required' }).first().check();
    await dialog.getByRole('combobox', { name: 'Field 2 type' }).click();
    await page.getByRole('option', { name: 'Number' }).click();
    await dialog.getByRole('combobox', { name: 'Field 3 type' }).click();
    await page.getByRole('option', { name: 'Boolean' }).click();
    await dialog.getByRole('button', { name: 'Create document' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('region', { name: 'Document Tasks' }).waitFor();
    const { agent } = await h.gql(
      'query($a: ID!) { agent(id: $a) { documents { id name description kind fields { name type required } } } }',
      { a: agentId },
    );
    expect(agent.documents).to.have.length(1);
    expect(agent.documents[0]).to.deep.include({
      name: 'Tasks',
      description: 'Work items',
      kind: 'DATABASE',
      fields: [
        { name: 'title', type: 'STRING', required: true },
        { name: 'score', type: 'NUMBER', required: false },
        { name: 'done', type: 'BOOLEAN', required: false },
      ],
    });
    docId = agent.documents[0].id;
    await page.getByText('No records yet').waitFor();
    expect(await page.getByRole('row', { name: /Tasks/ }).textContent()).to.include('Not exposed');
  });

  it('exposes it for read and write; records written over the Document API with a key appear', async () => {
    const { page } = h;
    const panel = page.getByRole('region', { name: 'Document Tasks' });
    await panel.getByRole('switch', { name: /Read/ }).click({ force: true });
    await page.getByRole('row', { name: /Tasks/ }).getByText('Read', { exact: true }).waitFor();
    await panel.getByRole('switch', { name: /Write/ }).click({ force: true });
    await page.getByRole('row', { name: /Tasks/ }).getByText('Write', { exact: true }).waitFor();
    const { agent } = await h.gql(
      'query($a: ID!) { agent(id: $a) { documentExposures { documentId read write mcp } } }',
      { a: agentId },
    );
    expect(agent.documentExposures).to.deep.equal([{ documentId: docId, read: true, write: true, mcp: false }]);
    expect(await h.axeProblems()).to.deep.equal([]);

    const { createAgentApiKey } = await h.gql(
      'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "loader") { key } }',
      { a: agentId },
    );
    const items = Array.from({ length: 30 }, (_, i) => ({
      title: `task ${String(i).padStart(2, '0')}`,
      score: (i * 7) % 10,
      done: i % 3 === 0,
    }));
    const res = await fetch(`${h.svc.url}/agents/${agentId}/documents/${docId}/data/insert`, {
      method: 'POST',
      headers: { authorization: `Bearer ${createAgentApiKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    expect(((await res.json()) as { inserted: number }).inserted).to.equal(30);

    await panel.getByRole('button', { name: 'Refresh' }).click();
    await page.getByText('Records 1–25 of 30').waitFor();
    expect(await rowTitles()).to.deep.equal(items.slice(0, 25).map((i) => i.title));
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('offers it as an MCP resource and takes that back, leaving the Document API permissions as they are', async () => {
    const { page } = h;
    const panel = page.getByRole('region', { name: 'Document Tasks' });
    const exposures = async () =>
      (await h.gql('query($a: ID!) { agent(id: $a) { documentExposures { read write mcp } } }', { a: agentId })).agent
        .documentExposures;
    await panel.getByRole('switch', { name: /MCP resource/ }).click({ force: true });
    await page.getByRole('row', { name: /Tasks/ }).getByText('MCP', { exact: true }).waitFor();
    expect(await exposures()).to.deep.equal([{ read: true, write: true, mcp: true }]);
    expect(await h.axeProblems()).to.deep.equal([]);
    await panel.getByRole('switch', { name: /MCP resource/ }).click({ force: true });
    await page.getByRole('row', { name: /Tasks/ }).getByText('MCP', { exact: true }).waitFor({ state: 'detached' });
    expect(await exposures()).to.deep.equal([{ read: true, write: true, mcp: false }]);
  });

  it('pages forward and back', async () => {
    const { page } = h;
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Records 26–30 of 30').waitFor();
    expect(await rowTitles()).to.deep.equal(['task 25', 'task 26', 'task 27', 'task 28', 'task 29']);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).to.equal(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Records 1–25 of 30').waitFor();
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).to.equal(true);
  });

  it('filters (a bad filter shows its error under Filter), sorts and pages the filtered set', async () => {
    const { page } = h;
    const filter = page.getByRole('textbox', { name: 'Filter' });
    await filter.fill('{"score": {"gte": 5');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText(/Not valid JSON/).waitFor();
    await filter.fill('{"scor": 1}');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText(/unknown field 'scor'/i).waitFor();
    expect(await filter.getAttribute('aria-invalid')).to.equal('true');
    expect(await h.axeProblems()).to.deep.equal([]);

    // score ≥ 4 and not done: 12 of the 30.
    await filter.fill('{"score": {"gte": 4}, "done": false}');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText('Records 1–12 of 12').waitFor();
    await page.getByRole('combobox', { name: 'Sort by' }).click();
    await page.getByRole('option', { name: 'score' }).click();
    await page.getByText('Descending').click();
    await page.getByRole('combobox', { name: 'Per page' }).click();
    await page.getByRole('option', { name: '10', exact: true }).click();
    await page.getByText('Records 1–10 of 12').waitFor();

    const expected = Array.from({ length: 30 }, (_, i) => ({
      title: `task ${String(i).padStart(2, '0')}`,
      score: (i * 7) % 10,
      done: i % 3 === 0,
    }))
      .filter((r) => r.score >= 4 && !r.done)
      .sort((a, b) => b.score - a.score) // stable: insertion order breaks ties, as the service does
      .map((r) => r.title);
    await page.waitForFunction(
      (first) =>
        (globalThis as any).document
          .querySelector('table[aria-label="Records of the document"] tbody tr')
          ?.textContent?.includes(first),
      expected[0],
    );
    expect(await rowTitles()).to.deep.equal(expected.slice(0, 10));
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Records 11–12 of 12').waitFor();
    expect(await rowTitles()).to.deep.equal(expected.slice(10));
  });

  it('creates a text document and edits its content', async () => {
    const { page } = h;
    await page.getByRole('button', { name: 'Create document' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create document' });
    await dialog.getByRole('textbox', { name: /^Name/ }).fill('Policy');
    await dialog.getByLabel('Content').fill('Refunds within 30 days.');
    await dialog.getByRole('button', { name: 'Create document' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const panel = page.getByRole('region', { name: 'Document Policy' });
    await panel.waitFor();
    const editor = panel.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.insertText(' Keep the receipt.');
    await panel.getByRole('button', { name: 'Save document' }).click();
    await panel.getByText('Saved', { exact: true }).waitFor();
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { documents { name content } } }', { a: agentId });
    expect(agent.documents.find((d: { name: string }) => d.name === 'Policy').content).to.equal(
      'Refunds within 30 days. Keep the receipt.',
    );
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('at 390×844 the tab passes axe', async () => {
    const { page } = h;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByRole('button', { name: 'Open Tasks' }).click();
      await page.getByRole('region', { name: 'Document Tasks' }).waitFor();
      await page.getByText(/Records 1–25 of 30/).waitFor();
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
