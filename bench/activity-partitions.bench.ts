// @bench on-request: needs the ~50 GB table of activity-partitions-fill.ts first; ~30 minutes.
// The activity log at scale, plain and partitioned by day (results: bench/results/2026-11-29-partitions.md).
//
//   BENCH_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/app_part npx tsx bench/activity-partitions-fill.ts
//   BENCH_PHASE=plain        npx tsx bench/activity-partitions.bench.ts   (lists, one day's DELETE)
//   BENCH_PHASE=migrate      npx tsx bench/activity-partitions.bench.ts   (the migration, writes probed meanwhile)
//   BENCH_PHASE=partitioned  npx tsx bench/activity-partitions.bench.ts   (a day filled, lists, DETACH + DROP)
//
// Each phase prints JSON lines; every list is the SQL the repositories issue, 30 calls in a row
// (3 warm-up calls first), p50/p95 in ms.
import type { Knex } from 'knex';
import { closeDatabase, openDatabase } from '../src/infra/db.js';
import { migrateLatest } from '../src/infra/migrate.js';
import { knexStore } from '../src/infra/store/knex-store.js';
import { workspaceReadRepo } from '../src/infra/store/workspace-read.repo.js';
import type { ActivityListOptions } from '../src/domain/activity/activity.ports.js';
import type { ActivityFilter } from '../src/domain/workspace-api/workspace-api.ports.js';
import { AGENTS, agentIds, agentWorkspace, fillSql, workspaceIds } from './activity-partitions-fill.js';

const DB_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/app_part';
const PHASE = process.env.BENCH_PHASE ?? 'plain';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
const DAY_MS = 86_400_000;
const BUSY = agentIds[0]!;
const TYPICAL = agentIds[1]!;

