// Runs the MCP conformance suite (@modelcontextprotocol/conformance, server scenarios) and the MCP
// Inspector CLI against the MCP server surface of a real agent.
//
//   npx tsx scripts/mcp-conformance.ts [--all] [--out DIR]
//
// Starts the service in this process on the embedded database in a temporary data directory (the
// composition root `npm start` uses), with a local OpenAI-compatible fake model; creates an agent
// whose MCP tools are the ones the scenarios call by name, and a key. The conformance CLI cannot send
// headers (its client is built with the URL alone), so it talks to a small local proxy that adds
// the credential to every request; the Inspector CLI sends the key itself (`--header`).
//
// The applicable scenarios run twice: first with the agent key (X-Agent-Access-Key), then with an
// OAuth access token (Authorization: Bearer) that a member's sign-in and consent over plain HTTP
// gave a dynamically registered client (test/helpers/oauth-flow.ts), through the proxy — the
// origin the client sees, as behind a reverse proxy that keeps Host.
//
// Only the scenarios that apply to a stateless server with user-defined tools and documents are run
// and decide the exit code (see APPLICABLE and NOT_APPLICABLE). `--all` also runs the others, for
// information only. `--out DIR` keeps the conformance results (checks.json per scenario) in DIR.
// Exits 1 when an applicable scenario (in either pass) or an Inspector call fails.
//
// The suite's `auth/*` scenarios are client conformance: each starts a mock authorization server
// and a mock MCP server and runs a client command against them, so they have no place here (see
// docs/testing.md).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { obtainAccessToken } from '../test/helpers/oauth-flow.js';
import { startOpenAiServer, type FakeOpenAi } from '../test/helpers/openai-server.js';
import { startSurfaceService, type InProcessService } from '../test/helpers/surface-service.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFORMANCE_CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const INSPECTOR_CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');
const NODE20_HOOKS = path.join(ROOT, 'scripts/conformance-node20-hooks.mjs');
const ADMIN_TOKEN = 'mcp-conformance-admin-token-0123456789';
/** A child process that has not ended after this long is stopped and counted as a failure. */
const CHILD_TIMEOUT_MS = 120_000;

interface ScenarioPlan {
  name: string;
  why: string;
}

/** Server scenarios of conformance 0.1.16 that apply to this server, and what makes them apply. */
const APPLICABLE: ScenarioPlan[] = [
  { name: 'server-initialize', why: 'initialize handshake (2025-11-25 era)' },
  { name: 'ping', why: 'ping is answered by every MCP server' },
  { name: 'tools-list', why: "the agent's MCP tool entries" },
  { name: 'tools-call-simple-text', why: 'script tool test_simple_text returns the expected text' },
  { name: 'tools-call-error', why: 'script tool test_error_handling throws: a tool result with isError' },
  {
    name: 'tools-call-with-progress',
    why: 'prompt tool test_tool_with_progress: progress notifications while the model streams',
  },
  {
    name: 'json-schema-2020-12',
    why: 'tool json_schema_2020_12_tool keeps $schema, $defs and additionalProperties (pending suite)',
  },
  { name: 'resources-list', why: 'an exposed document is listed with its uri and name' },
  {
    name: 'dns-rebinding-protection',
    why: "foreign Origin refused (403); the proxy's localhost origin is one of the agent's CORS origins",
  },
];

/** The other server scenarios, and why they do not apply. */
const NOT_APPLICABLE: ScenarioPlan[] = [
  { name: 'logging-set-level', why: 'no logging capability' },
  {
    name: 'completion-complete',
    why: 'no completions: resource URIs are listed, not completed, and there are no prompts',
  },
  ...['tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content'].map(
    (name) => ({
      name,
      why: 'a tool result is text (plus structuredContent); a handler cannot return image, audio or resource content',
    }),
  ),
  { name: 'tools-call-with-logging', why: 'no logging capability: a handler cannot send log notifications' },
  ...['tools-call-sampling', 'tools-call-elicitation', 'elicitation-sep1034-defaults', 'elicitation-sep1330-enums'].map(
    (name) => ({
      name,
      why: 'needs a server-to-client request (sampling or elicitation), which a stateless tools-only server never sends',
    }),
  ),
  {
    name: 'server-sse-polling',
    why: 'needs a session and a resumable stream (Last-Event-ID, GET); the server is stateless without an event store',
  },
  { name: 'server-sse-multiple-streams', why: 'needs a session id; the server is stateless' },
  ...['resources-read-text', 'resources-read-binary', 'resources-templates-read'].map((name) => ({
    name,
    why: 'reads fixed test:// URIs; the resources are documents at document://{id} (read in test/e2e/mcp-resources.test.ts)',
  })),
  ...['resources-subscribe', 'resources-unsubscribe'].map((name) => ({
    name,
    why: 'no subscriptions: a stateless server has no stream to send updates on',
  })),
  ...[
    'prompts-list',
    'prompts-get-simple',
    'prompts-get-with-args',
    'prompts-get-embedded-resource',
    'prompts-get-with-image',
  ].map((name) => ({
    name,
    why: 'no prompts',
  })),
];

