import { expect } from 'chai';
import type { Knex } from 'knex';
import { Writable } from 'node:stream';
import type { ActivityEntry } from '../../src/domain/activity/activity.entities.js';
import type { Agent } from '../../src/domain/core/agent.entities.js';
import { SURFACES } from '../../src/domain/core/surface.entities.js';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/workspace/settings.js';
import { closeDatabase, openDatabase } from '../../src/infra/db.js';
import { createLogger } from '../../src/infra/logger.js';
import { migrateLatest } from '../../src/infra/migrate.js';
import { maintainActivityPartitions } from '../../src/infra/store/activity-partitions.js';
import { buildService, type Service } from '../../src/server.js';
import { h } from '../helpers/harness.js';
import { manualTime, type ManualTime } from '../helpers/movable-clock.js';

// The activity log's daily partitions (migration 20270421000000_activity_partitions): created ahead
// and dropped past the longest retention by housekeeping. On a database of its own (a PGlite of its
// own, or a schema of the test PostgreSQL): its clock moves days ahead and drops partitions, which
// on the shared database would take every other test's entries with them.

const DAY = 86_400_000;
const startOfDay = (t: number) => Math.floor(t / DAY) * DAY;
const url = process.env.TEST_DATABASE_URL || undefined;
const schema = 'activity_partitions';
const open = () => openDatabase({ databaseUrl: url, dataDir: 'memory', searchPath: url ? schema : undefined });

