// @bench on-request: ~20 minutes and ~30 GB of disk; run it by name.
// Activity-log growth on PostgreSQL: what an entry costs, the write rate of the service's own write
// path, sizes and list latency at 10,000,000 entries, and retention (the service's prune, a DELETE)
// against a monthly range-partitioned copy of the table (DETACH PARTITION + DROP TABLE).
//
//   npm run bench -- activity-growth        (or: npx tsx bench/activity-growth.bench.ts)
//   BENCH_DATABASE_URL=postgres://…/app_growth BENCH_ENTRIES=10000000 BENCH_SAMPLE=100000 BENCH_REQUESTS=30
//
// The database is dropped and rebuilt with the product's migrations. It needs ~25 GB of disk at
// 10M entries (the table, its copy and WAL). Not part of any test command.
import fs from 'node:fs';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ActivityLog } from '../src/domain/activity/activity-log.js';
import type { Agent } from '../src/domain/core/agent.entities.js';
import type { Surface } from '../src/domain/core/surface.entities.js';
import type { Store } from '../src/domain/ports.js';
import { SURFACES } from '../src/domain/core/surface.entities.js';
import { bufferedActivitySink } from '../src/infra/activity/buffered-sink.js';
import { closeDatabase, openDatabase } from '../src/infra/db.js';
import { createLogger } from '../src/infra/logger.js';
import { migrationSource } from '../migrations/index.js';
import { knexStore } from '../src/infra/store/knex-store.js';
import { q } from '../src/infra/store/pg-errors.js';
import * as rows from '../src/infra/store/rows/index.js';
import { workspaceReadRepo } from '../src/infra/store/workspace-read.repo.js';
import { ensureDatabase } from './ensure-database.js';

const DB_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/app_growth';
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000_000);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
const CHUNK = 1_000_000;
const WORKSPACES = 4;
const AGENTS = 20;
/** The bulk entries span three calendar months, one row every 91 days / ENTRIES. */
const FROM = Date.UTC(2026, 8, 1);
const TO = Date.UTC(2026, 11, 1);
const MONTHS = ['2026-09-01', '2026-10-01', '2026-11-01', '2026-12-01', '2027-01-01'];
const PAGE = 50;

const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(0)} s`;
const say = (s: string) => console.log(`[${elapsed()}] ${s}`);
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const mb = (bytes: number) =>
  bytes < 1024 ** 2
    ? `${Math.round(bytes / 1024)} kB`
    : `${(bytes / 1024 ** 2).toLocaleString('en', { maximumFractionDigits: 0 })} MB`;
const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GB`;
const int = (n: number) => Math.round(n).toLocaleString('en');

await ensureDatabase(DB_URL);
const db = await openDatabase({ databaseUrl: DB_URL });
await db.raw('drop schema if exists public cascade');
await db.raw('create schema public');
// The plain table as it was before partitioning (issue 53): this bench compares it with a monthly
// copy of its own; bench/activity-partitions.bench.ts measures the daily partitions.
await db.migrate.latest({
  tableName: 'knex_migrations',
  migrationSource: {
    ...migrationSource,
    getMigrations: async () =>
      (await migrationSource.getMigrations([])).filter((m) => m < '20270421000000_activity_partitions'),
  },
});
const server = (await db.raw('show server_version')).rows[0].server_version as string;
const settings = (
  await db.raw(
    `select name, setting, unit from pg_settings where name in ('shared_buffers','max_wal_size','maintenance_work_mem','work_mem','synchronous_commit','autovacuum_vacuum_insert_scale_factor')`,
  )
).rows as { name: string; setting: string; unit: string | null }[];

const workspaceIds = Array.from({ length: WORKSPACES }, (_, i) => `wsp_growth${i + 1}`);
const agentIds = Array.from({ length: AGENTS }, (_, i) => `agt_growth${String(i + 1).padStart(2, '0')}`);
const agentWorkspace = agentIds.map((_, i) => workspaceIds[i % WORKSPACES]!);
for (const id of workspaceIds) await db('workspaces').insert({ id, name: id, slug: id.replace('_', '-') });
for (const [i, id] of agentIds.entries()) {
  await db('agents').insert({
    id,
    workspace_id: agentWorkspace[i],
    name: id,
    slug: id.replace('_', '-'),
    surfaces: '{}',
    cors: '{}',
    capabilities: '{}',
    guardrails: '{}',
  });
}
const agents: Agent[] = agentIds.map(
  (id, i) =>
    ({
      id,
      workspaceId: agentWorkspace[i]!,
      surfaces: Object.fromEntries(SURFACES.map((s) => [s, { enabled: true, activityLogging: true }])),
    }) as unknown as Agent,
);
/** Agent of the n-th entry: 30 % go to one busy agent, the rest spread over the other 19. */
const agentOf = (n: number) => (n % 10 < 3 ? 0 : 1 + ((n * 7919) % (AGENTS - 1)));
const BUSY = agentIds[0]!;
const TYPICAL = agentIds[1]!;

// ---------------------------------------------------------------------------------------------
// The write path: ActivityLog.record → the buffered sink (batches of 200) → repos.activity.insertMany.

