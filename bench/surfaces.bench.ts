// `npm run bench -- surfaces`: throughput and latency of the surfaces beside a baseline measured in
// the same run — a bare Koa route doing one INSERT into the same database, with the same driver —,
// on PostgreSQL and on the embedded database. The service runs as the production start runs it
// (compiled JavaScript under plain `node`), the baseline in a process of its own, and the load comes
// from autocannon in a third process: 50 connections, a warm-up, then the measured window.
//
//   npm run bench -- surfaces
//   BENCH_DATABASE_URL=postgres://…/app_bench BENCH_DATABASES=postgresql,embedded BENCH_WARMUP=5 BENCH_DURATION=15
//   BENCH_CASES='without limits,used up'   only the cases whose names contain one of these
//   BENCH_SERVICE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'   node options for the service (profiles)
//
// Without BENCH_DATABASE_URL the bench uses postgres://postgres:postgres@127.0.0.1:5432/app_bench
// when a server answers there (the database is created), and otherwise measures the embedded
// database only. Prints one table per database and writes them to bench/results/<date>.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeDatabase, openDatabase } from '../src/infra/db.js';
import { startOpenAiServer } from '../test/helpers/openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const DURATION = Number(process.env.BENCH_DURATION ?? 15);
/** The service is started as `npm run start:prod` starts it (its arguments after `node`). */
const PRODUCTION_ARGS = (
  JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts['start:prod']!.split(' ').slice(1);
const DEFAULT_PG = 'postgres://postgres:postgres@127.0.0.1:5432/app_bench';
const ADMIN = 'bench-admin-token-0123456789';
const SECRETS_KEY = Buffer.alloc(32, 5).toString('base64');

/** A target: which case, what its answers must be, and its bound relative to the baseline. */
interface Case {
  name: string;
  /** Status every answer must have; any other counts as an error. */
  status: number;
  request: { method: string; path: string; headers: Record<string, string>; body?: string };
  /**
   * Minimum req/s as a fraction of the baseline's (`ratio`) or of the script endpoint of the agent
   * without limits measured in the same run (`ofUnlimited`), and maximum p99 in ms.
   */
  target?: { ratio?: number; ofUnlimited?: number; p99?: number };
}

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rssMb: number;
  /** CPU time per answered request: the service's process, and PostgreSQL's processes (null: not measured). */
  cpuUs?: { service: number; database: number | null };
  ratio: number | null;
  /** req/s as a fraction of the unlimited script endpoint's (limited cases only). */
  ofUnlimited: number | null;
  verdict: string;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  total: number;
}

// ---------------------------------------------------------------------------------------------------

function child(args: string[], env: NodeJS.ProcessEnv): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) {
        proc.stdout!.off('data', onData);
        // BENCH_SERVICE_LOG: where the service's own output goes (e.g. with BENCH_SERVICE_ARGS=--trace-gc).
        const log =
          env.PORT && process.env.BENCH_SERVICE_LOG ? fs.createWriteStream(process.env.BENCH_SERVICE_LOG) : null;
        if (log) proc.stdout!.pipe(log);
        else proc.stdout!.resume();
        proc.stderr!.resume();
        resolve({ proc, url: m[1]!.replace('0.0.0.0', '127.0.0.1').replace(/\/+$/, '') });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited (${code}) before listening:\n${out.slice(-2000)}`)),
    );
  });
}

async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const TICK_US = 1e6 / 100; // /proc's clock ticks (USER_HZ, 100 on Linux)

/** CPU time (user + system) a process has used, in microseconds; 0 where /proc cannot tell. */
function cpuUsOf(pid: number): number {
  try {
    // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th, stime the 15th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** CPU time used by every PostgreSQL process on this machine (its server runs here in the bench). */
function databaseCpuUs(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc'))
    if (/^\d+$/.test(pid))
      try {
        if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuUsOf(Number(pid));
      } catch {
        // The process ended meanwhile.
      }
  return total;
}

/** autocannon in its own process; the answers that are not `status` count as errors. */
function load(url: string, c: Case['request'], seconds: number, status: number): Load {
  const args = [
    path.join(root, 'node_modules/autocannon/autocannon.js'),
    '--json',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(seconds),
    '-m',
    c.method,
  ];
  for (const [k, v] of Object.entries(c.headers)) args.push('-H', `${k}=${v}`);
  if (c.body !== undefined) args.push('-b', c.body);
  args.push(url + c.path);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`autocannon failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout);
  const byStatus = (j.statusCodeStats ?? {}) as Record<string, { count: number }>;
  const total = Object.values(byStatus).reduce((n, s) => n + s.count, 0);
  const wrong = total - (byStatus[String(status)]?.count ?? 0);
  return {
    rps: Math.round(j.requests.average),
    p50: j.latency.p50,
    p99: j.latency.p99,
    errors: wrong + j.errors + j.timeouts,
    total,
  };
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

