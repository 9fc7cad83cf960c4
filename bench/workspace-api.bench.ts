// Workspace API list latency at scale, on PostgreSQL: 1,000,000 messages (and activity entries) for
// one agent plus other agents' rows, then p50/p95 over HTTP for every filter combination on page 1
// and a deep page, and the plan (index, buffers, time) of each page query and its exact count.
//
//   npx tsx bench/workspace-api.bench.ts
//   BENCH_DATABASE_URL=postgres://…/app_bench BENCH_MESSAGES=1000000 BENCH_REQUESTS=200 BENCH_PLANS=full BENCH_REUSE=1
//
// BENCH_REUSE=1 keeps an already seeded database (seeding is skipped when the agent has its rows).
import fs from 'node:fs';
import os from 'node:os';
import type { Knex } from 'knex';
import { loadConfig } from '../src/infra/config.js';
import { closeDatabase, openDatabase } from '../src/infra/db.js';
import { migrateLatest } from '../src/infra/migrate.js';
import { buildService } from '../src/server.js';
import { ensureDatabase } from './ensure-database.js';

const DB_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/app_bench';
const ROWS = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const FULL_PLANS = process.env.BENCH_PLANS === 'full';
const REUSE = process.env.BENCH_REUSE === '1';
const ADMIN = 'bench-admin-token-0123456789';
const NEWEST = Date.UTC(2026, 10, 1);
const STEP_S = 30; // one row every 30 s: 1M rows span ~347 days

async function seed(db: Knex, workspaceId: string, agentId: string, others: string[]): Promise<number> {
  const t = performance.now();
  const newest = new Date(NEWEST).toISOString();
  const insertMessages = (agent: string, tag: string, n: number) =>
    db.raw(
      `insert into messages (id, workspace_id, agent_id, direction, channel, from_address, to_address, subject, body, sent_at, created_at)
       select 'msg_${tag}_' || g, ?, ?, case when g % 2 = 0 then 'inbound' else 'outbound' end,
              case when g % 5 = 0 then 'sms' else 'email' end, 'customer' || (g % 1000) || '@example.com', 'agent@example.com',
              'Order ' || g, 'Hello, this is message ' || g || ' about an order that needs attention.',
              ?::timestamptz - make_interval(secs => g * ${STEP_S}), now()
         from generate_series(1, ?) g`,
      [workspaceId, agent, newest, n],
    );
  const insertActivity = (agent: string, tag: string, n: number) =>
    db.raw(
      `insert into activity_log (id, workspace_id, agent_id, kind, surface, entry, method, path, status, request_headers, request_body, response, credits, duration_ms, created_at)
       select 'act_${tag}_' || g, ?, ?, case when g % 4 = 0 then 'run' else 'request' end,
              (array['HTTP_API','DOCUMENT_API','MCP','WIDGET','WEBHOOKS'])[1 + g % 5], 'orders', 'POST', '/agents/x/api/orders', 200,
              '{"content-type":"application/json"}'::jsonb, jsonb_build_object('n', g), '{"ok":true}'::jsonb, 0.01, 12,
              ?::timestamptz - make_interval(secs => g * ${STEP_S})
         from generate_series(1, ?) g`,
      [workspaceId, agent, newest, n],
    );
  // Bulk load without the secondary indexes, then build them once (as pg_restore does): much
  // faster than maintaining six btrees row by row. The definitions come from the migration itself.
  const indexes = (
    await db.raw(
      `select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename in ('messages', 'activity_log') and indexname not like '%_pkey'`,
    )
  ).rows as { indexname: string; indexdef: string }[];
  for (const i of indexes) await db.raw(`drop index "${i.indexname}"`);
  await insertMessages(agentId, 'big', ROWS);
  await insertActivity(agentId, 'big', ROWS);
  for (const [i, other] of others.entries()) {
    await insertMessages(other, `o${i}`, Math.ceil(ROWS / 10));
    await insertActivity(other, `o${i}`, Math.ceil(ROWS / 10));
  }
  const loaded = performance.now();
  await db.transaction(async (trx) => {
    await trx.raw(`set local maintenance_work_mem = '256MB'`);
    for (const i of indexes) await trx.raw(i.indexdef);
  });
  console.log(
    `  rows inserted in ${((loaded - t) / 1000).toFixed(1)} s, ${indexes.length} secondary indexes built in ${((performance.now() - loaded) / 1000).toFixed(1)} s`,
  );
  // VACUUM sets the visibility map (index-only counts), as autovacuum does on a live table.
  await db.raw('vacuum analyze messages');
  await db.raw('vacuum analyze activity_log');
  return performance.now() - t;
}