const logger = createLogger('error');
const clock = { now: () => new Date() };
const statusOf = (n: number) => (n % 50 === 0 ? 500 : n % 50 < 3 ? 429 : n % 50 < 6 ? 400 : 200);

/** One entry shaped like an HTTP API call with a JSON body: ~11 headers, ~200 B body, ~200 B response. */
function record(log: ActivityLog, n: number): void {
  const orderId = `ord_${n}`;
  const status = statusOf(n);
  const surface: Surface = SURFACES[Math.floor(n / 4) % 5]!;
  log.writeEntry(agents[agentOf(n)]!, {
    kind: n % 4 === 0 ? 'run' : 'request',
    surface,
    entry: 'orders',
    method: 'POST',
    path: `/agents/${agents[agentOf(n)]!.id}/api/orders`,
    status,
    requestHeaders: {
      host: 'aes.example.com',
      'user-agent': 'orders-service/2.4.1 (+https://shop.example.com) node-fetch/3.3',
      'content-type': 'application/json',
      accept: 'application/json',
      'content-length': '187',
      'accept-encoding': 'gzip, deflate, br',
      'x-forwarded-for': `203.0.113.${n % 255}`,
      'x-forwarded-proto': 'https',
      'x-request-id': randomUUID(),
      authorization: 'Bearer aes_live_0123456789abcdef0123456789abcdef',
      connection: 'keep-alive',
    },
    requestBody: {
      orderId,
      customer: { email: `customer${n % 1000}@example.com`, name: `Customer ${n % 1000}` },
      items: [{ sku: `SKU-${n % 500}`, qty: 1 + (n % 3), price: 19.9 }],
      note: 'Leave at the front desk if nobody answers.',
    },
    response:
      status === 200
        ? {
            status: 'accepted',
            orderId,
            summary: `Order ${orderId} for ${1 + (n % 3)} items accepted; delivery expected within 3 business days.`,
            estimatedDelivery: '2026-12-03',
          }
        : {
            error:
              status === 429
                ? 'Daily credit limit reached'
                : status === 400
                  ? 'Body does not match the endpoint schema'
                  : 'Internal server error',
          },
    credits: 0.0123,
    durationMs: 20 + (n % 400),
    keyId: 'key_growthbench0001',
    runId: n % 4 === 0 ? `run_${n}` : null,
    requestId: randomUUID(),
    error: status === 500 ? 'Model provider timed out after 30 s' : null,
    logs: n % 8 === 0 ? ['looked up order', 'priced 1 item'] : null,
  });
}

/**
 * The service's store with the one change a table partitioned on created_at needs: its unique key is
 * (id, created_at), so the insert's conflict target (a batch sent again) names both columns.
 */
function partitionedStore(): Store {
  const s = knexStore(db);
  const insertMany = (entries: Parameters<Store['repos']['activity']['insertMany']>[0]) =>
    q(
      async () =>
        void (
          entries.length &&
          (await db('activity_log').insert(entries.map(rows.activity.toRow)).onConflict(['id', 'created_at']).ignore())
        ),
    );
  return { ...s, repos: { ...s.repos, activity: { ...s.repos.activity, insertMany } } };
}

const countAll = async () => Number((await db.raw('select count(*)::bigint as n from activity_log')).rows[0].n);

/** Writes `n` entries through `sinks` service write paths at once (each its own sink, as N instances have); entries/s. */
async function writeThroughput(
  n: number,
  sinks: number,
  offset: number,
  table: 'plain' | 'monthly' = 'plain',
): Promise<{ perSecond: number; seconds: number; walPerEntry: number }> {
  const store = table === 'monthly' ? partitionedStore() : knexStore(db);
  const logs = Array.from({ length: sinks }, () => {
    const sink = bufferedActivitySink(store, logger);
    return { sink, log: new ActivityLog(store, sink, clock) };
  });
  const before = await countAll();
  const lsn = await walLsn();
  const t = performance.now();
  await Promise.all(
    logs.map(async ({ sink, log }, s) => {
      for (let i = s; i < n; i += sinks) {
        record(log, offset + i);
        // Yield now and then so the batches go out; keep the backlog bounded as a live instance would.
        if (i % 200 === s) await new Promise((r) => setImmediate(r));
        if (sink.backlog().entries > 5_000) await sink.flush();
      }
      await sink.flush();
    }),
  );
  const seconds = (performance.now() - t) / 1000;
  const walPerEntry = (await walSince(lsn)) / n;
  const stored = (await countAll()) - before;
  if (stored !== n) throw new Error(`${n} entries written, ${stored} stored`);
  return { perSecond: n / seconds, seconds, walPerEntry };
}

// ---------------------------------------------------------------------------------------------
// Sizes.

interface Sizes {
  rows: number;
  heap: number;
  toast: number;
  indexes: { name: string; bytes: number }[];
  total: number;
}

