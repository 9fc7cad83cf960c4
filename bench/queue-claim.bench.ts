// The queues' fair claim (src/infra/store/fair-claim.ts) under a backlog: how long one claim takes
// with 10,000 webhook deliveries (or channel messages) queued — 9,000 of one agent, 20 each of 50
// others — and, in the steady state of workers freeing one slot at a time, how many of agent A's
// 400 run before agent B's one delivery queued after A's first ones started. On PostgreSQL also:
// four connections claiming at once drain 2,000 deliveries of ten agents, none claimed twice.
// Embedded database in memory, or a schema of its own on BENCH_DATABASE_URL.
// Targets: a claim's median under 50 ms; B runs before a quarter of A's backlog; none claimed twice.
import type { Knex } from 'knex';
import {
  DEFAULT_CAPABILITIES,
  DEFAULT_CORS,
  DEFAULT_GUARDRAILS,
  defaultSurfaces,
} from '../src/domain/agents/agent.schemas.js';
import { newId } from '../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../src/domain/workspace/settings.js';
import { closeDatabase, openDatabase } from '../src/infra/db.js';
import { migrateLatest } from '../src/infra/migrate.js';
import { channelMessageRepo } from '../src/infra/store/channel-message.repo.js';
import { deliveryRepo } from '../src/infra/store/delivery.repo.js';
import { knexStore } from '../src/infra/store/knex-store.js';
import { ensureDatabase } from './ensure-database.js';

const url = process.env.BENCH_DATABASE_URL;
const SCHEMA = 'bench_queue_claim';
if (url) {
  await ensureDatabase(url);
  const admin = await openDatabase({ databaseUrl: url });
  await admin.raw(`drop schema if exists ${SCHEMA} cascade`);
  await admin.raw(`create schema ${SCHEMA}`);
  await closeDatabase(admin);
}
const db = await openDatabase({ databaseUrl: url, dataDir: 'memory', searchPath: url ? SCHEMA : undefined });
await migrateLatest(db);

const T0 = new Date('2000-01-01T00:00:00Z').getTime();
const NOW = new Date(T0 + 86_400_000);
const LEASE = new Date(NOW.getTime() + 600_000);
const { repos } = knexStore(db);
const wsId = newId('ws');
const ws = await repos.workspaces.insert({
  id: wsId,
  name: 'Bench',
  slug: wsId.slice(3),
  settings: DEFAULT_SETTINGS,
  dailyCreditLimit: null,
  createdAt: NOW,
  updatedAt: NOW,
});
const agents: { id: string; webhook: string }[] = [];
for (let i = 0; i < 51; i++) {
  const agent = await repos.agents.insert({
    ...{
      id: newId('agt'),
      workspaceId: ws.id,
      teamId: null,
      createdBy: null,
      name: `Agent ${i}`,
      slug: `agent-${i}`,
      description: '',
      instructions: '',
      defaultModel: null,
      visibility: 'WORKSPACE',
    },
    ...{
      allowWorkspaceKeys: false,
      surfaces: defaultSurfaces(),
      cors: DEFAULT_CORS,
      capabilities: DEFAULT_CAPABILITIES,
      guardrails: DEFAULT_GUARDRAILS,
      dailyCreditLimit: null,
    },
    ...{ maxConcurrentRequests: 2, createdAt: NOW, updatedAt: NOW },
  });
  const webhook = newId('wh');
  await db('webhooks').insert({
    id: webhook,
    agent_id: agent.id,
    integration: 'events',
    handler_kind: 'SCRIPT',
    handler_body: 'return 1;',
    created_at: NOW,
    updated_at: NOW,
  });
  agents.push({ id: agent.id, webhook });
}