async function call(url: string, c: Case['request']): Promise<{ status: number; text: string }> {
  // One retry: a kept-alive connection idle past the server's keep-alive timeout may be closed under us.
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await fetch(url + c.path, { method: c.method, headers: c.headers, body: c.body });
      return { status: r.status, text: await r.text() };
    } catch (err) {
      if (attempt > 0) throw err;
    }
  }
}

// ---------------------------------------------------------------------------------------------------

const SUM = 'return { sum: input.a + input.b };';
const UNLIMITED = 'HTTP API script endpoint, agent without limits';
const JSON_HEADERS = { 'content-type': 'application/json' };

/** Agents, keys, endpoints, a document, a tool and a webhook for the cases; returns the cases. */
async function setUp(
  url: string,
  modelHold: () => void,
  embedded: boolean,
): Promise<{ cases: Case[]; holdSlot: () => Promise<void> }> {
  const agent = async (name: string, limits?: { dailyCreditLimit?: number; maxConcurrentRequests?: number }) => {
    const id = (
      await graphql(url, 'mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', { i: { name } })
    ).createAgent.id as string;
    const key = (
      await graphql(url, 'mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "bench") { key } }', { a: id })
    ).createAgentApiKey.key as string;
    await graphql(url, 'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: id,
      i: { path: 'sum', handler: { script: SUM } },
    });
    if (limits)
      await graphql(
        url,
        'mutation($a: ID!, $d: Float, $c: Int) { setAgentLimits(agentId: $a, dailyCreditLimit: $d, maxConcurrentRequests: $c) { id } }',
        { a: id, d: limits.dailyCreditLimit, c: limits.maxConcurrentRequests },
      );
    return { id, key };
  };
  const sumRequest = (a: { id: string; key: string }): Case['request'] => ({
    method: 'POST',
    path: `/agents/${a.id}/api/sum`,
    headers: { ...JSON_HEADERS, 'x-agent-access-key': a.key },
    body: JSON.stringify({ a: 2, b: 40 }),
  });

  const free = await agent('no limits');
  const concurrent = await agent('concurrency limit 100', { maxConcurrentRequests: 100 });
  const credited = await agent('daily credit limit not reached', { dailyCreditLimit: 1e9 });
  const spent = await agent('daily credit limit used up', { dailyCreditLimit: 0 });
  const full = await agent('concurrency limit full', { maxConcurrentRequests: 1 });
  await graphql(url, 'mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
    a: full.id,
    i: { path: 'hold', handler: { prompt: 'Hold the slot.' } },
  });

  // Document API: a database document with 1,000 records, exposed for reading.
  const doc = (
    await graphql(url, 'mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
      a: free.id,
      i: {
        name: 'Leads',
        kind: 'DATABASE',
        fields: [
          { name: 'email', type: 'STRING', required: true },
          { name: 'score', type: 'NUMBER' },
        ],
      },
    })
  ).createDocument.id as string;
  await graphql(
    url,
    'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } }',
    { a: free.id, d: doc },
  );
  for (let i = 0; i < 1000; i += 500) {
    const items = Array.from({ length: 500 }, (_, j) => ({ email: `lead${i + j}@example.com`, score: (i + j) % 100 }));
    const r = await call(url, {
      method: 'POST',
      path: `/agents/${free.id}/documents/${doc}/data/insert`,
      headers: { ...JSON_HEADERS, 'x-agent-access-key': free.key },
      body: JSON.stringify({ items }),
    });
    if (r.status !== 200) throw new Error(`insert: ${r.status} ${r.text}`);
  }

  // MCP: a script tool, called statelessly (protocol 2025-11-25 after initialize is not needed for tools/call).
  await graphql(url, 'mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
    a: free.id,
    i: {
      name: 'add',
      description: 'Adds two numbers',
      handler: { script: SUM },
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
  });
  // Webhooks: an integration without a signature check.
  await graphql(url, 'mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
    a: free.id,
    i: { integration: 'bench', handler: { script: 'return { ok: true };' } },
  });

  const holdSlot = async () => {
    // The prompt run waits on the model and keeps the agent's one slot until the bench ends.
    // The hold must be admitted before any probe is: a probe admitted first would take the one
    // slot and refuse the hold. A refused or ended hold is sent again.
    let ended: string | null = 'not started';
    const hold = () => {
      ended = null;
      void fetch(`${url}/agents/${full.id}/api/hold`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'x-agent-access-key': full.key },
        body: '{}',
      })
        .then(async (r) => (ended = `${r.status} ${(await r.text()).slice(0, 300)}`))
        .catch((err: Error) => (ended = err.message));
    };
    const probe = sumRequest(full);
    let last = '';
    for (let i = 0; i < 50; i++) {
      if (ended !== null) {
        modelHold();
        hold();
      }
      await new Promise((r) => setTimeout(r, 300));
      const r = await call(url, probe);
      if (r.status === 429) return;
      last = `${r.status} ${r.text.slice(0, 300)}`;
    }
    throw new Error(
      `the held prompt run did not fill the concurrency limit (held run: ${ended ?? 'still waiting'}; last probe: ${last})`,
    );
  };

  const cases: Case[] = [
    // (The baseline ratio of the unlimited case is the PostgreSQL target; on the embedded database
    // the limited cases are judged against the unlimited one only.)
    { name: UNLIMITED, status: 200, request: sumRequest(free), target: embedded ? undefined : { ratio: 0.3 } },
    {
      name: 'HTTP API script endpoint, concurrency limit 100',
      status: 200,
      request: sumRequest(concurrent),
      target: { ofUnlimited: 0.8 },
    },
    {
      name: 'HTTP API script endpoint, daily credit limit not reached',
      status: 200,
      request: sumRequest(credited),
      target: { ofUnlimited: 0.8 },
    },
    {
      name: 'refusal: daily credit limit used up (429)',
      status: 429,
      request: sumRequest(spent),
      target: { ratio: 1 },
    },
    { name: 'refusal: concurrency limit full (429)', status: 429, request: sumRequest(full), target: { ratio: 1 } },
    {
      name: 'Document API query (1,000 records, filter + sort, 20 per page)',
      status: 200,
      request: {
        method: 'POST',
        path: `/agents/${free.id}/documents/${doc}/data/query`,
        headers: { ...JSON_HEADERS, 'x-agent-access-key': free.key },
        body: JSON.stringify({
          filter: { score: { gte: 50 } },
          sort: { field: 'score', direction: 'desc' },
          limit: 20,
        }),
      },
    },
    {
      name: 'MCP tools/call of a script tool',
      status: 200,
      request: {
        method: 'POST',
        path: `/agents/${free.id}/mcp`,
        headers: {
          ...JSON_HEADERS,
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'x-agent-access-key': free.key,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'add', arguments: { a: 2, b: 40 } },
        }),
      },
    },
    {
      name: 'webhook accept (stored, run later)',
      status: 200,
      request: {
        method: 'POST',
        path: `/agents/${free.id}/webhook/bench`,
        headers: JSON_HEADERS,
        body: JSON.stringify({ event: 'ping' }),
      },
    },
  ];
  return { cases, holdSlot };
}