/** Heap, TOAST and index sizes of a table, or summed over the leaf partitions of a partitioned one. */
async function sizes(table: string): Promise<Sizes> {
  // pg_partition_tree lists nothing for a table that is not partitioned.
  const parts = (
    await db.raw(`select relid::regclass::text as t from pg_partition_tree(?::regclass) where isleaf`, [table])
  ).rows.map((r: { t: string }) => r.t) as string[];
  const leaves = parts.length ? parts : [table];
  const r = (
    await db.raw(
      `select coalesce(sum(pg_relation_size(c.oid)), 0)::bigint as heap,
              coalesce(sum(pg_total_relation_size(c.oid) - pg_relation_size(c.oid) - pg_indexes_size(c.oid)), 0)::bigint as toast,
              coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as total
         from pg_class c where c.oid = any(?::regclass[])`,
      [leaves],
    )
  ).rows[0];
  const rows = Number((await db.raw(`select count(*)::bigint as n from ${table}`)).rows[0].n);
  const idx = (
    await db.raw(
      `select regexp_replace(regexp_replace(regexp_replace(i.indexrelname, '^activity_log_(2026|2027)_\\d\\d', 'activity_log'), '_monthly', ''), '_idx$', '_index') as name,
              sum(pg_relation_size(i.indexrelid))::bigint as bytes
         from pg_stat_user_indexes i where i.relid = any(?::regclass[]) group by 1 order by 2 desc`,
      [leaves],
    )
  ).rows as { name: string; bytes: number }[];
  return {
    rows,
    heap: Number(r.heap),
    toast: Number(r.toast),
    total: Number(r.total),
    indexes: idx.map((i) => ({ name: i.name, bytes: Number(i.bytes) })),
  };
}

const walLsn = async () => (await db.raw('select pg_current_wal_lsn()::text as l')).rows[0].l as string;
const walSince = async (lsn: string) =>
  Number((await db.raw('select pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)::bigint as b', [lsn])).rows[0].b);

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t };
}

// ---------------------------------------------------------------------------------------------
// 1. Write path on the empty table.

say(`PostgreSQL ${server}; writing ${int(SAMPLE)} entries through the service's write path (empty table)…`);
const writeEmpty = await writeThroughput(SAMPLE, 1, 0);
say(`  ${int(writeEmpty.perSecond)} entries/s`);
const sampleRow = (
  await db.raw(
    `select avg(pg_column_size(a.*))::int as row, avg(pg_column_size(request_headers))::int as headers, avg(pg_column_size(request_body))::int as body, avg(pg_column_size(response))::int as response from activity_log a`,
  )
).rows[0] as { row: number; headers: number; body: number; response: number };
const sampleSizes = await sizes('activity_log');
await db('activity_log').delete();
await db.raw('vacuum activity_log');

// ---------------------------------------------------------------------------------------------
// 2. Bulk fill to ENTRIES, shaped like the written entries, secondary indexes built afterwards.

const SECS_PER_ROW = (TO - FROM) / 1000 / ENTRIES;
const fillSql = `
insert into activity_log (id, workspace_id, agent_id, kind, surface, entry, method, path, status, request_headers, request_body, response,
                          truncated, credits, duration_ms, key_id, run_id, request_id, error, logs, created_at)
select 'act_' || substr(h, 1, 16), (?::text[])[a], (?::text[])[a],
       case when g % 4 = 0 then 'run' else 'request' end,
       (array['HTTP_API','DOCUMENT_API','MCP','WIDGET','WEBHOOKS'])[1 + (g / 4) % 5],
       'orders', 'POST', '/agents/' || (?::text[])[a] || '/api/orders', st,
       jsonb_build_object('host', 'aes.example.com', 'user-agent', 'orders-service/2.4.1 (+https://shop.example.com) node-fetch/3.3',
         'content-type', 'application/json', 'accept', 'application/json', 'content-length', '187', 'accept-encoding', 'gzip, deflate, br',
         'x-forwarded-for', '203.0.113.' || (g % 255), 'x-forwarded-proto', 'https', 'x-request-id', u1::text, 'authorization', '[redacted]',
         'connection', 'keep-alive'),
       jsonb_build_object('orderId', 'ord_' || g, 'customer', jsonb_build_object('email', 'customer' || (g % 1000) || '@example.com', 'name', 'Customer ' || (g % 1000)),
         'items', jsonb_build_array(jsonb_build_object('sku', 'SKU-' || (g % 500), 'qty', 1 + g % 3, 'price', 19.9)), 'note', 'Leave at the front desk if nobody answers.'),
       case when st = 200 then jsonb_build_object('status', 'accepted', 'orderId', 'ord_' || g,
              'summary', 'Order ord_' || g || ' for ' || (1 + g % 3) || ' items accepted; delivery expected within 3 business days.', 'estimatedDelivery', '2026-12-03')
            else jsonb_build_object('error', case st when 429 then 'Daily credit limit reached' when 400 then 'Body does not match the endpoint schema' else 'Internal server error' end) end,
       false, 0.0123, 20 + g % 400, 'key_growthbench0001', case when g % 4 = 0 then 'run_' || g end, u2::text,
       case when st = 500 then 'Model provider timed out after 30 s' end,
       case when g % 8 = 0 then '["looked up order", "priced 1 item"]'::jsonb end,
       ?::timestamptz + make_interval(secs => (g - 1) * ?::float8)
  from (select g, md5(g::text) as h, md5(g::text || 'r')::uuid as u1, md5(g::text || 'q')::uuid as u2,
               case when g % 10 < 3 then 1 else 2 + (g * 7919) % ${AGENTS - 1} end as a,
               case when g % 50 = 0 then 500 when g % 50 < 3 then 429 when g % 50 < 6 then 400 else 200 end as st
          from generate_series(?::bigint, ?::bigint) g) s`;