type Kind = 'deliveries' | 'messages';
let seq = 0;
/** `count` due rows of agent `a`, each 1 ms after the one before (across calls). */
async function queue(kind: Kind, a: number, count: number): Promise<void> {
  const rows = Array.from({ length: count }, () => {
    const at = new Date(T0 + seq++);
    const { id: agent_id, webhook } = agents[a]!;
    return kind === 'deliveries'
      ? {
          id: newId('whd'),
          agent_id,
          webhook_id: webhook,
          integration: 'events',
          method: 'POST',
          path: '/',
          query: '{}',
          headers: '{}',
          raw_body: Buffer.from('{}'),
          status: 'PENDING',
          next_attempt_at: at,
          created_at: at,
          updated_at: at,
        }
      : {
          id: newId('msg'),
          workspace_id: ws.id,
          agent_id,
          direction: 'inbound',
          channel: 'email',
          from_address: 'a@example.com',
          to_address: 'b@example.com',
          body: 'Hello?',
          sent_at: at,
          created_at: at,
          status: 'received',
          next_attempt_at: at,
        };
  });
  for (let i = 0; i < rows.length; i += 500)
    await db(kind === 'deliveries' ? 'webhook_deliveries' : 'messages').insert(rows.slice(i, i + 500));
}
const claimOf =
  (kind: Kind, conn: Knex = db) =>
  (limit: number) =>
    kind === 'deliveries'
      ? deliveryRepo(conn).claim(NOW, LEASE, limit)
      : channelMessageRepo(conn).claim(NOW, LEASE, limit);
async function empty(kind: Kind): Promise<void> {
  await db(kind === 'deliveries' ? 'webhook_deliveries' : 'messages').delete();
}
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

let ok = true;
for (const kind of ['deliveries', 'messages'] as const) {
  const claim = claimOf(kind);
  // 10,000 queued: 9,000 of agent 0, 20 each of agents 1..50.
  await queue(kind, 0, 9000);
  for (let a = 1; a <= 50; a++) await queue(kind, a, 20);
  await db.raw(`analyze ${kind === 'deliveries' ? 'webhook_deliveries' : 'messages'}`);
  const one: number[] = [];
  const four: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await claim(1);
    one.push(performance.now() - t);
  }
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    await claim(4);
    four.push(performance.now() - t);
  }
  console.log(
    `${kind}: claim of 1 with ~10,000 queued: p50 ${pct(one, 50).toFixed(1)} ms, p99 ${pct(one, 99).toFixed(1)} ms; claim of 4: p50 ${pct(four, 50).toFixed(1)} ms, p99 ${pct(four, 99).toFixed(1)} ms`,
  );
  ok &&= pct(one, 50) < 50 && pct(four, 50) < 50;
  await empty(kind);

  // The steady state: A's 400, four of them running, then B's one; one slot frees at a time.
  await queue(kind, 0, 400);
  await claim(4);
  await queue(kind, 1, 1);
  let before = 0;
  for (;;) {
    const [d] = await claim(1);
    if (!d || d.agentId === agents[1]!.id) break;
    before++;
  }
  console.log(
    `${kind}: B's one row claimed after ${before} more of A's 400 (${400 - 4 - before} of A's still waiting)`,
  );
  ok &&= 400 - 4 - before >= 100;
  await empty(kind);
}

if (url) {
  // Four instances at once: every delivery claimed exactly once, and no claim fails (a deadlock would).
  for (let a = 0; a < 10; a++) await queue('deliveries', a, 200);
  const seen = new Set<string>();
  let twice = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (;;) {
        const got = await claimOf('deliveries')(1 + Math.floor(Math.random() * 3));
        if (got.length === 0) return;
        for (const d of got) seen.has(d.id) ? twice++ : seen.add(d.id);
      }
    }),
  );
  console.log(
    `4 connections claiming at once: ${seen.size} of 2000 deliveries claimed in ${((performance.now() - started) / 1000).toFixed(2)} s, ${twice} twice`,
  );
  ok &&= seen.size === 2000 && twice === 0;
  await db.raw(`drop schema if exists ${SCHEMA} cascade`);
}
await closeDatabase(db);
console.log(ok ? 'targets met' : 'TARGET MISSED');
process.exit(ok ? 0 : 1);
