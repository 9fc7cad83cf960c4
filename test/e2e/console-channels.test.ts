import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import { UNCHANNELLED, type Message } from '../../src/domain/messages/message.entities.js';
import { atPhoneSize, consoleSuite, type ConsoleHarness } from '../helpers/console-browser.js';

// The agent's Channels tab in Chromium, under the console's CSP:
// - add an email channel (an invalid address first: the service's error under the field) → it is
//   listed → edit it (no automatic answers, allowed senders) → remove it through the confirmation;
// - the messages of both directions, newest first, with their status, thread and last error; the
//   direction and channel filters with the exact count; the next page; a body shown as text (HTML
//   in it is not rendered).
// axe at 1280×800 and 390×844; no console error and no CSP violation.

const HOSTILE_BODY = '<img src=x onerror="globalThis.__pwned=1"><b>bold?</b>';

describe('e2e: console Channels tab (channels and messages)', function () {
  this.timeout(180_000);
  let h: ConsoleHarness;
  let agentId: string;
  /** The seeded messages' ids, newest first. */
  const seeded: { id: string; direction: 'inbound' | 'outbound'; channel: 'email' | 'sms' }[] = [];

  consoleSuite('console_channels', async (started) => {
    h = started;
    const { createAgent } = await h.gql('mutation { createAgent(input: { name: "Channels" }) { id } }');
    agentId = createAgent.id;
    const { repos } = h.svc.service.store;
    const workspaceId = (await repos.agents.get(agentId))!.workspaceId;
    // 23 messages a minute apart (two pages of 20): email and SMS, both directions; the newest is an
    // email answer that failed, with its thread and the smarthost's error.
    const now = Date.now();
    for (let i = 0; i < 23; i++) {
      const direction = i % 3 === 0 ? 'outbound' : 'inbound';
      const channel = i % 2 === 0 ? 'email' : 'sms';
      const m: Message = {
        id: newId('msg'),
        workspaceId,
        agentId,
        direction,
        channel,
        from: direction === 'inbound' ? `sender${i}@example.com` : 'agent@mail.test',
        to: direction === 'inbound' ? 'agent@mail.test' : `sender${i}@example.com`,
        subject: `Subject ${i}`,
        body: i === 0 ? HOSTILE_BODY : `Body ${i}`,
        sentAt: new Date(now - i * 60_000),
        createdAt: new Date(),
        ...UNCHANNELLED,
        ...(i === 0
          ? {
              threadId: 'thr_console_0',
              status: 'failed' as const,
              attempts: 3,
              failures: 3,
              lastError: '550 mailbox unavailable',
            }
          : {}),
      };
      await repos.messages.insert(m);
      seeded.push({ id: m.id, direction, channel });
    }
    h.page.setDefaultTimeout(15_000);
    await h.signIn();
  });

  it('adds an email channel: an invalid address is refused under its field, then the channel is listed', async () => {
    const { page } = h;
    await page.goto(`${h.svc.url}/console/agents/${agentId}/channels`);
    await page.getByText('No channels yet').waitFor();
    await page.getByRole('switch', { name: 'Receive emails' }).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);

    await page.getByRole('button', { name: 'Add channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add channel' });
    await dialog.waitFor();
    await dialog.getByRole('textbox', { name: 'Email address' }).fill('not an address');
    const editor = dialog.locator('.cm-content');
    await editor.click();
    await page.keyboard.insertText('Answer support questions briefly.');
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await dialog.getByText(/Must be an email address/).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);

    await dialog.getByRole('textbox', { name: 'Email address' }).fill('Support@Mail.Test');
    await dialog.getByRole('textbox', { name: 'Allowed senders' }).fill('@example.com\nboss@corp.test');
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByRole('row', { name: /support@mail\.test/ });
    await row.waitFor();
    const text = await row.textContent();
    expect(text)
      .to.include('Email')
      .and.include('Prompt')
      .and.include('Automatically')
      .and.include('@example.com, boss@corp.test');
    const { agent } = await h.gql(
      'query($a: ID!) { agent(id: $a) { channels { kind address handler { prompt } allowedSenders autoReply } } }',
      { a: agentId },
    );
    expect(agent.channels).to.deep.equal([
      {
        kind: 'EMAIL',
        address: 'support@mail.test',
        handler: { prompt: 'Answer support questions briefly.' },
        allowedSenders: ['@example.com', 'boss@corp.test'],
        autoReply: true,
      },
    ]);
  });

  it('edits the channel: no automatic answers, anyone may write', async () => {
    const { page } = h;
    await page.getByRole('button', { name: 'Edit support@mail.test' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit channel support@mail.test' });
    await dialog.waitFor();
    expect(await dialog.getByRole('radio', { name: 'SMS number' }).isDisabled()).to.equal(true);
    expect(await h.axeProblems()).to.deep.equal([]);
    await dialog.getByRole('switch', { name: 'Answer automatically' }).click({ force: true });
    await dialog.getByRole('textbox', { name: 'Allowed senders' }).fill('');
    await dialog.getByRole('button', { name: 'Save channel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /support@mail\.test/ });
    await row.getByText('Never (stored only)').waitFor();
    expect(await row.textContent()).to.include('Anyone');
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { channels { allowedSenders autoReply } } }', {
      a: agentId,
    });
    expect(agent.channels).to.deep.equal([{ allowedSenders: [], autoReply: false }]);
  });

  it('removes the channel after a confirmation (cancel first keeps it)', async () => {
    const { page } = h;
    await page.getByRole('button', { name: 'Remove support@mail.test' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove channel' });
    await confirm.waitFor();
    await confirm.getByText(/the messages already stored stay/).waitFor();
    expect(await h.axeProblems()).to.deep.equal([]);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(
      (await h.gql('query($a: ID!) { agent(id: $a) { channels { id } } }', { a: agentId })).agent.channels,
    ).to.have.length(1);

    await page.getByRole('button', { name: 'Remove support@mail.test' }).click();
    await confirm.getByRole('button', { name: 'Remove channel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByText('No channels yet').waitFor();
    expect(
      (await h.gql('query($a: ID!) { agent(id: $a) { channels { id } } }', { a: agentId })).agent.channels,
    ).to.deep.equal([]);
  });

  it('lists the messages newest first with status, thread and last error; the body is text, not HTML', async () => {
    const { page } = h;
    const rows = page.locator('tr[data-message]');
    await rows.first().waitFor();
    expect(await page.getByTestId('message-count').textContent()).to.equal('23 messages · page 1 of 2');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-message')))).to.deep.equal(
      seeded.slice(0, 20).map((s) => s.id),
    );
    const newest = rows.first();
    const text = await newest.textContent();
    expect(text)
      .to.include('agent@mail.test → sender0@example.com')
      .and.include('Subject 0')
      .and.include('FAILED')
      .and.include('thr_console_0')
      .and.include('550 mailbox unavailable');

    await newest.getByRole('button', { name: `Body of ${seeded[0]!.id}` }).click();
    expect(
      await newest.getByRole('button', { name: `Body of ${seeded[0]!.id}` }).getAttribute('aria-expanded'),
    ).to.equal('true');
    const body = page.getByTestId('message-body');
    await body.waitFor();
    expect(await body.textContent()).to.equal(HOSTILE_BODY);
    expect(await body.locator('img, b').count()).to.equal(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).to.equal(undefined);
    expect(await h.axeProblems()).to.deep.equal([]);

    await page.getByRole('button', { name: 'Older messages' }).click();
    await page.getByTestId('message-count').getByText('23 messages · page 2 of 2').waitFor();
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-message')))).to.deep.equal(
      seeded.slice(20).map((s) => s.id),
    );
    expect(await page.getByRole('button', { name: 'Older messages' }).isDisabled()).to.equal(true);
  });

  it('filters by direction and channel with the exact count, from the first page', async () => {
    const { page } = h;
    const rows = page.locator('tr[data-message]');
    const ids = async () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-message')));
    await page.getByRole('combobox', { name: 'Direction' }).click();
    await page.getByRole('option', { name: 'Sent' }).click();
    const sent = seeded.filter((s) => s.direction === 'outbound');
    await page.getByTestId('message-count').getByText(`${sent.length} messages · page 1 of 1`).waitFor();
    expect(await ids()).to.deep.equal(sent.map((s) => s.id));

    await page.getByRole('combobox', { name: 'Channel' }).click();
    await page.getByRole('option', { name: 'SMS', exact: true }).click();
    const sentSms = sent.filter((s) => s.channel === 'sms');
    await page.getByTestId('message-count').getByText(`${sentSms.length} messages · page 1 of 1`).waitFor();
    expect(await ids()).to.deep.equal(sentSms.map((s) => s.id));
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('at 390×844 the Channels tab passes axe', async () => {
    await atPhoneSize(h.page, async () => {
      await h.page.reload();
      await h.page.locator('tr[data-message]').first().waitFor();
      expect(await h.axeProblems()).to.deep.equal([]);
    });
  });

  it('the Schedules tab: a bad cron expression is refused under its field; a schedule is listed with its next runs', async () => {
    const { page } = h;
    await page.goto(`${h.svc.url}/console/agents/${agentId}/schedules`);
    await page.getByText('No schedules yet').waitFor();
    await page.getByRole('switch', { name: 'Start scheduled runs' }).click();
    await page.getByRole('button', { name: 'Add schedule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add schedule' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('morning');
    await dialog.getByRole('textbox', { name: 'Cron expression' }).fill('at nine');
    await dialog.locator('.cm-content').click();
    await page.keyboard.insertText('Summarise the night.');
    await dialog.getByRole('button', { name: 'Add schedule' }).click();
    await dialog.getByText(/Is not a cron expression/).waitFor();
    await dialog.getByRole('textbox', { name: 'Cron expression' }).fill('0 9 * * *');
    await dialog.getByRole('button', { name: 'Add schedule' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.locator('tr[data-schedule="morning"]');
    await row.getByText('0 9 * * *', { exact: false }).waitFor();
    expect(await row.locator('td[data-next-fires] p').count()).to.equal(3);
    const { agent } = await h.gql('query($a: ID!) { agent(id: $a) { surfaces { surface enabled } } }', { a: agentId });
    expect(agent.surfaces.find((s: { surface: string }) => s.surface === 'SCHEDULE').enabled).to.equal(true);
    expect(await h.axeProblems()).to.deep.equal([]);
  });

  it('made no console error and no CSP violation', () => {
    expect(h.violations).to.deep.equal([]);
    expect(h.errors).to.deep.equal([]);
  });
});
