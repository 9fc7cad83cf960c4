// @bench on-request: ~40 minutes and ~50 GB of disk (run by hand, see activity-partitions.bench.ts).
// Fills `activity_log` of a database of its own with BENCH_ENTRIES entries (default 30M) spread over
// the last 30 days, in bulk with generate_series (not through the service): ~1 KB of request and
// response bodies per entry, one busy agent with 30 % of the entries and 199 small ones over 4
// workspaces. The schema is the product's, at the migration before partitioning; the indexes are
// dropped for the fill and rebuilt from their own definitions afterwards, then VACUUM ANALYZE.
//
//   BENCH_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/app_part npx tsx bench/activity-partitions-fill.ts
import type { Knex } from 'knex';
import { closeDatabase, openDatabase } from '../src/infra/db.js';
import { migrationSource } from '../migrations/index.js';
import { ensureDatabase } from './ensure-database.js';

const DB_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/app_part';
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 30_000_000);
const CHUNK = Number(process.env.BENCH_CHUNK ?? 1_000_000);
const DAYS = 30;
export const WORKSPACES = 4;
export const AGENTS = 200;
const DAY_MS = 86_400_000;
/** The entries end now and start 30 days before the start of today (UTC). */
const TO = Date.now();
const FROM = Math.floor(TO / DAY_MS) * DAY_MS - DAYS * DAY_MS;