const NO_ARGUMENTS = { type: 'object', properties: {} };
const ADD_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};
const SUM_SCHEMA = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };

/** The agent's MCP tools: the names and behaviour the scenarios expect, and one for the Inspector. */
const TOOLS: Record<string, unknown>[] = [
  {
    name: 'test_simple_text',
    description: 'Returns a simple text response',
    handler: { script: "return 'This is a simple text response for testing.';" },
    inputSchema: NO_ARGUMENTS,
  },
  {
    name: 'test_error_handling',
    description: 'Always fails',
    handler: { script: "throw new Error('This tool intentionally returns an error for testing');" },
    inputSchema: NO_ARGUMENTS,
  },
  {
    name: 'test_tool_with_progress',
    description: 'Answers from the model, reporting progress while it writes',
    handler: { prompt: 'Report on the progress of the task.' },
    inputSchema: NO_ARGUMENTS,
  },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    handler: { script: 'return input;' },
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
  {
    name: 'add_numbers',
    description: 'Adds two numbers',
    handler: { script: 'return { sum: input.a + input.b };' },
    inputSchema: ADD_SCHEMA,
    outputSchema: SUM_SCHEMA,
  },
];

// ---------------------------------------------------------------------------------------------
// Child processes

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node args…` to its end (stopped after CHILD_TIMEOUT_MS), collecting its output. */
function runNode(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGTERM'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `--import` argument that registers the Node 20 hooks, when this Node lacks fs.globSync. */
function node20Import(): string[] {
  if (typeof (fs as { globSync?: unknown }).globSync === 'function') return [];
  const source = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(NODE20_HOOKS).href)});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(source)}`];
}

// ---------------------------------------------------------------------------------------------
// The credential proxy

interface CredentialProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A local HTTP proxy to `target` that adds the credential headers of the pass (`credential()`: the
 * agent is created after the proxy, whose origin it must allow; none while the OAuth token is
 * obtained) to every request, streaming both bodies as they come (event streams included). Host
 * and Origin pass through unchanged, so the service sees what the client sent.
 */
async function startCredentialProxy(
  target: string,
  credential: () => Record<string, string>,
): Promise<CredentialProxy> {
  const agent = new http.Agent({ keepAlive: false });
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: { ...req.headers, ...credential() }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `proxy: ${err.message}` }));
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Set-up through GraphQL

function graphql(baseUrl: string) {
  return async (query: string, variables: Record<string, unknown> = {}): Promise<any> => {
    const res = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
}

/** Creates the agent with its tools and a key; `browserOrigin` may call it from a browser. */
async function createAgent(baseUrl: string, browserOrigin: string): Promise<{ agentId: string; key: string }> {
  const gql = graphql(baseUrl);
  const created = await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
    i: {
      name: 'Conformance',
      description: 'Agent whose MCP tools the conformance scenarios call.',
      defaultModel: 'fake-model',
    },
  });
  const agentId = created.createAgent.id as string;
  const key = (
    await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "conformance") { key } }', { a: agentId })
  ).createAgentApiKey.key as string;
  for (const tool of TOOLS)
    await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: tool,
    });
  // One document exposed on the MCP server, so that resources/list has something to list.
  const doc = (
    await gql(
      'mutation($a: ID!) { createDocument(agentId: $a, input: { name: "Handbook", content: "Be kind." }) { id } }',
      { a: agentId },
    )
  ).createDocument.id as string;
  await gql(
    'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: false, mcp: true) { id } }',
    { a: agentId, d: doc },
  );
  await gql(
    'mutation($a: ID!, $o: [String!]) { setCors(agentId: $a, allowPlatformApps: true, customOrigins: $o) { id } }',
    { a: agentId, o: [browserOrigin] },
  );
  return { agentId, key };
}

// ---------------------------------------------------------------------------------------------
// Conformance scenarios

interface Check {
  id: string;
  name: string;
  status: string;
  errorMessage?: string;
  details?: { message?: string };
}

interface ScenarioResult {
  name: string;
  passed: boolean;
  checks: Check[];
  /** The CLI output when it wrote no results (it failed before or while running the scenario). */
  output?: string;
}

