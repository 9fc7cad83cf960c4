// What a `kill -9` of the service loses, measured: requests are answered under load (50 at a time)
// until the process is killed mid-flight; then every answered request is looked for in the database
// — its activity entry (by run id) and its credits (each script run charges the workspace's
// `scriptRunCredits`). A graceful stop (SIGTERM) is measured the same way and must lose nothing.
//
//   npx tsx bench/kill9.bench.ts          (PostgreSQL at BENCH_DATABASE_URL, default app_kill9 on localhost)
//
// Answers are counted only once their whole body arrived: a request cut off by the kill was never
// accepted, and is not counted as lost.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeDatabase, openDatabase } from '../src/infra/db.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DB_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/app_kill9';
const ADMIN = 'bench-admin-token-0123456789';
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');
const CONCURRENCY = 50;
const LOAD_MS = Number(process.env.BENCH_KILL_AFTER_MS ?? 3_000);
const CREDITS_PER_RUN = 0.5;

async function recreate(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const db = await openDatabase({ databaseUrl: admin.toString() });
  const name = new URL(url).pathname.slice(1).replace(/"/g, '""');
  try {
    await db.raw(`drop database if exists "${name}" with (force)`);
    await db.raw(`create database "${name}"`);
  } finally {
    await closeDatabase(db);
  }
}

function start(dataDir: string): Promise<{ proc: ChildProcess; url: string }> {
  const env = {
    ...process.env,
    PORT: '0',
    DATABASE_URL: DB_URL,
    DATA_DIR: dataDir,
    ADMIN_TOKEN: ADMIN,
    SECRETS_KEY,
    LOG_LEVEL: 'warn',
  };
  const proc = spawn(process.execPath, ['dist/src/main.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) resolve({ proc, url: m[1]!.replace('0.0.0.0', '127.0.0.1').replace(/\/+$/, '') });
    });
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`service exited (${code}) before listening:\n${out.slice(-2000)}`)));
  });
}

async function graphql(url: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const r = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify({ query, variables }),
  });
  const j = (await r.json()) as { data?: any; errors?: unknown[] };
  if (j.errors?.length) throw new Error(`GraphQL: ${JSON.stringify(j.errors)}`);
  return j.data;
}

interface Trial {
  stop: 'SIGKILL' | 'SIGTERM';
  answered: number;
  missingEntries: number;
  chargedRuns: number;
  missingCredits: number;
  windowMs: number;
}

async function trial(stop: Trial['stop']): Promise<Trial> {
  await recreate(DB_URL);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-kill9-'));
  const service = await start(dataDir);
  await graphql(service.url, 'mutation($i: WorkspaceSettingsInput!) { updateWorkspaceSettings(input: $i) { id } }', {
    i: { creditDefaults: { scriptRunCredits: CREDITS_PER_RUN } },
  });
  const agentId = (await graphql(service.url, 'mutation { createAgent(input: { name: "kill" }) { id } }')).createAgent
    .id as string;
  const key = (
    await graphql(service.url, 'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', {
      a: agentId,
    })
  ).createAgentApiKey.key as string;
  await graphql(
    service.url,
    'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }',
    { a: agentId, i: { path: 'sum', handler: { script: 'return { sum: input.a + input.b };' } } },
  );

  const runIds: string[] = [];
  let stopping = false;
  let lastAnswer = 0;
  const worker = async () => {
    while (!stopping) {
      try {
        const r = await fetch(`${service.url}/agents/${agentId}/api/sum`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
          body: '{"a":1,"b":2}',
        });
        const body = (await r.json()) as { runId?: string };
        if (r.status === 200 && body.runId) {
          runIds.push(body.runId);
          lastAnswer = Date.now();
        }
      } catch {
        if (stopping) return;
      }
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, worker);
  await new Promise((r) => setTimeout(r, LOAD_MS));
  const exited = new Promise((r) => service.proc.once('exit', r));
  const killedAt = Date.now();
  service.proc.kill(stop);
  stopping = true;
  await exited;
  await Promise.all(workers);
  fs.rmSync(dataDir, { recursive: true, force: true });

  const db = await openDatabase({ databaseUrl: DB_URL });
  try {
    const stored = new Set<string>();
    for (let i = 0; i < runIds.length; i += 5_000) {
      const rows = (await db('activity_log')
        .whereIn('run_id', runIds.slice(i, i + 5_000))
        .select('run_id')) as { run_id: string }[];
      for (const r of rows) stored.add(r.run_id);
    }
    const usage = (await db('credit_usage')
      .where({ agent_id: agentId })
      .sum({ credits: 'credits' })
      .sum({ runs: 'runs' })
      .first()) as { credits: string | null; runs: string | null };
    const charged = Number(usage?.credits ?? 0);
    return {
      stop,
      answered: runIds.length,
      missingEntries: runIds.filter((id) => !stored.has(id)).length,
      chargedRuns: Number(usage?.runs ?? 0),
      missingCredits: Math.max(0, Math.round((runIds.length * CREDITS_PER_RUN - charged) * 1e6) / 1e6),
      windowMs: Math.max(0, killedAt - (lastAnswer || killedAt)),
    };
  } finally {
    await closeDatabase(db);
  }
}

if (!fs.existsSync(path.join(root, 'dist/src/main.js')) || process.env.BENCH_BUILD !== '0') {
  const b = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('npm run build failed');
}

const trials: Trial[] = [];
for (const stop of ['SIGKILL', 'SIGKILL', 'SIGKILL', 'SIGTERM'] as const) trials.push(await trial(stop));
const rows = trials.map(
  (t) =>
    `| ${t.stop} | ${t.answered.toLocaleString('en')} | ${t.missingEntries} | ${t.chargedRuns.toLocaleString('en')} | ${t.missingCredits} (${Math.round(t.missingCredits / CREDITS_PER_RUN)} runs) | ${t.stop === 'SIGTERM' ? (t.missingEntries === 0 && t.missingCredits === 0 ? 'PASS' : 'FAIL') : ''} |`,
);
const report = [
  `## What a kill -9 loses, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `${os.availableParallelism()} cores, Node ${process.version}, PostgreSQL; a script endpoint under ${CONCURRENCY} concurrent callers for ${LOAD_MS / 1000} s, then the signal; each run charges ${CREDITS_PER_RUN} credits.`,
  'Answered: 200 answers whose body arrived. Missing: answered runs without an activity entry, and credits not charged for answered runs (target for SIGTERM: nothing missing).',
  '',
  '| signal | answered | activity entries missing | runs charged | credits missing | target |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
console.log(report);
const out = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-kill9.md`);
fs.writeFileSync(out, report);
console.log(`written to ${path.relative(root, out)}`);
process.exit(trials.some((t) => t.stop === 'SIGTERM' && (t.missingEntries > 0 || t.missingCredits > 0)) ? 1 : 0);