const iso = (daysBeforeNewest: number) => new Date(NEWEST - daysBeforeNewest * 86_400_000).toISOString();
const MESSAGE_FILTERS: [string, string][] = [
  ['none', ''],
  ['direction', 'direction=inbound'],
  ['channel', 'channel=sms'],
  ['direction+channel', 'direction=inbound&channel=sms'],
  ['since', `since=${iso(30)}`],
  ['until', `until=${iso(300)}`],
  ['since+until', `since=${iso(200)}&until=${iso(100)}`],
  ['all four', `direction=outbound&channel=email&since=${iso(200)}&until=${iso(100)}`],
];
const ACTIVITY_FILTERS: [string, string][] = [
  ['none', ''],
  ['surface', 'surface=MCP'],
  ['kind', 'kind=run'],
  ['surface+kind', 'surface=WEBHOOKS&kind=run'],
  ['since+until', `since=${iso(200)}&until=${iso(100)}`],
  ['surface+kind+dates', `surface=WEBHOOKS&kind=run&since=${iso(200)}&until=${iso(100)}`],
];

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 10) / 10;
}

/** Indexes and execution time of EXPLAIN (ANALYZE, BUFFERS) for a query the service sent. */
async function explain(
  db: Knex,
  q: { sql: string; bindings: readonly unknown[] },
): Promise<{ indexes: string; ms: number; plan: string }> {
  // The event carries pg's native $n placeholders, numbered in order; knex.raw takes ?.
  const r = await db.raw(`explain (analyze, buffers) ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as Knex.RawBinding[]);
  const plan = (r.rows as { 'QUERY PLAN': string }[]).map((x) => x['QUERY PLAN']).join('\n');
  const indexes = [
    ...new Set(
      [...plan.matchAll(/(Index Only Scan|Index Scan|Bitmap Index Scan)( Backward)? (?:using|on) (\w+)/g)].map(
        (m) => `${m[1]}${m[2] ?? ''}: ${m[3]}`,
      ),
    ),
  ];
  const seq = /Seq Scan on (\w+)/.exec(plan);
  return {
    indexes: [...indexes, ...(seq ? [`SEQ SCAN ${seq[1]}`] : []), ...(/Sort Method/.test(plan) ? ['+ SORT'] : [])].join(
      ', ',
    ),
    ms: Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1] ?? NaN),
    plan,
  };
}

await ensureDatabase(DB_URL);
const db = await openDatabase({ databaseUrl: DB_URL });
const seeded =
  REUSE &&
  (await db.schema.hasTable('messages')) &&
  Number((await db('messages').count<{ n: number }[]>('* as n'))[0]?.n) >= ROWS;
if (!seeded) {
  await db.raw('drop schema if exists public cascade');
  await db.raw('create schema public');
}
await migrateLatest(db);
const service = await buildService(
  loadConfig({
    DATABASE_URL: DB_URL,
    SECRETS_KEY: Buffer.alloc(32, 5).toString('base64'),
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'error',
    PORT: '0',
  }),
  { db, skipMigrations: true, housekeepingMs: 0 },
);
const { url } = await service.listen(0, '127.0.0.1');
const gql = async (query: string) =>
  (
    (await (
      await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ query }),
      })
    ).json()) as any
  ).data;

let agentId: string;
let seedMs = 0;
if (seeded) {
  agentId = String(
    (await db('messages').select('agent_id').count('* as n').groupBy('agent_id').orderBy('n', 'desc').first())!
      .agent_id,
  );
} else {
  agentId = (await gql('mutation { createAgent(input: {name: "busy"}) { id } }')).createAgent.id;
  const others: string[] = [];
  for (let i = 0; i < 3; i++)
    others.push((await gql(`mutation { createAgent(input: {name: "other ${i}"}) { id } }`)).createAgent.id);
  console.log(
    `seeding ${ROWS.toLocaleString()} messages + ${ROWS.toLocaleString()} activity entries for one agent, ${(3 * Math.ceil(ROWS / 10)).toLocaleString()} of each for three others…`,
  );
  seedMs = await seed(db, service.bootstrap.workspace.id, agentId, others);
  console.log(`seeded (incl. indexes, VACUUM ANALYZE) in ${(seedMs / 1000).toFixed(1)} s`);
}
const key = (await gql('mutation { createWorkspaceApiKey(name: "bench", scopes: [WORKSPACE_READ]) { key } }'))
  .createWorkspaceApiKey.key;

async function bench(list: 'messages' | 'activity', filters: [string, string][], pages: number[]) {
  const rows = [];
  const plans: string[] = [];
  for (const [label, filter] of filters) {
    for (const page of pages) {
      const path = `${url}/workspaceapi/agents/${agentId}/${list}?pageSize=50&page=${page}${filter ? `&${filter}` : ''}`;
      const get = async () => {
        const r = await fetch(path, { headers: { authorization: `Bearer ${key}` } });
        const body = (await r.json()) as { totalCount: number };
        if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
        return body;
      };
      // Capture the SQL the service sends, to explain exactly that.
      const sent: { sql: string; bindings: readonly unknown[] }[] = [];
      const capture = (q: { sql: string; bindings?: readonly unknown[] }) =>
        void sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
      db.on('query', capture);
      const { totalCount } = await get();
      db.off('query', capture);
      for (let i = 0; i < 5; i++) await get();
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now();
        await get();
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const table = list === 'messages' ? 'messages' : 'activity_log';
      const pageQ = sent.find((q) => q.sql.includes(`from "${table}"`) && /order by/i.test(q.sql))!;
      // The count: one count(*), or (messages) the per-day counts plus the two edge days.
      const countQs = sent.filter((q) => /count\(\*\)|message_day_counts/i.test(q.sql));
      const pe = await explain(db, pageQ);
      const ces: Awaited<ReturnType<typeof explain>>[] = [];
      for (const q of countQs) ces.push(await explain(db, q));
      const p95 = percentile(times, 0.95);
      rows.push({
        filter: label,
        page,
        totalCount,
        'p50 ms': percentile(times, 0.5),
        'p95 ms': p95,
        target: list === 'messages' ? (p95 <= 50 ? 'PASS' : 'FAIL') : '',
        'page plan': `${pe.indexes} (${pe.ms} ms)`,
        'count plan': ces.map((ce) => `${ce.indexes} (${ce.ms} ms)`).join(' + '),
      });
      if (FULL_PLANS || page === 1)
        plans.push(
          `-- ${list} ${label}, page ${page}\n${pageQ.sql}\n${pe.plan}\n${countQs.map((q, i) => `${q.sql}\n${ces[i]!.plan}`).join('\n')}`,
        );
    }
  }
  return { rows, plans };
}

console.log(
  `\n${REQUESTS} sequential requests per row, pageSize 50, PostgreSQL ${(await db.raw('show server_version')).rows[0].server_version}`,
);
const m = await bench('messages', MESSAGE_FILTERS, [1, 100]);
const a = await bench('activity', ACTIVITY_FILTERS, [1, 100]);
if (FULL_PLANS || process.env.BENCH_PLANS === 'page1') for (const p of [...m.plans, ...a.plans]) console.log(`\n${p}`);
console.log(`\nGET /workspaceapi/agents/{id}/messages (${ROWS.toLocaleString()} messages for the agent)`);
console.table(m.rows);
console.log(`\nGET /workspaceapi/agents/{id}/activity (${ROWS.toLocaleString()} entries for the agent)`);
console.table(a.rows);
if (seedMs) console.log(`seeding took ${(seedMs / 1000).toFixed(1)} s`);

// The figures, as a table in bench/results/<date>-workspace-api.md.
const md = (rows: Record<string, unknown>[]) => {
  const keys = Object.keys(rows[0] ?? {});
  return [
    `| ${keys.join(' | ')} |`,
    `|${keys.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${keys.map((k) => String(r[k] ?? '')).join(' | ')} |`),
  ].join('\n');
};
const now = new Date();
const server = (await db.raw('show server_version')).rows[0].server_version;
const report = [
  `## Workspace API lists, ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `${os.availableParallelism()} cores, Node ${process.version}, PostgreSQL ${server}; ${REQUESTS} sequential requests per row over HTTP, pageSize 50; target for messages: p95 ≤ 50 ms with totalCount exact.`,
  '',
  `### GET /workspaceapi/agents/{id}/messages (${ROWS.toLocaleString('en')} messages for the agent)`,
  '',
  md(m.rows),
  '',
  `### GET /workspaceapi/agents/{id}/activity (${ROWS.toLocaleString('en')} entries for the agent)`,
  '',
  md(a.rows),
  '',
].join('\n');
const out = new URL(`./results/${now.toISOString().slice(0, 10)}-workspace-api.md`, import.meta.url);
fs.writeFileSync(out, report);
console.log(`written to bench/results/${now.toISOString().slice(0, 10)}-workspace-api.md`);
await service.close();
await closeDatabase(db);
