import { expect } from 'chai';
import fc from 'fast-check';
import type { MessageFilter } from '../../src/domain/workspace-api/workspace-api.ports.js';
import { newId } from '../../src/domain/ids.js';
import { createAgent, h, newWorkspace } from '../helpers/harness.js';

// The Workspace API's `totalCount` of messages comes from per-day counts kept by a trigger plus the
// rows of the window's edge days (migration 20270110000000_message_day_counts). It must equal
// counting the rows one by one, for every filter, after inserts, updates and deletes.

const DAY = 86_400_000;
const BASE = Date.UTC(2026, 9, 1);
const DIRECTIONS = ['inbound', 'outbound'] as const;
const CHANNELS = ['email', 'sms'] as const;

describe('message counts: per-day counts plus the edge days equal counting every row', function () {
  this.timeout(120_000);
  let agentId: string;
  let workspaceId: string;

  /** Counting every matching row, as the list's own filter reads (strict bounds on sentAt). */
  async function exact(f: MessageFilter): Promise<number> {
    const qb = h().db('messages').where('agent_id', agentId);
    if (f.direction) qb.andWhere('direction', f.direction);
    if (f.channel) qb.andWhere('channel', f.channel);
    if (f.since) qb.andWhere('sent_at', '>', f.since);
    if (f.until) qb.andWhere('sent_at', '<', f.until);
    const [r] = await qb.count<{ n: number }[]>('* as n');
    return Number(r!.n);
  }

  const counted = async (f: MessageFilter) =>
    (await h().service.store.repos.workspaceRead.listMessages(agentId, f, { limit: 1, offset: 0 })).totalCount;

  // Instants on and around day boundaries, where an off-by-one would show.
  const instant = fc.oneof(
    fc.integer({ min: -1, max: 12 }).map((d) => new Date(BASE + d * DAY)),
    fc
      .integer({ min: -1, max: 12 })
      .chain((d) => fc.constantFrom(-1, 1, 3_600_000).map((ms) => new Date(BASE + d * DAY + ms))),
    fc.integer({ min: -DAY, max: 12 * DAY }).map((ms) => new Date(BASE + ms)),
  );
  const filter = fc.record(
    {
      direction: fc.constantFrom(...DIRECTIONS),
      channel: fc.constantFrom(...CHANNELS),
      since: instant,
      until: instant,
    },
    { requiredKeys: [] },
  );

  /** For `runs` random filters, the count equals counting every row. */
  const agreesWithCounting = (runs: number) =>
    fc.assert(
      fc.asyncProperty(filter, async (f) => {
        expect(await counted(f), JSON.stringify(f)).to.equal(await exact(f));
      }),
      { numRuns: runs },
    );

  before(async () => {
    const ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
    workspaceId = (await h().db('agents').where({ id: agentId }).first()).workspace_id;
    // 400 messages over ten days, some exactly at midnight and a millisecond either side of it.
    const rows = Array.from({ length: 400 }, (_, i) => {
      const day = i % 10;
      const offset = i % 7 === 0 ? 0 : i % 7 === 1 ? -1 : i % 7 === 2 ? 1 : (i * 7_919_000) % DAY;
      return {
        id: newId('msg'),
        workspace_id: workspaceId,
        agent_id: agentId,
        direction: DIRECTIONS[i % 2],
        channel: CHANNELS[Math.floor(i / 3) % 2],
        from_address: 'a@example.com',
        to_address: 'b@example.com',
        subject: null,
        body: `message ${i}`,
        sent_at: new Date(BASE + day * DAY + offset),
      };
    });
    await h().db('messages').insert(rows);
  });

  it('for every combination of direction, channel, since and until', async () => {
    await agreesWithCounting(150);
    expect(await counted({})).to.equal(400);
  });

  it('after messages are moved to other days, change direction or channel, and are deleted', async () => {
    const ids = (await h().db('messages').where('agent_id', agentId).orderBy('id').select('id')).map(
      (r: { id: string }) => r.id,
    );
    await h()
      .db('messages')
      .whereIn('id', ids.slice(0, 40))
      .update({ sent_at: new Date(BASE + 11 * DAY + 5) });
    await h().db('messages').whereIn('id', ids.slice(40, 80)).update({ direction: 'outbound', channel: 'sms' });
    await h().db('messages').whereIn('id', ids.slice(80, 130)).delete();
    await agreesWithCounting(100);
    expect(await counted({})).to.equal(350);
  });

  it("another agent's messages are never counted, and an agent's counts go with it", async () => {
    const ws = await newWorkspace();
    const other = await createAgent(ws.adminToken);
    const otherWs = (await h().db('agents').where({ id: other }).first()).workspace_id;
    await h()
      .db('messages')
      .insert({
        id: newId('msg'),
        workspace_id: otherWs,
        agent_id: other,
        direction: 'inbound',
        channel: 'email',
        from_address: 'x',
        to_address: 'y',
        body: 'z',
        sent_at: new Date(BASE + DAY),
      });
    expect(await counted({})).to.equal(350);
    await h().db('agents').where({ id: other }).delete();
    expect(await h().db('message_day_counts').where({ agent_id: other })).to.deep.equal([]);
  });
});