const t0 = performance.now();
const say = (s: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${s}`);

/** One generated entry per `g`: ~600 B request body, ~200 B response, ~300 B of headers. */
export const fillSql = (agents: number) => `
insert into activity_log (id, workspace_id, agent_id, kind, surface, entry, method, path, status, request_headers, request_body, response,
                          truncated, credits, duration_ms, key_id, run_id, request_id, error, logs, created_at)
select 'act_' || substr(h, 1, 16), (?::text[])[a], (?::text[])[a],
       case when g % 4 = 0 then 'run' else 'request' end,
       (array['HTTP_API','DOCUMENT_API','MCP','WIDGET','WEBHOOKS'])[1 + (g / 4) % 5],
       (array['orders','refunds','lookup','summarise'])[1 + (g / 20) % 4], 'POST', '/agents/' || (?::text[])[a] || '/api/orders', st,
       '{"host": "aes.example.com", "user-agent": "orders-service/2.4.1 node-fetch/3.3", "content-type": "application/json", "accept": "application/json", "content-length": "742", "authorization": "[redacted]"}'::jsonb
         || jsonb_build_object('x-forwarded-for', '203.0.113.' || (g % 255), 'x-request-id', 'req_' || h),
       '{"items": [{"sku": "SKU-0412", "name": "Stoneware mug, speckled glaze, 350 ml", "qty": 2, "price": 19.9},
                   {"sku": "SKU-0631", "name": "Linen napkins, set of four, oat", "qty": 1, "price": 24.5},
                   {"sku": "SKU-0877", "name": "Walnut serving board, large", "qty": 1, "price": 59}],
         "note": "Leave at the front desk if nobody answers. Gift wrap the board please.",
         "source": "web-checkout", "locale": "nl-NL", "currency": "EUR"}'::jsonb
         || jsonb_build_object('orderId', 'ord_' || g, 'customer', jsonb_build_object('email', 'customer' || (g % 1000) || '@example.com',
           'name', 'Customer ' || (g % 1000), 'address', (g % 300) || ' Harbour Street, 30' || (g % 90 + 10) || ' AB Rotterdam, NL')),
       case when st = 200 then jsonb_build_object('status', 'accepted', 'orderId', 'ord_' || g,
              'summary', 'Order ord_' || g || ' for ' || (3 + g % 3) || ' items accepted; delivery expected within 3 business days to Rotterdam.',
              'estimatedDelivery', '2026-12-03', 'total', 103.4 + (g % 3) * 19.9)
            else jsonb_build_object('error', case st when 429 then 'Daily credit limit reached' when 400 then 'Body does not match the endpoint schema' else 'Internal server error' end) end,
       false, 0.0123, 20 + g % 400, 'key_partbench00001', case when g % 4 = 0 then 'run_' || substr(h, 17, 16) end, 'req_' || substr(h, 9, 16),
       case when st = 500 then 'Model provider timed out after 30 s' end,
       case when g % 8 = 0 then '["looked up order", "priced 3 items"]'::jsonb end,
       ?::timestamptz + make_interval(secs => (g - ?::bigint) * ?::float8)
  from (select g, md5(g::text) as h,
               case when g % 10 < 3 then 1 else 2 + (g * 7919) % ${agents - 1} end as a,
               case when g % 50 = 0 then 500 when g % 50 < 3 then 429 when g % 50 < 6 then 400 else 200 end as st
          from generate_series(?::bigint, ?::bigint) g) s`;

export const workspaceIds = Array.from({ length: WORKSPACES }, (_, i) => `wsp_part${i + 1}`);
export const agentIds = Array.from({ length: AGENTS }, (_, i) => `agt_part${String(i + 1).padStart(3, '0')}`);
export const agentWorkspace = agentIds.map((_, i) => workspaceIds[i % WORKSPACES]!);

/** Renices this connection's backend (the bench shares 2 cores with other work). */
export async function renice(db: Knex): Promise<void> {
  const pid = (await db.raw('select pg_backend_pid() as pid')).rows[0].pid as number;
  const { execFileSync } = await import('node:child_process');
  try {
    execFileSync('renice', ['-n', '19', '-p', String(pid)]);
  } catch {
    say(`could not renice backend ${pid}`);
  }
}

if (process.argv[1]?.endsWith('activity-partitions-fill.ts')) {
  await ensureDatabase(DB_URL);
  const db = await openDatabase({ databaseUrl: DB_URL, poolMax: 2 });
  await db.raw('drop schema if exists public cascade');
  await db.raw('create schema public');
  const before: Knex.MigrationSource<string> = {
    ...migrationSource,
    getMigrations: async () =>
      (await migrationSource.getMigrations([])).filter((m) => m < '20270421000000_activity_partitions'),
  };
  await db.migrate.latest({ migrationSource: before, tableName: 'knex_migrations' });
  for (const id of workspaceIds) await db('workspaces').insert({ id, name: id, slug: id.replace('_', '-') });
  for (const [i, id] of agentIds.entries())
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
  const conn = await db.client.acquireConnection();
  const conn2 = await db.client.acquireConnection();
  const on = <T>(b: Knex.Raw<T>, c: unknown = conn) => b.connection(c);
  const { execFileSync } = await import('node:child_process');
  for (const c of [conn, conn2]) {
    const pid = (await on(db.raw('select pg_backend_pid() as pid'), c)).rows[0].pid as number;
    execFileSync('renice', ['-n', '19', '-p', String(pid)]);
    say(`backend ${pid} reniced`);
  }
  const secondary = (
    await on(
      db.raw(
        `select indexname, indexdef from pg_indexes where tablename = 'activity_log' and schemaname = 'public' and indexname <> 'activity_log_pkey' order by indexname`,
      ),
    )
  ).rows as { indexname: string; indexdef: string }[];
  for (const i of secondary) await on(db.raw(`drop index "${i.indexname}"`));
  await on(db.raw('alter table activity_log drop constraint activity_log_pkey'));
  const secsPerRow = (TO - FROM) / 1000 / ENTRIES;
  say(`fill ${ENTRIES} entries ${new Date(FROM).toISOString()} … ${new Date(TO).toISOString()}`);
  // Two backends, alternate chunks (the foreign keys are checked once the rows are in, as pg_restore does).
  const worker = async (c: unknown, first: number) => {
    for (let from = first; from <= ENTRIES; from += 2 * CHUNK) {
      const to = Math.min(ENTRIES, from + CHUNK - 1);
      await on(db.raw('begin'), c);
      await on(db.raw('set local session_replication_role = replica'), c);
      await on(
        db.raw(fillSql(AGENTS), [
          agentWorkspace,
          agentIds,
          agentIds,
          new Date(FROM).toISOString(),
          1,
          secsPerRow,
          from,
          to,
        ]),
        c,
      );
      await on(db.raw('commit'), c);
      say(`  ${to}`);
    }
  };
  await Promise.all([worker(conn, 1), worker(conn2, 1 + CHUNK)]);
  await db.client.releaseConnection(conn2);
  await on(db.raw(`set maintenance_work_mem = '1GB'`));
  const ti = performance.now();
  await on(db.raw('alter table activity_log add primary key (id)'));
  for (const i of secondary) {
    await on(db.raw(i.indexdef));
    say(`  ${i.indexname}`);
  }
  say(`indexes built in ${((performance.now() - ti) / 1000).toFixed(0)} s; vacuum analyze`);
  await on(db.raw('vacuum analyze activity_log'));
  say('done');
  await db.client.releaseConnection(conn);
  await closeDatabase(db);
}