type IndexDef = { indexname: string; indexdef: string };
const secondary = (
  await db.raw(
    `select indexname, indexdef from pg_indexes where tablename = 'activity_log' and indexname <> 'activity_log_pkey' order by indexname`,
  )
).rows as IndexDef[];

say(
  `bulk fill: ${int(ENTRIES)} entries over ${new Date(FROM).toISOString().slice(0, 10)} … ${new Date(TO - 1).toISOString().slice(0, 10)} (${CHUNK.toLocaleString('en')} per statement, indexes dropped)…`,
);
for (const i of secondary) await db.raw(`drop index "${i.indexname}"`);
await db.raw('alter table activity_log drop constraint activity_log_pkey');
const fillStart = performance.now();
for (let from = 1; from <= ENTRIES; from += CHUNK) {
  const to = Math.min(ENTRIES, from + CHUNK - 1);
  const t = performance.now();
  // The foreign keys are checked once the rows are in (as pg_restore does), not row by row.
  await db.transaction(async (trx) => {
    await trx.raw(`set local session_replication_role = replica`);
    await trx.raw(fillSql, [agentWorkspace, agentIds, agentIds, new Date(FROM).toISOString(), SECS_PER_ROW, from, to]);
  });
  say(`  ${int(to)} (${((performance.now() - t) / 1000).toFixed(1)} s)`);
}
const fillMs = performance.now() - fillStart;

/** Builds the primary key and the migration's secondary indexes (their own definitions) on `table`. */
async function buildIndexes(table: string, primaryKey: string): Promise<number> {
  const t = performance.now();
  await db.transaction(async (trx) => {
    await trx.raw(`set local maintenance_work_mem = '512MB'`);
    await trx.raw(`alter table ${table} add primary key (${primaryKey})`);
    for (const i of secondary) {
      const def = i.indexdef
        .replace(/ON (public\.)?activity_log /, `ON ${table} `)
        .replace(`INDEX ${i.indexname} `, `INDEX ${i.indexname.replace('activity_log', table)} `);
      await trx.raw(def);
    }
  });
  return performance.now() - t;
}
const indexMs = await buildIndexes('activity_log', 'id');
say(`  filled in ${(fillMs / 1000).toFixed(0)} s, indexes built in ${(indexMs / 1000).toFixed(0)} s; VACUUM ANALYZE…`);
// VACUUM sets the visibility map (index-only counts) as autovacuum does on a live table; ANALYZE the statistics.
const vacuumMs = (await timed(() => db.raw('vacuum analyze activity_log'))).ms;
const atTen = await sizes('activity_log');
const bulkRow = (
  await db.raw(
    `select avg(pg_column_size(a.*))::int as row, avg(pg_column_size(request_headers))::int as headers, avg(pg_column_size(request_body))::int as body, avg(pg_column_size(response))::int as response from activity_log a tablesample system (1)`,
  )
).rows[0] as { row: number; headers: number; body: number; response: number };
say(
  `  at ${int(atTen.rows)}: heap ${gb(atTen.heap)}, indexes ${gb(atTen.indexes.reduce((s, i) => s + i.bytes, 0))}, total ${gb(atTen.total)} (${int(atTen.total / atTen.rows)} B/entry)`,
);

// ---------------------------------------------------------------------------------------------
// 3. The monthly range-partitioned copy: same columns, keys and indexes, one partition per month.

say('partitioned copy (partition by range (created_at), one partition per month)…');
await db.raw(
  `create table activity_log_monthly (like activity_log including defaults) partition by range (created_at)`,
);
for (let m = 0; m + 1 < MONTHS.length; m++) {
  await db.raw(
    `create table activity_log_${MONTHS[m]!.slice(0, 7).replace('-', '_')} partition of activity_log_monthly for values from ('${MONTHS[m]}') to ('${MONTHS[m + 1]}')`,
  );
}
const copyStart = performance.now();
for (const m of MONTHS.slice(0, -1)) {
  const next = MONTHS[MONTHS.indexOf(m) + 1]!;
  await db.raw(`insert into activity_log_monthly select * from activity_log where created_at >= ? and created_at < ?`, [
    m,
    next,
  ]);
}
const copyMs = performance.now() - copyStart;
// The primary key of a partitioned table must hold the partition key: (id, created_at).
const partIndexMs = await buildIndexes('activity_log_monthly', 'id, created_at');
await db.raw(
  `alter table activity_log_monthly add foreign key (workspace_id) references workspaces (id) on delete cascade`,
);
await db.raw(`alter table activity_log_monthly add foreign key (agent_id) references agents (id) on delete cascade`);
const partVacuumMs = (await timed(() => db.raw('vacuum analyze activity_log_monthly'))).ms;
const partAtTen = await sizes('activity_log_monthly');
say(
  `  copied in ${(copyMs / 1000).toFixed(0)} s, indexes ${(partIndexMs / 1000).toFixed(0)} s, VACUUM ANALYZE ${(partVacuumMs / 1000).toFixed(0)} s; total ${gb(partAtTen.total)}`,
);