/** The partitions with their bounds, as `name` sorted by upper bound. */
async function partitionsOf(db: Knex): Promise<string[]> {
  const r = await db.raw(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = to_regclass('activity_log') order by 1`,
  );
  return (r.rows as { name: string }[]).map((x) => x.name);
}
const dayName = (t: number) => `activity_log_p${new Date(startOfDay(t)).toISOString().slice(0, 10).replace(/-/g, '')}`;

describe('activity log partitions', function () {
  this.timeout(120_000);
  let db: Knex;
  let time: ManualTime;
  let service: Service;
  let lines: string[];
  const t0 = startOfDay(Date.now()) + 12 * 3_600_000;

  before(async () => {
    if (url) {
      const admin = await openDatabase({ databaseUrl: url });
      await admin.raw(`drop schema if exists ${schema} cascade`);
      await admin.raw(`create schema ${schema}`);
      await closeDatabase(admin);
    }
    db = await open();
    await migrateLatest(db);
  });
  after(async () => {
    if (url) await db.raw(`drop schema if exists ${schema} cascade`);
    await closeDatabase(db);
  });
  beforeEach(async () => {
    await db('workspaces').delete();
    time = manualTime(new Date(t0));
    lines = [];
  });
  afterEach(async () => service?.close());

  /** A service on this database whose housekeeping first runs `everyMs` after t0 (and at start). */
  async function start(everyMs: number): Promise<void> {
    service = await buildService(h().config, {
      db,
      skipMigrations: true,
      clock: time.clock,
      scheduler: time.scheduler,
      housekeepingMs: everyMs,
      logger: createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) })),
    });
    // The pass at start runs in the background: wait for its partitions.
    for (let i = 0; i < 200 && !(await partitionsOf(db)).includes(dayName(t0 + 7 * DAY)); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
  }

  /** A workspace with the given retention and one agent of it. */
  async function agentWithRetention(days: number): Promise<Agent> {
    const ws = newId('ws');
    const id = newId('agt');
    await db('workspaces').insert({
      id: ws,
      name: ws,
      slug: ws.replace('_', '-'),
      settings: JSON.stringify({ ...DEFAULT_SETTINGS, activityRetentionDays: days }),
    });
    await db('agents').insert({
      id,
      workspace_id: ws,
      name: id,
      slug: id.replace('_', '-'),
      surfaces: '{}',
      cors: '{}',
      capabilities: '{}',
      guardrails: '{}',
    });
    const surfaces = Object.fromEntries(SURFACES.map((s) => [s, { enabled: true, activityLogging: true }]));
    return { id, workspaceId: ws, surfaces } as unknown as Agent;
  }
  const entry = (agent: Agent, at: number, status: number): ActivityEntry =>
    ({
      id: newId('act'),
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      kind: 'request',
      surface: 'HTTP_API',
      status,
      createdAt: new Date(at),
      credits: 0,
      truncated: false,
      protocol: false,
    }) as unknown as ActivityEntry;
  const statuses = async (agent: Agent) =>
    ((await db('activity_log').where('agent_id', agent.id).select('status')) as { status: number }[])
      .map((r) => r.status)
      .sort((a, b) => a - b);

  // In order: the third test drops the first partition and the early days.
  it('creates a week of partitions ahead at start and on every pass, and warns when fewer than two days were left', async () => {
    await start(6 * DAY + 13 * 3_600_000);
    const names = await partitionsOf(db);
    expect(names).to.include('activity_log_legacy');
    for (let d = 2; d <= 7; d++) expect(names).to.include(dayName(t0 + d * DAY));
    expect(lines.filter((l) => /partitions were left ahead/.test(l))).to.deep.equal([]);
    // The next pass comes 6½ days later (housekeeping did not run meanwhile): less than a day was left.
    await time.advance(6 * DAY + 13 * 3_600_000);
    expect(lines.filter((l) => /fewer than 2 days of partitions were left ahead/.test(l))).to.have.length(1);
    expect(await partitionsOf(db)).to.include(dayName(time.clock.now().getTime() + 7 * DAY));
  });

  it('an entry for a day without a partition is refused with an error line, never silently; the next pass makes room', async () => {
    await start(60 * DAY);
    const agent = await agentWithRetention(30);
    // The clock 60 days on, past every partition, and housekeeping has not run since.
    time.clock.advance(60 * DAY);
    service.services.activityLog.writeEntry(agent, { surface: 'HTTP_API', status: 1 });
    await service.services.activityLog.flush();
    expect(await statuses(agent)).to.deep.equal([]);
    const failed = lines.filter((l) => /activity log write failed/.test(l));
    expect(failed).to.have.length(1);
    expect(failed[0]).to.include('"code":"NO_PARTITION"').and.include('no partition');
    await time.advance(0);
    expect(lines.some((l) => /fewer than 2 days of partitions were left ahead/.test(l))).to.equal(true);
    service.services.activityLog.writeEntry(agent, { surface: 'HTTP_API', status: 2 });
    await service.services.activityLog.flush();
    expect(await statuses(agent)).to.deep.equal([2]);
  });

  it('drops partitions wholly past the longest retention; a workspace kept shorter is pruned by DELETE', async () => {
    await start(7 * DAY + 12 * 3_600_000);
    const short = await agentWithRetention(3);
    const long = await agentWithRetention(5);
    // Only these two (the service made a default workspace at start, kept 30 days).
    await db('workspaces').whereNotIn('id', [short.workspaceId, long.workspaceId]).delete();
    const at = (d: number) => startOfDay(t0) + d * DAY + 3_600_000;
    const batch = [entry(long, at(2), 2), entry(long, at(4), 4), entry(short, at(4), 4), entry(short, at(6), 6)];
    await service.store.repos.activity.insertMany(batch);
    // A batch sent again (its acknowledgement lost) adds nothing: the conflict key is (id, created_at).
    await service.store.repos.activity.insertMany(batch);
    expect(await statuses(long)).to.deep.equal([2, 4]);

    // The pass at the start of day 8: the longest retention (5 days) reaches back to day 3, so the
    // partitions ending by then go (the first partition with them); the 3-day workspace's day-4 entry
    // is deleted.
    await time.advance(7 * DAY + 12 * 3_600_000);
    const names = await partitionsOf(db);
    expect(names).not.to.include('activity_log_legacy');
    expect(names).not.to.include(dayName(at(2)));
    expect(names).to.include(dayName(at(3)));
    expect(await statuses(long)).to.deep.equal([4]);
    expect(await statuses(short)).to.deep.equal([6]);
    expect(lines.some((l) => /"partitionsDropped":[1-9]/.test(l) && /"pruned":1/.test(l))).to.equal(true);
  });

  it('two housekeepers at once: each partition made once, neither fails', async () => {
    const twin = url ? await open() : db;
    try {
      const now = new Date(t0 + 40 * DAY);
      const results = await Promise.all([
        maintainActivityPartitions(db, now, 7, new Date(0)),
        maintainActivityPartitions(twin, now, 7, new Date(0)),
      ]);
      const created = results.flatMap((r) => r?.created ?? []);
      expect(created.length).to.equal(8);
      expect(new Set(created).size).to.equal(8);
      for (let d = 0; d <= 7; d++) expect(await partitionsOf(db)).to.include(dayName(now.getTime() + d * DAY));
    } finally {
      if (twin !== db) await closeDatabase(twin);
    }
  });
});