// ---------------------------------------------------------------------------------------------------

async function postgresUrl(): Promise<string | null> {
  const wanted = process.env.BENCH_DATABASE_URL || DEFAULT_PG;
  const target = new URL(wanted);
  const admin = new URL(wanted);
  admin.pathname = '/postgres';
  const db = await openDatabase({ databaseUrl: admin.toString() });
  try {
    await db.raw('select 1');
    const name = target.pathname.slice(1);
    await db.raw(`drop database if exists "${name.replace(/"/g, '""')}" with (force)`);
    await db.raw(`create database "${name.replace(/"/g, '""')}"`);
    return wanted;
  } catch (err) {
    if (process.env.BENCH_DATABASE_URL) throw err;
    console.log(`No PostgreSQL at ${DEFAULT_PG} (${(err as Error).message}); measuring the embedded database only.`);
    return null;
  } finally {
    await closeDatabase(db);
  }
}

async function measure(database: 'PostgreSQL' | 'embedded', databaseUrl: string | undefined): Promise<Result[]> {
  const model = await startOpenAiServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-bench-'));
  // Plain `node`, no loader: the baseline is compiled-free JavaScript over the built `dist/`.
  const baseline = await child(['bench/baseline-server.mjs'], { BENCH_DATABASE_URL: databaseUrl ?? '' });
  const serviceArgs = (process.env.BENCH_SERVICE_ARGS ?? '').split(' ').filter(Boolean);
  const service = await child([...serviceArgs, ...PRODUCTION_ARGS], {
    PORT: '0',
    DATABASE_URL: databaseUrl ?? '',
    DATA_DIR: path.join(dataDir, 'data'),
    ADMIN_TOKEN: ADMIN,
    SECRETS_KEY,
    LOG_LEVEL: 'warn',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'bench',
  });
  const results: Result[] = [];
  try {
    const idleRss = rssMb(service.proc.pid!);
    const { cases: all, holdSlot } = await setUp(
      service.url,
      () => model.enqueue({ delayMs: 3_600_000 }),
      database === 'embedded',
    );
    const only = (process.env.BENCH_CASES ?? '').split(',').filter(Boolean);
    const cases = all.filter((c) => only.length === 0 || only.some((o) => c.name.includes(o)));
    if (cases.some((c) => c.name.includes('concurrency limit full'))) await holdSlot();

    const baseRequest: Case['request'] = {
      method: 'POST',
      path: '/insert',
      headers: JSON_HEADERS,
      body: JSON.stringify({ a: 2, b: 40 }),
    };
    load(baseline.url, baseRequest, WARMUP, 200);
    const base = load(baseline.url, baseRequest, DURATION, 200);
    results.push({
      name: `baseline: bare Koa route, one INSERT (${database})`,
      ...base,
      rssMb: rssMb(baseline.proc.pid!),
      ratio: null,
      ofUnlimited: null,
      verdict: '',
    });

    // Memory is compared from the end of the first warm-up (the sandbox's workers and the pools
    // have started by then: a one-time step, not growth) to the end of the last case.
    let served = 0;
    let rssBefore = 0;
    let unlimitedRps = 0;
    for (const c of cases) {
      const first = await call(service.url, c.request);
      if (first.status !== c.status)
        throw new Error(`${c.name}: answered ${first.status} (${first.text.slice(0, 300)}), expected ${c.status}`);
      const warm = load(service.url, c.request, WARMUP, c.status).total;
      if (rssBefore === 0) rssBefore = rssMb(service.proc.pid!);
      else served += warm;
      const cpuBefore = { service: cpuUsOf(service.proc.pid!), database: databaseCpuUs() };
      const r = load(service.url, c.request, DURATION, c.status);
      const perRequest = (used: number) => Math.round(used / Math.max(1, r.total));
      const cpuUs = {
        service: perRequest(cpuUsOf(service.proc.pid!) - cpuBefore.service),
        database: database === 'PostgreSQL' ? perRequest(databaseCpuUs() - cpuBefore.database) : null,
      };
      served += r.total;
      const ratio = r.rps / base.rps;
      if (c.name === UNLIMITED) unlimitedRps = r.rps;
      const ofUnlimited = c.target?.ofUnlimited !== undefined && unlimitedRps ? r.rps / unlimitedRps : null;
      const t = c.target;
      const met =
        (t?.ratio === undefined || ratio >= t.ratio) &&
        (t?.ofUnlimited === undefined || (ofUnlimited ?? 0) >= t.ofUnlimited) &&
        (t?.p99 === undefined || r.p99 <= t.p99);
      const verdict = !t ? '' : met ? 'PASS' : 'FAIL';
      const goals = [
        t?.ratio !== undefined ? `≥ ${Math.round(t.ratio * 100)} % of baseline` : '',
        t?.ofUnlimited !== undefined ? `≥ ${Math.round(t.ofUnlimited * 100)} % of unlimited` : '',
        t?.p99 !== undefined ? `p99 ≤ ${t.p99} ms` : '',
      ].filter(Boolean);
      const goal = goals.length ? ` (target ${goals.join(', ')})` : '';
      results.push({
        name: c.name + goal,
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        errors: r.errors,
        rssMb: rssMb(service.proc.pid!),
        cpuUs,
        ratio,
        ofUnlimited,
        verdict,
      });
    }
    const rssAfter = rssMb(service.proc.pid!);
    const drift = (rssAfter - rssBefore) / rssBefore;
    const idleMax = database === 'PostgreSQL' ? 150 : 300;
    results.push({
      name: `service RSS: idle ${idleRss} MB (target ≤ ${idleMax} MB); ${rssBefore} MB after the first warm-up → ${rssAfter} MB ${served.toLocaleString('en')} requests later (target ±10 %)`,
      rps: 0,
      p50: 0,
      p99: 0,
      errors: 0,
      rssMb: rssAfter,
      ratio: null,
      ofUnlimited: null,
      verdict: idleRss <= idleMax && Math.abs(drift) <= 0.1 && served >= 100_000 ? 'PASS' : 'FAIL',
    });
  } finally {
    await stopChild(service.proc);
    await stopChild(baseline.proc);
    await model.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

function table(database: string, results: Result[]): string {
  const head =
    '| case | req/s | p50 ms | p99 ms | errors | RSS MB | CPU µs/req service | CPU µs/req database | of baseline | of unlimited | target |\n|---|---|---|---|---|---|---|---|---|---|---|';
  const pct = (x: number | null) => (x === null ? '' : `${Math.round(x * 100)} %`);
  const rows = results.map((r) =>
    r.rps === 0 && r.ratio === null
      ? `| ${r.name} | | | | | ${r.rssMb} | | | | | ${r.verdict} |`
      : `| ${r.name} | ${r.rps.toLocaleString('en')} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.rssMb} | ${r.cpuUs?.service ?? ''} | ${r.cpuUs?.database ?? ''} | ${pct(r.ratio)} | ${pct(r.ofUnlimited)} | ${r.verdict} |`,
  );
  return `### ${database}\n\n${head}\n${rows.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------

if (!fs.existsSync(path.join(root, 'dist/src/main.js')) || process.env.BENCH_BUILD !== '0') {
  const b = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('npm run build failed');
}
const wanted = (process.env.BENCH_DATABASES ?? 'postgresql,embedded').split(',');
const sections: string[] = [];
let failed = false;
const runOn = async (database: 'PostgreSQL' | 'embedded', url: string | undefined) => {
  const results = await measure(database, url);
  const t = table(database, results);
  console.log(`\n${t}`);
  sections.push(t);
  failed ||= results.some((r) => r.verdict === 'FAIL');
};
if (wanted.includes('postgresql')) {
  const url = await postgresUrl();
  if (url) await runOn('PostgreSQL', url);
}
if (wanted.includes('embedded')) await runOn('embedded', undefined);

const date = new Date().toISOString().slice(0, 10);
const header = `## Surfaces, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC\n\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s measured per case, load from a separate autocannon process; service: \`node ${PRODUCTION_ARGS.join(' ')}\` (npm run start:prod); baseline: \`node bench/baseline-server.mjs\` (plain node, no loader, the built dist/src/infra/db.js); commit ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim()}.\n\n`;
fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
const file = path.join(root, 'bench/results', `${date}.md`);
fs.appendFileSync(file, `${header}${sections.join('\n')}\n`);
console.log(`written to ${path.relative(root, file)}`);
process.exit(failed ? 1 : 0);