function readChecks(dir: string): Check[] {
  if (!fs.existsSync(dir)) return [];
  const found = fs
    .readdirSync(dir)
    .map((d) => path.join(dir, d, 'checks.json'))
    .filter((f) => fs.existsSync(f));
  return found.flatMap((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as Check[]);
}

/** `conformance server --url <url> --scenario <name> -o <dir>`: passes when the CLI exits 0. */
async function runScenario(name: string, url: string, outDir: string): Promise<ScenarioResult> {
  const dir = path.join(outDir, name);
  const run = await runNode([
    ...node20Import(),
    CONFORMANCE_CLI,
    'server',
    '--url',
    url,
    '--scenario',
    name,
    '-o',
    dir,
  ]);
  const checks = readChecks(dir);
  return {
    name,
    passed: run.code === 0,
    checks,
    ...(checks.length ? {} : { output: (run.stdout + run.stderr).trim() }),
  };
}

/** The runner's own remedy for a scenario that needs a prompt tool: the model answer it streams. */
function prepareScenario(name: string, fake: FakeOpenAi): void {
  // Six words, one chunk each, farther apart than the server's progress interval (250 ms): one
  // progress notification per chunk, increasing.
  if (name === 'tools-call-with-progress')
    fake.enqueue({ text: 'Started, then halfway, then finished: done.', chunkDelayMs: 300 });
}

// ---------------------------------------------------------------------------------------------
// Inspector CLI

interface InspectorCall {
  args: string[];
  /** What the output must show for the call to count as passed. */
  expect(output: any): boolean;
}

interface InspectorResult {
  commandLine: string;
  passed: boolean;
  output: string;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * `mcp-inspector-cli --cli <url> --transport http --header "X-Agent-Access-Key: …" --method …`.
 * It runs from its own build directory: it reads its package.json as `../package.json` of the
 * working directory.
 */
async function runInspector(url: string, key: string, call: InspectorCall): Promise<InspectorResult> {
  const args = ['--cli', url, '--transport', 'http', '--header', `X-Agent-Access-Key: ${key}`, ...call.args];
  const run = await runNode([INSPECTOR_CLI, ...args], { cwd: path.dirname(INSPECTOR_CLI) });
  const commandLine = ['mcp-inspector-cli', ...args].map(shellQuote).join(' ').replace(key, 'ak_…');
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.stdout);
  } catch {
    parsed = undefined;
  }
  const passed = run.code === 0 && parsed !== undefined && call.expect(parsed);
  // One line of JSON: the tool list is long when pretty-printed.
  const output = parsed === undefined ? run.stdout.trim() || run.stderr.trim() : JSON.stringify(parsed);
  return { commandLine, passed, output: output.replace(key, 'ak_…') };
}

const INSPECTOR_CALLS: InspectorCall[] = [
  {
    args: ['--method', 'tools/list'],
    expect: (out) => TOOLS.every((t) => out.tools?.some((l: { name: string }) => l.name === t.name)),
  },
  {
    args: ['--method', 'tools/call', '--tool-name', 'add_numbers', '--tool-arg', 'a=2', '--tool-arg', 'b=40'],
    expect: (out) => out.isError !== true && out.structuredContent?.sum === 42,
  },
];

// ---------------------------------------------------------------------------------------------
// Report

function describeFailure(result: ScenarioResult): string[] {
  const failed = result.checks.filter((c) => c.status === 'FAILURE');
  if (failed.length) return failed.map((c) => `${c.name}: ${c.errorMessage ?? 'failed'}`);
  return [result.output?.split('\n').slice(-5).join(' | ') || 'the CLI exited non-zero without a result'];
}

function printScenario(result: ScenarioResult, why: string): void {
  const counted = result.checks.filter((c) => c.status === 'SUCCESS' || c.status === 'FAILURE');
  const ok = counted.filter((c) => c.status === 'SUCCESS').length;
  const warnings = result.checks.filter((c) => c.status === 'WARNING');
  console.log(
    `  ${result.passed ? 'PASS' : 'FAIL'}  ${result.name.padEnd(30)} ${ok}/${counted.length} checks  (${why})`,
  );
  for (const w of warnings) console.log(`        warning: ${w.name}: ${w.errorMessage ?? w.details?.message ?? ''}`);
  if (!result.passed) for (const line of describeFailure(result)) console.log(`        ${line}`);
}