const t0 = performance.now();
const say = (s: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${s}`);
const out = (o: Record<string, unknown>) => console.log(JSON.stringify({ phase: PHASE, ...o }));
const round = (n: number) => Math.round(n * 10) / 10;

const db = await openDatabase({ databaseUrl: DB_URL, poolMax: 4 });
const store = knexStore(db);
const wsRepo = workspaceReadRepo(db);

async function latency(fn: () => Promise<unknown>, n = REQUESTS): Promise<{ p50: number; p95: number; max: number }> {
  // Warm-up calls, except for a single timed call (the busy agent's count over all its entries).
  for (let i = 0; i < (n > 1 ? 3 : 0); i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => round(times[Math.min(times.length - 1, Math.floor(p * times.length))]!);
  return { p50: at(0.5), p95: at(0.95), max: round(times[times.length - 1]!) };
}

async function walLsn(): Promise<string> {
  return (await db.raw('select pg_current_wal_lsn() as l')).rows[0].l;
}
async function walSince(lsn: string): Promise<number> {
  return Number((await db.raw('select pg_wal_lsn_diff(pg_current_wal_lsn(), ?) as d', [lsn])).rows[0].d);
}

async function sizes(): Promise<void> {
  const r = await db.raw(
    `select c.relname as name, c.relkind as kind, pg_relation_size(c.oid) as heap, pg_indexes_size(c.oid) as indexes,
            pg_total_relation_size(c.oid) as total, c.reltuples::bigint as rows
       from pg_class c where c.relname like 'activity_log%' and c.relkind in ('r', 'p') order by 1`,
  );
  for (const x of r.rows)
    out({
      size: x.name,
      heapGB: x.heap / 1e9,
      indexesGB: x.indexes / 1e9,
      totalGB: x.total / 1e9,
      rows: Number(x.rows),
    });
  const idx = await db.raw(
    `select c.relname as name, pg_relation_size(c.oid) as bytes from pg_class c
      where c.relname like 'activity_log%' and c.relkind = 'i' and pg_relation_size(c.oid) > 100000000 order by 1`,
  );
  for (const x of idx.rows) out({ index: x.name, GB: x.bytes / 1e9 });
}

async function lists(): Promise<void> {
  const newest = (await db('activity_log').max('created_at as m').first()) as { m: Date };
  const graphql: [string, ActivityListOptions][] = [
    ['newest page (console form)', { first: 51, withBodies: false, foldDeliveryRuns: true }],
    ['newest page, bodies', { first: 51 }],
    ['filtered: surface MCP', { first: 51, surface: 'MCP', withBodies: false, foldDeliveryRuns: true }],
    [
      'filtered: entry refunds, 4xx',
      { first: 51, entry: 'refunds', status: { min: 400, max: 499 }, withBodies: false },
    ],
    ['filtered: errors', { first: 51, status: 'error', withBodies: false, foldDeliveryRuns: true }],
  ];
  for (const [who, agentId] of [
    ['busy', BUSY],
    ['typical', TYPICAL],
  ] as const) {
    for (const [label, opts] of graphql) {
      const l = await latency(() => store.repos.activity.list(agentId, opts));
      out({ list: `GraphQL ${label}`, agent: who, ...l });
      say(`${who} GraphQL ${label}: p95 ${l.p95} ms`);
    }
    const windows: [string, ActivityFilter, number][] = [
      ['last 24 h', { since: new Date(newest.m.getTime() - DAY_MS) }, REQUESTS],
      ['surface MCP, last 24 h', { surface: 'MCP', since: new Date(newest.m.getTime() - DAY_MS) }, REQUESTS],
      ['no filter (exact count of all)', {}, who === 'busy' ? 1 : REQUESTS],
    ];
    for (const [label, filter, n] of process.env.BENCH_ONLY_GRAPHQL ? [] : windows) {
      const l = await latency(() => wsRepo.listActivity(agentId, filter, { limit: 50, offset: 0 }), n);
      out({ list: `Workspace API ${label}`, agent: who, calls: n, ...l });
      say(`${who} Workspace API ${label}: p95 ${l.p95} ms`);
    }
  }
}

/** Deletes one day (the oldest) the way the prune does, every workspace: time and WAL. */
async function deleteOldestDay(): Promise<void> {
  const oldest = (await db('activity_log').min('created_at as m').first()) as { m: Date };
  const cutoff = new Date(Math.floor(oldest.m.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  const lsn = await walLsn();
  const t = performance.now();
  let deleted = 0;
  for (const ws of workspaceIds) deleted += await store.repos.activity.prune(ws, cutoff);
  const ms = performance.now() - t;
  out({
    retention: 'DELETE one day (the prune, batches of 5,000)',
    deleted,
    ms: Math.round(ms),
    walMB: (await walSince(lsn)) / 1e6,
  });
  say(`DELETE one day: ${deleted} entries in ${(ms / 1000).toFixed(1)} s`);
}

async function renice(conn: unknown): Promise<void> {
  const pid = (await db.raw('select pg_backend_pid() as pid').connection(conn)).rows[0].pid as number;
  const { execFileSync } = await import('node:child_process');
  execFileSync('renice', ['-n', '19', '-p', String(pid)]);
}

if (PHASE === 'plain') {
  await sizes();
  await lists();
  await deleteOldestDay();
} else if (PHASE === 'lists') {
  await lists();
} else if (PHASE === 'migrate') {
  // A writer beside the migration, as a running instance is: one entry every 20 ms; its slowest
  // insert is how long writes waited.
  let stop = false;
  let slowest = 0;
  let writes = 0;
  let failed = 0;
  const writer = (async () => {
    for (let i = 0; !stop; i++) {
      const t = performance.now();
      try {
        await db.raw(
          `insert into activity_log (id, workspace_id, agent_id, kind, surface, created_at) values (?, ?, ?, 'request', 'HTTP_API', now())`,
          [`act_probe${i}_${Date.now()}`, agentWorkspace[1], agentIds[1]],
        );
        writes++;
      } catch {
        failed++;
      }
      slowest = Math.max(slowest, performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const timings: { sql: string; ms: number }[] = [];
  const started = new Map<string, number>();
  db.on('query', (q: { __knexQueryUid: string }) => started.set(q.__knexQueryUid, performance.now()));
  db.on('query-response', (_r: unknown, q: { __knexQueryUid: string; sql: string }) => {
    const s = started.get(q.__knexQueryUid);
    if (s !== undefined && /index|constraint|lock table|attach|partition|rename|create table/i.test(q.sql))
      timings.push({ sql: q.sql.replace(/\s+/g, ' ').slice(0, 120), ms: Math.round(performance.now() - s) });
  });
  const t = performance.now();
  await migrateLatest(db);
  const ms = performance.now() - t;
  stop = true;
  await writer;
  for (const x of timings) out({ step: x.sql, ms: x.ms });
  out({
    migration: 'total',
    ms: Math.round(ms),
    probeWrites: writes,
    probeFailed: failed,
    slowestWriteMs: Math.round(slowest),
  });
  say(`migration ${(ms / 1000).toFixed(1)} s; slowest probe write ${Math.round(slowest)} ms`);
  await sizes();
} else if (PHASE === 'partitioned') {
  // One day into the first daily partition, through the parent with its indexes live.
  const first = (
    await db.raw(
      `select (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz as lower, c.relname as name
         from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass('activity_log') and c.relname <> 'activity_log_legacy' order by 1 limit 1`,
    )
  ).rows[0] as { lower: Date; name: string };
  const perDay = Number(process.env.BENCH_DAY_ENTRIES ?? 1_000_000);
  if (!process.env.BENCH_SKIP_DAY_FILL) {
    const conn = await db.client.acquireConnection();
    await renice(conn);
    const lsn = await walLsn();
    const t = performance.now();
    for (let from = 1; from <= perDay; from += 250_000) {
      await db
        .raw(fillSql(AGENTS), [
          agentWorkspace,
          agentIds,
          agentIds,
          new Date(first.lower).toISOString(),
          40_000_001,
          86_400 / perDay,
          40_000_000 + from,
          40_000_000 + from + 249_999,
        ])
        .connection(conn);
      say(`  day fill ${from + 249_999}`);
    }
    const ms = performance.now() - t;
    await db.raw(`vacuum analyze ${first.name}`).connection(conn);
    await db.client.releaseConnection(conn);
    out({
      dayFill: first.name,
      entries: perDay,
      ms: Math.round(ms),
      perSecond: Math.round(perDay / (ms / 1000)),
      walMB: (await walSince(lsn)) / 1e6,
    });
  }
  await db.raw('analyze activity_log');
  await sizes();
  // BENCH_FILL_ONLY: stop here, so the lists run on fresh connections, not the reniced one.
  if (process.env.BENCH_FILL_ONLY) {
    await closeDatabase(db);
    process.exit(0);
  }
  await lists();
  const lsn = await walLsn();
  const t1 = performance.now();
  await db.raw(`alter table activity_log detach partition ?? concurrently`, [first.name]);
  const detachMs = performance.now() - t1;
  const t2 = performance.now();
  await db.raw(`drop table ??`, [first.name]);
  const dropMs = performance.now() - t2;
  out({
    retention: 'DETACH CONCURRENTLY + DROP one day',
    partition: first.name,
    detachMs: Math.round(detachMs),
    dropMs: Math.round(dropMs),
    walMB: (await walSince(lsn)) / 1e6,
  });
  say(`DETACH ${Math.round(detachMs)} ms + DROP ${Math.round(dropMs)} ms`);
}
await closeDatabase(db);