/** The product's code reads and writes `activity_log`: the table measured is swapped in under that name. */
async function asActivityLog<T>(table: 'plain' | 'monthly', fn: () => Promise<T>): Promise<T> {
  if (table === 'monthly') {
    await db.raw('alter table activity_log rename to activity_log_plain');
    await db.raw('alter table activity_log_monthly rename to activity_log');
  }
  try {
    return await fn();
  } finally {
    if (table === 'monthly') {
      await db.raw('alter table activity_log rename to activity_log_monthly');
      await db.raw('alter table activity_log_plain rename to activity_log');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Write path at 10M: one instance, and four at once, on each table.

const writes: Record<string, { perSecond: number; seconds: number; walPerEntry: number }> = {};
let offset = ENTRIES + 1;
for (const table of ['plain', 'monthly'] as const) {
  await asActivityLog(table, async () => {
    for (const sinks of [1, 4]) {
      say(`write path at ${int(ENTRIES)}, ${table}, ${sinks} sink(s): ${int(SAMPLE)} entries…`);
      const w = await writeThroughput(SAMPLE, sinks, offset, table);
      offset += SAMPLE;
      writes[`${table}/${sinks}`] = w;
      say(`  ${int(w.perSecond)} entries/s`);
    }
  });
}
await db.raw('analyze activity_log');
await db.raw('analyze activity_log_monthly');

// ---------------------------------------------------------------------------------------------
// 5. The lists the product runs: the Workspace API (page + exact count, OFFSET paging) and GraphQL
//    `agent.activity(first, after, surface)` (keyset paging, no count).

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
const FILTERS: [string, { surface?: Surface; kind?: 'request' | 'run'; since?: Date; until?: Date }][] = [
  ['none', {}],
  ['surface', { surface: 'MCP' }],
  ['kind', { kind: 'run' }],
  ['surface+kind', { surface: 'WEBHOOKS', kind: 'run' }],
  ['last 24 h', { since: day('2026-11-30') }],
  ['7 days', { since: day('2026-10-10'), until: day('2026-10-17') }],
  ['surface+kind+7 days', { surface: 'WEBHOOKS', kind: 'run', since: day('2026-10-10'), until: day('2026-10-17') }],
];

function percentile(sorted: number[], p: number): number {
  return round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!);
}
async function latency(fn: () => Promise<unknown>, n = REQUESTS): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}
/** The indexes (and partitions touched) of the plan PostgreSQL picks for a captured statement. */
async function planOf(q: { sql: string; bindings: readonly unknown[] }): Promise<string> {
  const plan = (
    (await db.raw(`explain ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as Knex.RawBinding[])).rows as {
      'QUERY PLAN': string;
    }[]
  )
    .map((x) => x['QUERY PLAN'])
    .join('\n');
  const idx = [
    ...new Set(
      [...plan.matchAll(/(Index Only Scan|Index Scan|Bitmap Index Scan)( Backward)? (?:using|on) (\w+)/g)].map(
        (m) =>
          `${m[1]}${m[2] ?? ''}: ${m[3]!.replace(/^activity_log_(2026|2027)_\d\d/, 'activity_log').replace('_monthly', '')}`,
      ),
    ),
  ];
  const scans = (plan.match(/(Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan)/g) ?? []).length;
  const seq = [...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]);
  return `${idx.join(', ')}${seq.length ? ` + Seq Scan: ${seq.join(', ')}` : ''}${/Sort Method|-> {2}Sort/.test(plan) ? ' + SORT' : ''} (${scans} scan${scans === 1 ? '' : 's'})`;
}

type ListRow = Record<string, string | number>;
async function lists(table: 'plain' | 'monthly'): Promise<ListRow[]> {
  return asActivityLog(table, async () => {
    const repo = workspaceReadRepo(db);
    const store = knexStore(db);
    const rows: ListRow[] = [];
    for (const [who, agentId] of [
      ['busy', BUSY],
      ['typical', TYPICAL],
    ] as const) {
      for (const [label, filter] of FILTERS) {
        for (const page of [1, 100]) {
          const window = { limit: PAGE, offset: (page - 1) * PAGE };
          const sent: { sql: string; bindings: readonly unknown[] }[] = [];
          const capture = (q: { sql: string; bindings?: readonly unknown[] }) =>
            void sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
          db.on('query', capture);
          const { totalCount } = await repo.listActivity(agentId, filter, window);
          db.off('query', capture);
          const pageQ = sent.find((q) => /order by/i.test(q.sql))!;
          const countQ = sent.find((q) => /count\(\*\)/i.test(q.sql))!;
          const raw = (q: typeof pageQ) => () => db.raw(q.sql.replace(/\$\d+/g, '?'), q.bindings as Knex.RawBinding[]);
          const api = await latency(() => repo.listActivity(agentId, filter, window));
          const pageOnly = await latency(raw(pageQ));
          const countOnly = await latency(raw(countQ), Math.min(REQUESTS, 15));
          rows.push({
            agent: who,
            filter: label,
            page,
            totalCount,
            'API p50 ms': api.p50,
            'API p95 ms': api.p95,
            'page only p95': pageOnly.p95,
            'count only p95': countOnly.p95,
            'page plan': await planOf(pageQ),
            'count plan': await planOf(countQ),
          });
        }
      }
      // GraphQL: keyset pages (first 50 + 1), no count; filters: none and surface only.
      for (const surface of [undefined, 'MCP' as const]) {
        const deep = (await db('activity_log')
          .where({ agent_id: agentId, ...(surface ? { surface } : {}) })
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .offset(99 * PAGE - 1)
          .first('created_at', 'id')) as { created_at: Date; id: string } | undefined;
        const pages = [[1, undefined], ...(deep ? [[100, { createdAt: deep.created_at, id: deep.id }]] : [])] as [
          number,
          { createdAt: Date; id: string } | undefined,
        ][];
        for (const [page, after] of pages) {
          const sent: { sql: string; bindings: readonly unknown[] }[] = [];
          const capture = (q: { sql: string; bindings?: readonly unknown[] }) =>
            void sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
          db.on('query', capture);
          await store.repos.activity.list(agentId, { first: PAGE + 1, after, surface });
          db.off('query', capture);
          const l = await latency(() => store.repos.activity.list(agentId, { first: PAGE + 1, after, surface }));
          rows.push({
            agent: who,
            filter: `GraphQL ${surface ? 'surface' : 'none'} (keyset)`,
            page,
            totalCount: '—',
            'API p50 ms': l.p50,
            'API p95 ms': l.p95,
            'page only p95': l.p95,
            'count only p95': '—',
            'page plan': await planOf(sent[0]!),
            'count plan': '—',
          });
        }
      }
    }
    // The overview's "last activity" of every agent (one correlated max per agent).
    const last = await latency(() => repo.lastActivity(agentIds));
    rows.push({
      agent: `all ${AGENTS}`,
      filter: 'lastActivity (overview)',
      page: '—',
      totalCount: '—',
      'API p50 ms': last.p50,
      'API p95 ms': last.p95,
      'page only p95': last.p95,
      'count only p95': '—',
      'page plan': '',
      'count plan': '—',
    });
    return rows;
  });
}

say(`lists on the plain table (${REQUESTS} calls each)…`);
const plainLists = await lists('plain');
console.table(plainLists);
say('lists on the partitioned copy…');
const monthlyLists = await lists('monthly');
console.table(monthlyLists);

// ---------------------------------------------------------------------------------------------
// 6. Retention: one month (September) out of each table.

const september = { from: '2026-09-01', to: '2026-10-01' };
const septemberRows = Number(
  (await db('activity_log').where('created_at', '<', september.to).count<{ n: number }[]>('* as n'))[0]!.n,
);

/** Peak heap of this process while `fn` runs (the prune reads back every deleted id). */
async function withPeakHeap<T>(fn: () => Promise<T>): Promise<{ value: T; peakHeapMb: number; peakRssMb: number }> {
  const before = process.memoryUsage();
  let heap = before.heapUsed;
  let rss = before.rss;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed);
    rss = Math.max(rss, m.rss);
  }, 50);
  try {
    const value = await fn();
    return {
      value,
      peakHeapMb: round((heap - before.heapUsed) / 1024 ** 2, 0),
      peakRssMb: round((rss - before.rss) / 1024 ** 2, 0),
    };
  } finally {
    clearInterval(timer);
  }
}

const deadTuples = async (table: string) =>
  Number(
    (
      await db.raw(`select coalesce(sum(n_dead_tup), 0)::bigint as n from pg_stat_user_tables where relname = ?`, [
        table,
      ])
    ).rows[0].n,
  );
const freePercent = async (table: string) => {
  await db.raw('create extension if not exists pgstattuple');
  const r = (
    await db.raw(
      `select round(approx_free_percent::numeric, 1) as f, round(dead_tuple_percent::numeric, 1) as d from pgstattuple_approx(?::regclass)`,
      [table],
    )
  ).rows[0];
  return { free: Number(r.f), dead: Number(r.d) };
};

say(
  `retention, plain table: the service's prune (one DELETE … RETURNING id per workspace) of September (${int(septemberRows)} entries)…`,
);
const plainBefore = await sizes('activity_log');
const store = knexStore(db);
let lsn = await walLsn();
const prune = await withPeakHeap(() =>
  timed(async () => {
    let n = 0;
    for (const ws of workspaceIds) n += await store.repos.activity.prune(ws, new Date(september.to));
    return n;
  }),
);
const pruneWal = await walSince(lsn);
await db.raw('analyze activity_log');
const deadAfterPrune = await deadTuples('activity_log');
say(
  `  ${int(prune.value.value)} entries in ${(prune.value.ms / 1000).toFixed(1)} s, WAL ${mb(pruneWal)}, this process's heap +${prune.peakHeapMb} MB`,
);
// What the hourly housekeeping deletes in steady state: one day of entries (then per hour, /24).
lsn = await walLsn();
const pruneDay = await timed(async () => {
  let n = 0;
  for (const ws of workspaceIds) n += await store.repos.activity.prune(ws, new Date('2026-10-02T00:00:00Z'));
  return n;
});
const pruneDayWal = await walSince(lsn);
const afterPruneList = await asActivityLog('plain', async () =>
  latency(() => workspaceReadRepo(db).listActivity(BUSY, {}, { limit: PAGE, offset: 0 }), 10),
);
lsn = await walLsn();
const vacuumAfter = await timed(() => db.raw('vacuum activity_log'));
const vacuumWal = await walSince(lsn);
const plainAfter = await sizes('activity_log');
const plainFree = await freePercent('activity_log');

say('retention, partitioned copy: DETACH PARTITION + DROP TABLE of September…');
const monthlyBefore = await sizes('activity_log_monthly');
lsn = await walLsn();
const detach = await timed(() => db.raw('alter table activity_log_monthly detach partition activity_log_2026_09'));
const drop = await timed(() => db.raw('drop table activity_log_2026_09'));
const dropWal = await walSince(lsn);
// The same day's delete inside one partition (a workspace whose retention is shorter than the partition).
const monthlyPruneDay = await asActivityLog('monthly', () =>
  timed(async () => {
    let n = 0;
    for (const ws of workspaceIds) n += await store.repos.activity.prune(ws, new Date('2026-10-02T00:00:00Z'));
    return n;
  }),
);
const monthlyAfter = await sizes('activity_log_monthly');
const afterDropList = await asActivityLog('monthly', async () =>
  latency(() => workspaceReadRepo(db).listActivity(BUSY, {}, { limit: PAGE, offset: 0 }), 10),
);
say(`  detach ${round(detach.ms)} ms, drop ${round(drop.ms)} ms, WAL ${mb(dropWal)}`);

// ---------------------------------------------------------------------------------------------
// The report.

const md = (rows: Record<string, unknown>[]) => {
  const keys = Object.keys(rows[0] ?? {});
  return [
    `| ${keys.join(' | ')} |`,
    `|${keys.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${keys.map((k) => String(r[k] ?? '')).join(' | ')} |`),
  ].join('\n');
};
const indexTotal = (s: Sizes) => s.indexes.reduce((a, i) => a + i.bytes, 0);
const sizeRows = (s: Sizes) => [
  { part: 'heap (rows)', bytes: gb(s.heap), 'bytes/entry': int(s.heap / s.rows) },
  { part: 'TOAST', bytes: mb(s.toast), 'bytes/entry': int(s.toast / s.rows) },
  ...s.indexes.map((i) => ({ part: `index ${i.name}`, bytes: mb(i.bytes), 'bytes/entry': int(i.bytes / s.rows) })),
  { part: 'all indexes', bytes: gb(indexTotal(s)), 'bytes/entry': int(indexTotal(s) / s.rows) },
  {
    part: '**total (pg_total_relation_size)**',
    bytes: `**${gb(s.total)}**`,
    'bytes/entry': `**${int(s.total / s.rows)}**`,
  },
];
const now = new Date();
const w = (k: string) =>
  `${int(writes[k]!.perSecond)} entries/s (${int(SAMPLE)} in ${writes[k]!.seconds.toFixed(1)} s) | ${int(writes[k]!.walPerEntry)} B`;
const report = [
  `## Activity-log growth, ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GB RAM, Node ${process.version}, PostgreSQL ${server} on the same machine, default settings ` +
    `(${settings.map((s) => `${s.name} ${s.setting}${s.unit ?? ''}`).join(', ')}). Other work (test suites of other engineers) may have been running on the machine at the same time; ` +
    `WAL figures are the server's, so they may include a little of that work.`,
  '',
  `Reproduce: \`npm run bench -- activity-growth\` (BENCH_DATABASE_URL, default ${DB_URL.replace(/\/\/[^@]*@/, '//…@')}; BENCH_ENTRIES=${ENTRIES}, BENCH_SAMPLE=${SAMPLE}, BENCH_REQUESTS=${REQUESTS}). Whole run: ${elapsed()}.`,
  '',
  '### What an entry is',
  '',
  `An HTTP API call with a JSON body: 11 request headers (authorization redacted), a ~200 B body, a ~200 B response, request id, key id, duration; 25 % are runs, 2 % errors. ` +
    `${AGENTS} agents in ${WORKSPACES} workspaces; one busy agent has 30 % of the entries, the other 19 share the rest. The ${int(ENTRIES)} bulk entries span ${new Date(FROM).toISOString().slice(0, 10)} … ${new Date(TO - 1).toISOString().slice(0, 10)} (~${int(ENTRIES / 3)} per month), in time order.`,
  '',
  `| | row (pg_column_size) | headers | body | response |`,
  `|---|---|---|---|---|`,
  `| ${int(SAMPLE)} written by the service | ${sampleRow.row} B | ${sampleRow.headers} B | ${sampleRow.body} B | ${sampleRow.response} B |`,
  `| ${int(ENTRIES)} bulk (1 % sample) | ${bulkRow.row} B | ${bulkRow.headers} B | ${bulkRow.body} B | ${bulkRow.response} B |`,
  '',
  `${int(SAMPLE)} entries written by the service took ${gb(sampleSizes.total)} in all (${int(sampleSizes.total / sampleSizes.rows)} B/entry, indexes of a small table included).`,
  '',
  '### Write path (ActivityLog.record → buffered sink, batches of 200 → repos.activity.insertMany)',
  '',
  `| table | sinks (instances) | measured | WAL per entry |`,
  `|---|---|---|---|`,
  `| empty, plain | 1 | ${int(writeEmpty.perSecond)} entries/s (${int(SAMPLE)} in ${writeEmpty.seconds.toFixed(1)} s) | ${int(writeEmpty.walPerEntry)} B |`,
  `| ${int(ENTRIES)}, plain (today's table) | 1 | ${w('plain/1')} |`,
  `| ${int(ENTRIES)}, plain (today's table) | 4 at once | ${w('plain/4')} |`,
  `| ${int(ENTRIES)}, partitioned by month | 1 | ${w('monthly/1')} |`,
  `| ${int(ENTRIES)}, partitioned by month | 4 at once | ${w('monthly/4')} |`,
  '',
  'The writer and PostgreSQL share the two cores: these are lower bounds for a dedicated database server. WAL per entry is what the server wrote while the entries were stored (full-page images included). ' +
    "The partitioned table's insert names (id, created_at) as its conflict target (its unique key must hold the partition key); otherwise it is the service's insertMany.",
  '',
  `### At ${int(atTen.rows)} entries: plain table (today's schema)`,
  '',
  `Bulk fill ${(fillMs / 1000).toFixed(0)} s (${CHUNK.toLocaleString('en')} rows per statement, indexes dropped), primary key + ${secondary.length} indexes rebuilt ${(indexMs / 1000).toFixed(0)} s, VACUUM ANALYZE ${(vacuumMs / 1000).toFixed(0)} s.`,
  '',
  md(sizeRows(atTen)),
  '',
  `### At ${int(partAtTen.rows)} entries: partitioned copy (range on created_at, one partition per month, primary key (id, created_at))`,
  '',
  `Copied ${(copyMs / 1000).toFixed(0)} s, indexes ${(partIndexMs / 1000).toFixed(0)} s, VACUUM ANALYZE ${(partVacuumMs / 1000).toFixed(0)} s.`,
  '',
  md(sizeRows(partAtTen)),
  '',
  `### Lists at ${int(ENTRIES)} (+${int(4 * SAMPLE)} written since), pageSize ${PAGE}, ${REQUESTS} sequential calls per row`,
  '',
  `"API" is workspaceReadRepo.listActivity as the Workspace API calls it: the page (OFFSET) and the exact count(*) at once on two connections. "page only" and "count only" are the same two statements alone. ` +
    `The GraphQL rows are repos.activity.list (keyset cursor, first ${PAGE}+1, no count); page 100 starts after the ${int(99 * PAGE)}th entry. The busy agent has ~${int(0.3 * ENTRIES)} entries, a typical one ~${int((0.7 * ENTRIES) / (AGENTS - 1))}.`,
  '',
  '#### Plain table',
  '',
  md(plainLists),
  '',
  '#### Partitioned copy',
  '',
  md(monthlyLists),
  '',
  '### Retention: one month (September, ' + int(septemberRows) + ' entries)',
  '',
  `| | plain table: the service's prune (DELETE … RETURNING id, per workspace) | partitioned: DETACH PARTITION + DROP TABLE |`,
  `|---|---|---|`,
  `| time | ${(prune.value.ms / 1000).toFixed(1)} s (${int(prune.value.value)} entries) | detach ${round(detach.ms)} ms + drop ${round(drop.ms)} ms |`,
  `| WAL written | ${mb(pruneWal)} | ${mb(dropWal)} |`,
  `| this process's memory (the deleted ids come back) | heap +${prune.peakHeapMb} MB, RSS +${prune.peakRssMb} MB | — |`,
  `| dead rows left | ${int(deadAfterPrune)} | 0 |`,
  `| VACUUM afterwards | ${(vacuumAfter.ms / 1000).toFixed(1)} s, WAL ${mb(vacuumWal)} | not needed |`,
  `| size before → after | ${gb(plainBefore.total)} → ${gb(plainAfter.total)} (file not shrunk; ${plainFree.free} % free space inside, reused by later inserts) | ${gb(monthlyBefore.total)} → ${gb(monthlyAfter.total)} (space back to the file system) |`,
  `| one day (${int(pruneDay.value)} entries) with the service's prune | ${(pruneDay.ms / 1000).toFixed(2)} s, WAL ${mb(pruneDayWal)} | ${(monthlyPruneDay.ms / 1000).toFixed(2)} s (${int(monthlyPruneDay.value)} entries, inside one partition) |`,
  '',
  `Busy agent's first page (API, with count, 10 calls) right after the retention: plain table after the DELETE, before VACUUM: p50 ${afterPruneList.p50} ms, p95 ${afterPruneList.p95} ms; ` +
    `partitioned after the DROP: p50 ${afterDropList.p50} ms, p95 ${afterDropList.p95} ms.`,
  '',
].join('\n');
const file = `${now.toISOString().slice(0, 10)}-activity-growth.md`;
fs.writeFileSync(new URL(`./results/${file}`, import.meta.url), report);
console.log(`\n${report}`);
console.log(`written to bench/results/${file}`);
await closeDatabase(db);