function indent(text: string, maxChars = 1500): string {
  const shown =
    text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)` : text;
  return shown
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------

function parseArgs(argv: string[]): { all: boolean; out?: string } {
  const outAt = argv.indexOf('--out');
  return {
    all: argv.includes('--all'),
    ...(outAt >= 0 && argv[outAt + 1] ? { out: path.resolve(argv[outAt + 1]!) } : {}),
  };
}

/** One run of the applicable scenarios with one credential; returns the results in plan order. */
async function runPass(url: string, outDir: string, fake: FakeOpenAi): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const plan of APPLICABLE) {
    prepareScenario(plan.name, fake);
    const result = await runScenario(plan.name, url, outDir);
    results.push(result);
    printScenario(result, plan.why);
  }
  return results;
}

function summaryLine(label: string, results: ScenarioResult[]): string {
  const passed = results.filter((r) => r.passed).map((r) => r.name);
  const failed = results.filter((r) => !r.passed).map((r) => r.name);
  return `  ${label}: ${passed.length}/${results.length} passed${passed.length ? ` (${passed.join(', ')})` : ''}${failed.length ? `; FAILED: ${failed.join(', ')}` : ''}`;
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aes-mcp-conformance-'));
  const outDir = opts.out ?? path.join(tmp, 'results');
  let fake: FakeOpenAi | undefined;
  let svc: InProcessService | undefined;
  let proxy: CredentialProxy | undefined;
  try {
    fake = await startOpenAiServer();
    svc = await startSurfaceService({
      dataDir: path.join(tmp, 'data'),
      adminToken: ADMIN_TOKEN,
      modelUrl: fake.url,
      platformOrigin: 'https://app.example.test',
      database: {},
    });
    let credential: Record<string, string> = {};
    proxy = await startCredentialProxy(svc.url, () => credential);
    const created = await createAgent(svc.url, proxy.url);
    const key = created.key;
    credential = { 'x-agent-access-key': key };
    const mcpPath = `/agents/${created.agentId}/mcp`;
    const proxiedUrl = `${proxy.url}${mcpPath}`;

    console.log(`MCP conformance: @modelcontextprotocol/conformance server scenarios against ${proxiedUrl}`);
    console.log(
      `  (a local proxy in front of ${svc.url}${mcpPath} adds the credential: the conformance CLI cannot send headers)\n`,
    );
    console.log('Pass 1, agent key: the proxy adds X-Agent-Access-Key');
    const keyResults = await runPass(proxiedUrl, outDir, fake);
    if (opts.all) {
      console.log('\n  Not applicable, run for information only (not counted):');
      for (const plan of NOT_APPLICABLE) printScenario(await runScenario(plan.name, proxiedUrl, outDir), plan.why);
    } else {
      console.log('\n  Not applicable (not run; --all runs them for information):');
      for (const plan of NOT_APPLICABLE) console.log(`  skip  ${plan.name.padEnd(30)} ${plan.why}`);
    }

    // The token is obtained through the proxy (no credential added), so that its resource is the
    // MCP URL the conformance client calls.
    credential = {};
    const oauth = await obtainAccessToken(proxy.url, created.agentId, ADMIN_TOKEN);
    credential = { authorization: `Bearer ${oauth.accessToken}` };
    console.log(
      `\nPass 2, OAuth access token: the proxy adds Authorization: Bearer <token of client ${oauth.clientId}, approved by the admin member>`,
    );
    const oauthResults = await runPass(proxiedUrl, path.join(outDir, 'oauth'), fake);

    let failures = [...keyResults, ...oauthResults].filter((r) => !r.passed).length;
    console.log(`\nMCP Inspector CLI against ${svc.url}${mcpPath} (key sent with --header):`);
    let inspectorPassed = 0;
    for (const call of INSPECTOR_CALLS) {
      const result = await runInspector(`${svc.url}${mcpPath}`, key, call);
      if (result.passed) inspectorPassed++;
      else failures++;
      console.log(`  ${result.passed ? 'PASS' : 'FAIL'}  $ ${result.commandLine}`);
      console.log(indent(result.output));
    }
    if (opts.out)
      console.log(`\nConformance results kept in ${opts.out} (the OAuth pass in ${path.join(opts.out, 'oauth')})`);
    console.log('\nSummary:');
    console.log(summaryLine('agent key (X-Agent-Access-Key)', keyResults));
    console.log(summaryLine('OAuth access token (Authorization: Bearer)', oauthResults));
    console.log(`  Inspector CLI calls: ${inspectorPassed}/${INSPECTOR_CALLS.length} passed`);
    console.log(
      failures
        ? `\n${failures} failure(s).`
        : '\nAll applicable scenarios (with either credential) and Inspector calls passed.',
    );
    return failures ? 1 : 0;
  } finally {
    await proxy?.close();
    await svc?.stop();
    await fake?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main().catch((err: unknown) => {
  console.error(err);
  return 1;
});
