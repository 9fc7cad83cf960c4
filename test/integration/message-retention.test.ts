import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import { createLogger } from '../../src/infra/logger.js';
import { buildService, type Service } from '../../src/server.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { manualTime, type ManualTime } from '../helpers/movable-clock.js';

// Messages' retention (docs/security.md, "Round four: inbound mail quota and retention"): the
// housekeeping timer, driven by hand as in housekeeping.test.ts, deletes a workspace's messages
// (email and SMS) once they are past its `messageRetentionDays`, their attachments with them; 0
// keeps them forever. The clock starts 200 days in the past, so no other test's messages (default
// retention 90 days) are in reach.

const DAY = 24 * 3_600_000;

describe('housekeeping: message retention', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let time: ManualTime;
  let service: Service;

  before(async () => {
    ws = await newWorkspace();
  });

  beforeEach(async () => {
    time = manualTime(new Date(Date.now() - 200 * DAY));
    service = await buildService(h().config, {
      db: h().db,
      skipMigrations: true,
      clock: time.clock,
      scheduler: time.scheduler,
      housekeepingMs: DAY,
      logger: createLogger('silent'),
    });
  });
  afterEach(async () => service?.close());

  const settings = (days: number) =>
    gqlOk(
      ws.adminToken,
      'mutation($d: Int!) { updateWorkspaceSettings(input: {messageRetentionDays: $d}) { settings { messageRetentionDays } } }',
      { d: days },
    );

  /** A message stored now (by the manual clock), with one attachment; `due`: work scheduled for it (a retry far ahead: no worker claims it here). */
  async function message(agentId: string, channel: 'email' | 'sms', due = false): Promise<string> {
    const id = newId('msg');
    const now = time.clock.now();
    await h()
      .db('messages')
      .insert({
        id,
        workspace_id: ws.workspaceId,
        agent_id: agentId,
        direction: 'inbound',
        channel,
        from_address: 'a@example.org',
        to_address: 'b@example.org',
        body: 'hello',
        sent_at: now,
        created_at: now,
        status: due ? 'received' : 'ignored',
        next_attempt_at: due ? new Date(now.getTime() + 1000 * DAY) : null,
      });
    await h()
      .db('message_attachments')
      .insert({
        message_id: id,
        position: 0,
        filename: 'a.bin',
        content_type: 'application/octet-stream',
        size: 3,
        content: Buffer.from('abc'),
      });
    return id;
  }

  const left = async (ids: string[]) => ({
    messages: (await h().db('messages').whereIn('id', ids).select('id')).map((r: { id: string }) => r.id).sort(),
    attachments: (await h().db('message_attachments').whereIn('message_id', ids).select('message_id'))
      .map((r: { message_id: string }) => r.message_id)
      .sort(),
  });

  it('deletes email and SMS messages past messageRetentionDays with their attachments at the next run; 0 keeps them; work still due stays', async () => {
    const agentId = await createAgent(ws.adminToken);
    expect((await settings(0)).updateWorkspaceSettings.settings.messageRetentionDays).to.equal(0);
    const email = await message(agentId, 'email');
    const sms = await message(agentId, 'sms');
    const due = await message(agentId, 'email', true);
    const all = [email, sms, due];

    // Kept forever: eleven daily runs delete nothing.
    await time.advance(11 * DAY);
    expect(await left(all)).to.deep.equal({ messages: [...all].sort(), attachments: [...all].sort() });

    // Ten days: the next run (day 12) finds them past it.
    await settings(10);
    await time.advance(DAY);
    expect(await left(all)).to.deep.equal({ messages: [due], attachments: [due] });
  });

  it('keeps a message exactly at its retention, and deletes it at the run after', async () => {
    const agentId = await createAgent(ws.adminToken);
    await settings(3);
    const id = await message(agentId, 'email');
    await time.advance(3 * DAY);
    expect((await left([id])).messages).to.deep.equal([id]);
    await time.advance(DAY);
    expect(await left([id])).to.deep.equal({ messages: [], attachments: [] });
  });

  it('reads the default of 90 days for settings stored before it existed', async () => {
    const d = await gqlOk(ws.adminToken, '{ workspace { settings { messageRetentionDays } } }');
    expect(d.workspace.settings.messageRetentionDays).to.be.a('number');
    const other = await newWorkspace();
    const fresh = await gqlOk(other.adminToken, '{ workspace { settings { messageRetentionDays } } }');
    expect(fresh.workspace.settings.messageRetentionDays).to.equal(90);
  });
});
