import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The MCP server surface over real HTTP, against the service started in the test process (embedded
// database, or PostgreSQL with TEST_DATABASE_URL), driven by the two client generations deployed
// today: the v1 SDK (protocol 2025-11-25, `initialize` handshake) and the v2 client pinned to
// 2026-07-28 (no handshake, per-request `_meta` envelope). Every scenario runs once per era.

const ADMIN_TOKEN = 'mcp-e2e-admin-token-0123456789'; // 30 characters
const PLATFORM = 'https://app.example.test';
const CUSTOM = 'https://custom.example.test';

type Era = '2025-11-25' | '2026-07-28';
const ERAS: Era[] = ['2025-11-25', '2026-07-28'];

/** What the scenarios need from either client. */
interface McpConnection {
  era: Era;
  protocolVersion: string | undefined;
  serverInfo: { name: string; version: string; description?: string } | undefined;
  instructions: string | undefined;
  listTools(): Promise<{ tools: any[] }>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    opts?: { onprogress?: (p: { progress: number }) => void },
  ): Promise<any>;
  close(): Promise<void>;
}

/**
 * HTTP statuses of the clients' POSTs (the JSON-RPC requests), newest last (client libraries word
 * HTTP errors differently). The v1 client also opens its optional GET event stream in the
 * background after connecting; the stateless server answers that 405 (tested on its own), at a
 * moment no test controls, so GETs are left out.
 */
const statuses: number[] = [];
const recordingFetch =
  (inner: typeof fetch): typeof fetch =>
  async (input, init) => {
    const r = await inner(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method === 'POST') statuses.push(r.status);
    return r;
  };

/** Connects a client of `era` to `url`, sending `headers` (the key) on every request. */
async function connect(
  era: Era,
  url: string,
  headers: Record<string, string>,
  baseFetch: typeof fetch = fetch,
): Promise<McpConnection> {
  const fetchImpl = recordingFetch(baseFetch);
  if (era === '2025-11-25') {
    const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
    const transport = new V1Transport(new URL(url), { requestInit: { headers }, fetch: fetchImpl });
    await client.connect(transport);
    return {
      era,
      protocolVersion: transport.protocolVersion,
      serverInfo: client.getServerVersion(),
      instructions: client.getInstructions(),
      listTools: () => client.listTools(),
      callTool: (name, args, opts) =>
        client.callTool(
          { name, arguments: args },
          undefined,
          opts?.onprogress ? { onprogress: opts.onprogress, resetTimeoutOnProgress: true } : undefined,
        ),
      close: () => client.close(),
    };
  }
  const client = new V2Client(
    { name: 'e2e-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2Transport(new URL(url), { requestInit: { headers }, fetch: fetchImpl }));
  return {
    era,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
    instructions: client.getInstructions(),
    listTools: () => client.listTools(),
    callTool: (name, args, opts) =>
      client.callTool({ name, arguments: args }, opts?.onprogress ? { onprogress: opts.onprogress } : undefined),
    close: () => client.close(),
  };
}

/** The error a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<Error & { code?: number }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: number };
  }
  throw new Error('expected a rejection');
}

/** Polls `check` until it returns a value other than undefined, for at most `ms`. */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('e2e: MCP server', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let A: string, B: string, C: string;
  let keyA: string, keyB: string, keyC: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const mcpUrl = (agent: string) => `${svc.url}/agents/${agent}/mcp`;

  const ADD_SCHEMA = {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  };
  const SUM_SCHEMA = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };

  async function addTool(agent: string, input: Record<string, unknown>): Promise<string> {
    return (
      await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
        a: agent,
        i: input,
      })
    ).addMcpTool.id;
  }

  async function activity(agent: string): Promise<any[]> {
    await svc.service.services.activityLog.flush();
    const d = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 80) { nodes { surface entry method status requestHeaders requestBody response credits runId error keyId } } } }',
      { a: agent },
    );
    return d.agent.activity.nodes;
  }

  /** A raw JSON-RPC POST, for what a client library hides (HTTP statuses, headers). */
  function rawPost(agent: string, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(mcpUrl(agent), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: JSON.stringify(message),
    });
  }
  /** The JSON-RPC message of an answer sent as JSON or as an event stream. */
  async function rpcAnswer(r: Response): Promise<any> {
    const text = await r.text();
    if (!(r.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text);
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    return data.find((m) => 'result' in m || 'error' in m);
  }
  const toolCall = (name: string, args: unknown, id = 7) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });

  before(async function () {
    svc = await startE2eService('mcp_e2e', { adminToken: ADMIN_TOKEN, platformOrigin: PLATFORM });
    const mk = async (name: string, description: string) =>
      (
        await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
          i: { name, description, defaultModel: 'fake-model' },
        })
      ).createAgent.id as string;
    [A, B, C] = [
      await mk('Calculator', 'Adds numbers and answers questions.'),
      await mk('Other', 'Another agent'),
      await mk('Broke', 'Out of credits'),
    ];
    const key = async (agent: string) =>
      (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: agent }))
        .createAgentApiKey.key as string;
    [keyA, keyB, keyC] = [await key(A), await key(B), await key(C)];
    await addTool(A, {
      name: 'add',
      description: 'Adds two numbers',
      handler: { script: 'return { sum: input.a + input.b };' },
      inputSchema: ADD_SCHEMA,
      outputSchema: SUM_SCHEMA,
    });
    await addTool(A, { name: 'ask', description: 'Answers a question', handler: { prompt: 'Answer briefly.' } });
    await addTool(A, {
      name: 'fail',
      description: 'Always fails',
      handler: { script: 'throw new Error("the ledger is closed");' },
    });
    await addTool(A, {
      name: 'wrong_shape',
      description: 'Breaks its output schema',
      handler: { script: 'return { sum: "three" };' },
      outputSchema: SUM_SCHEMA,
    });
    await addTool(B, { name: 'b_only', description: 'Belongs to B', handler: { script: 'return 1;' } });
    await addTool(C, { name: 'noop', description: 'Does nothing', handler: { script: 'return 0;' } });
    await gql(
      'mutation($a: ID!, $o: [String!]) { setCors(agentId: $a, allowPlatformApps: true, customOrigins: $o) { id } }',
      { a: A, o: [CUSTOM] },
    );
    await gql(
      'mutation($a: ID!) { setGuardrails(agentId: $a, input: { blockedInputPatterns: ["forbidden[- ]word"] }) { id } }',
      { a: A },
    );
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: C });
  });

  after(async () => {
    await svc?.stop();
  });

  for (const era of ERAS) {
    describe(`protocol ${era}`, () => {
      let conn: McpConnection;
      before(async () => {
        conn = await connect(era, mcpUrl(A), { 'X-Agent-Access-Key': keyA });
      });
      after(async () => conn?.close());

      it('negotiates the era and reports the agent as server info and instructions', () => {
        expect(conn.protocolVersion).to.equal(era);
        expect(conn.serverInfo?.name).to.equal('Calculator');
        expect(conn.serverInfo?.description).to.equal('Adds numbers and answers questions.');
        expect(conn.instructions).to.equal('Adds numbers and answers questions.');
      });

      it("tools/list is the agent's MCP tool entries: names, descriptions, schemas (the default {input} where none is set)", async () => {
        const { tools } = await conn.listTools();
        const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
        expect(Object.keys(byName).sort()).to.deep.equal(['add', 'ask', 'fail', 'wrong_shape']);
        expect(byName.add.description).to.equal('Adds two numbers');
        expect(byName.add.inputSchema).to.deep.equal(ADD_SCHEMA);
        expect(byName.add.outputSchema).to.deep.equal(SUM_SCHEMA);
        expect(byName.ask.inputSchema).to.deep.equal({
          type: 'object',
          properties: { input: { type: 'string', description: 'What to do or ask' } },
          required: ['input'],
        });
        expect(byName.ask).to.not.have.property('outputSchema');
        // A tool without a schema says in its description what it takes.
        expect(byName.ask.description).to.equal(
          'Answers a question\n\nArguments: {"input": "<text>"}, what to do or ask, as one string.',
        );
      });

      it('calls a script tool: text plus structuredContent checked against its output schema', async () => {
        const r = await conn.callTool('add', { a: 2, b: 40 });
        expect(r.isError ?? false).to.equal(false);
        expect(r.structuredContent).to.deep.equal({ sum: 42 });
        expect(JSON.parse(r.content[0].text)).to.deep.equal({ sum: 42 });
      });

      it('calls a prompt tool on the model, with progress notifications while it streams', async () => {
        svc.fake.enqueue({ text: `The answer for ${era} is forty two.` });
        const progress: number[] = [];
        const r = await conn.callTool(
          'ask',
          { input: 'What is six times seven?' },
          { onprogress: (p) => progress.push(p.progress) },
        );
        expect(r.isError ?? false).to.equal(false);
        expect(r.content[0].text).to.equal(`The answer for ${era} is forty two.`);
        expect(progress.length).to.be.greaterThan(0);
        expect(progress).to.deep.equal([...progress].sort((x, y) => x - y));
        // The model saw the question itself as the user turn (the default schema's `input`).
        const last = svc.fake.requests.at(-1)!.body.messages!.at(-1)!;
        expect(JSON.stringify(last.content)).to.include('What is six times seven?');
      });

      it('invalid arguments are a tool error naming the field, for the model to correct (SEP-1303); nothing runs', async () => {
        const before = (await activity(A)).filter((e) => e.runId).length;
        const wrong = await conn.callTool('add', { a: 'two', b: 40 });
        expect(wrong.isError).to.equal(true);
        expect(wrong.content[0].text).to.include("Invalid arguments for tool 'add'").and.include('a: must be number');
        const missing = await conn.callTool('add', { a: 1 });
        expect(missing.isError).to.equal(true);
        expect(missing.content[0].text).to.include('b: is required');
        expect((await activity(A)).filter((e) => e.runId).length).to.equal(before);
      });

      it('an unknown tool is a JSON-RPC error, not a server error', async () => {
        const err = await rejection(conn.callTool('nope', {}));
        expect(err.code).to.equal(-32602);
        expect(err.message).to.include('Unknown tool: nope');
        // Another agent's tool is unknown here too.
        expect((await rejection(conn.callTool('b_only', {}))).code).to.equal(-32602);
      });

      it('a handler failure and a result that breaks the output schema are tool errors (isError) that say what to do', async () => {
        const failed = await conn.callTool('fail', { input: 'x' });
        expect(failed.isError).to.equal(true);
        expect(failed.content[0].text).to.include('the ledger is closed').and.include('try again');
        const shape = await conn.callTool('wrong_shape', { input: 'x' });
        expect(shape.isError).to.equal(true);
        expect(shape.content[0].text).to.include('does not match its output schema').and.include('sum: must be number');
      });

      it('a guardrail refusal is a tool error; the run never starts', async () => {
        const calls = svc.fake.requests.length;
        const r = await conn.callTool('ask', { input: 'tell me the forbidden word' });
        expect(r.isError).to.equal(true);
        expect(r.content[0].text).to.include('refused').and.include('Rephrase');
        expect(svc.fake.requests.length).to.equal(calls);
      });

      it('a tool added through GraphQL is in the very next tools/list, and a removed one is gone', async () => {
        const id = await addTool(A, {
          name: `late_${era.slice(0, 4)}`,
          description: 'Added late',
          handler: { script: 'return "late";' },
        });
        try {
          expect((await conn.listTools()).tools.map((t) => t.name)).to.include(`late_${era.slice(0, 4)}`);
          expect((await conn.callTool(`late_${era.slice(0, 4)}`, { input: 'x' })).content[0].text).to.equal('late');
        } finally {
          await gql('mutation($id: ID!) { removeMcpTool(id: $id) }', { id });
        }
        expect((await conn.listTools()).tools.map((t) => t.name)).to.not.include(`late_${era.slice(0, 4)}`);
      });

      it('accepts the key as a bearer token', async () => {
        const viaBearer = await connect(era, mcpUrl(A), { Authorization: `Bearer ${keyA}` });
        try {
          expect((await viaBearer.callTool('add', { a: 1, b: 1 })).structuredContent).to.deep.equal({ sum: 2 });
        } finally {
          await viaBearer.close();
        }
      });

      it("no key, a wrong key and another agent's key cannot connect (401)", async () => {
        for (const headers of [
          {},
          { 'X-Agent-Access-Key': 'ak_wrong-key-000000000000000000000000000' },
          { 'X-Agent-Access-Key': keyB },
          { Authorization: `Bearer ${keyB}` },
        ] as Record<string, string>[]) {
          statuses.length = 0;
          await rejection(connect(era, mcpUrl(A), headers));
          expect(statuses, JSON.stringify(headers)).to.deep.equal([401]);
        }
      });
    });
  }

  describe('HTTP answers before any JSON-RPC', () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

    it("404 for an unknown agent, 401 without a key or with another agent's key, with the error body", async () => {
      for (const [agent, headers, status] of [
        ['agt_unknown', { 'x-agent-access-key': keyA }, 404],
        [A, {}, 401],
        [A, { 'x-agent-access-key': keyB }, 401],
        [A, { authorization: `Bearer ${keyB}` }, 401],
      ] as const) {
        const r = await rawPost(agent, list, headers);
        expect(r.status).to.equal(status);
        const body = (await r.json()) as { error: string };
        expect(body.error).to.be.a('string').and.not.equal('');
      }
    });

    it('403 while the MCP surface is off; the key is still checked first', async () => {
      const set = (enabled: boolean) =>
        gql('mutation($a: ID!, $e: Boolean) { setSurface(agentId: $a, surface: MCP, enabled: $e) { id } }', {
          a: A,
          e: enabled,
        });
      await set(false);
      try {
        const off = await rawPost(A, list, { 'x-agent-access-key': keyA });
        expect(off.status).to.equal(403);
        expect(((await off.json()) as { error: string }).error).to.include('MCP server is turned off');
        expect((await rawPost(A, list)).status).to.equal(401);
        for (const era of ERAS) {
          statuses.length = 0;
          await rejection(connect(era, mcpUrl(A), { 'X-Agent-Access-Key': keyA }));
          expect(statuses).to.deep.equal([403]);
        }
      } finally {
        await set(true);
      }
      expect((await rawPost(A, list, { 'x-agent-access-key': keyA })).status).to.equal(200);
    });

    it('a workspace key works only while the agent allows workspace keys', async () => {
      const wsKey = (await gql('mutation { createWorkspaceApiKey(name: "mcp-ws") { key } }')).createWorkspaceApiKey.key;
      expect((await rawPost(A, list, { 'x-agent-access-key': wsKey })).status).to.equal(401);
      await gql('mutation($a: ID!) { updateAgent(id: $a, input: { allowWorkspaceKeys: true }) { id } }', { a: A });
      try {
        expect((await rawPost(A, list, { authorization: `Bearer ${wsKey}` })).status).to.equal(200);
      } finally {
        await gql('mutation($a: ID!) { updateAgent(id: $a, input: { allowWorkspaceKeys: false }) { id } }', { a: A });
      }
    });

    it('the daily credit limit answers HTTP 429 with reason and Retry-After, in both eras', async () => {
      const r = await rawPost(C, toolCall('noop', { input: 'x' }), { 'x-agent-access-key': keyC });
      expect(r.status).to.equal(429);
      expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0);
      const body = (await r.json()) as { error: string; reason: string };
      expect(body.reason).to.equal('daily_credit_limit');
      for (const era of ERAS) {
        const conn = await connect(era, mcpUrl(C), { 'X-Agent-Access-Key': keyC });
        try {
          // Listing needs no admission; calling does.
          expect((await conn.listTools()).tools.map((t) => t.name)).to.deep.equal(['noop']);
          statuses.length = 0;
          await rejection(conn.callTool('noop', { input: 'x' }));
          expect(statuses).to.deep.equal([429]);
        } finally {
          await conn.close();
        }
      }
      // A refused call with bad arguments is the argument error, not the limit (checks before admission).
      const bad = await rawPost(C, toolCall('noop', { wrong: 1 }), { 'x-agent-access-key': keyC });
      expect(bad.status).to.equal(200);
      expect((await rpcAnswer(bad)).result).to.deep.include({ isError: true });
    });

    it('GET and DELETE answer 405; a body over 1 MiB 413; a malformed body a JSON-RPC parse error; 3,000-deep JSON 400; a lone surrogate is served', async () => {
      for (const method of ['GET', 'DELETE']) {
        const r = await fetch(mcpUrl(A), {
          method,
          headers: { 'x-agent-access-key': keyA, accept: 'text/event-stream' },
        });
        expect(r.status, method).to.equal(405);
        expect(r.headers.get('allow')).to.equal('POST');
      }
      const big = await rawPost(A, toolCall('ask', { input: 'x'.repeat(1024 * 1024 + 10) }), {
        'x-agent-access-key': keyA,
      });
      expect(big.status).to.equal(413);
      const malformed = await fetch(mcpUrl(A), {
        method: 'POST',
        headers: {
          'x-agent-access-key': keyA,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc": "2.0", "id": 1, "method": ',
      });
      expect(malformed.status).to.equal(400);
      expect(((await malformed.json()) as { error: { code: number } }).error.code).to.equal(-32700);
      // 3,000 levels of nesting are refused before any parser recurses over them.
      const deep = await fetch(mcpUrl(A), {
        method: 'POST',
        headers: {
          'x-agent-access-key': keyA,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"input":"x","deep":${'['.repeat(3000)}${']'.repeat(3000)}}}}`,
      });
      expect(deep.status).to.equal(400);
      expect(((await deep.json()) as { error: string }).error).to.include('64 levels');
      // A lone surrogate in the arguments runs and is answered, never a server error.
      const lone = await rawPost(A, toolCall('add', { a: 1, b: 2, note: '\ud800' }), { 'x-agent-access-key': keyA });
      expect(lone.status).to.equal(200);
      expect((await rpcAnswer(lone)).result.structuredContent).to.deep.equal({ sum: 3 });
    });

    it('refuses a browser origin the agent does not allow (DNS rebinding), and serves an allowed one', async () => {
      const evil = await rawPost(A, list, { 'x-agent-access-key': keyA, origin: 'http://evil.example.test' });
      expect(evil.status).to.equal(403);
      expect(((await evil.json()) as { error: string }).error).to.include('Origin');
      const custom = await rawPost(A, list, { 'x-agent-access-key': keyA, origin: CUSTOM });
      expect(custom.status).to.equal(200);
      expect(custom.headers.get('access-control-allow-origin')).to.equal(CUSTOM);
      expect((await rawPost(A, list, { 'x-agent-access-key': keyA, origin: PLATFORM })).status).to.equal(200);
    });
  });

  describe('activity log and cancellation', () => {
    it('each tool call has an MCP entry: tool name, arguments, result, credits, key redacted', async () => {
      const conn = await connect('2025-11-25', mcpUrl(A), { 'X-Agent-Access-Key': keyA });
      try {
        await conn.callTool('add', { a: 20, b: 22 });
      } finally {
        await conn.close();
      }
      const entries = (await activity(A)).filter(
        (e) => e.entry === 'add' && JSON.stringify(e.requestBody) === JSON.stringify({ a: 20, b: 22 }),
      );
      expect(entries).to.have.length(1);
      const [e] = entries;
      expect(e.surface).to.equal('MCP');
      expect(e.method).to.equal('POST');
      expect(e.status).to.equal(200);
      expect(e.runId).to.match(/^run_/);
      expect(e.response.structuredContent).to.deep.equal({ sum: 42 });
      expect(e.keyId).to.be.a('string');
      expect(e.requestHeaders['x-agent-access-key']).to.equal('[redacted]');
      expect(JSON.stringify(e)).to.not.include(keyA);
      // The refused call of the limit test has its entry too, with the 429.
      const refused = (await activity(C)).find((x) => x.status === 429);
      expect(refused?.surface).to.equal('MCP');
      expect(refused?.entry).to.equal('noop');
    });

    it('a client that disconnects mid-run cancels it: the slot is released and the run is logged as cancelled', async () => {
      svc.fake.enqueue({ text: 'one two three four five six seven eight nine ten eleven twelve', chunkDelayMs: 400 });
      const conn = await connect('2025-11-25', mcpUrl(A), { 'X-Agent-Access-Key': keyA });
      let closed: Promise<void> | undefined;
      const pending = conn.callTool(
        'ask',
        { input: 'count slowly please' },
        { onprogress: () => void (closed ??= conn.close()) },
      );
      await rejection(pending);
      await closed;
      const services = svc.service.services;
      await eventually(async () =>
        (await svc.service.store.repos.slots.countActive(A, svc.service.clock.now())) === 0 ? true : undefined,
      );
      const entry = await eventually(async () =>
        (await activity(A)).find((e) => e.entry === 'ask' && JSON.stringify(e.requestBody).includes('count slowly')),
      );
      expect(entry.error).to.match(/cancelled/);
      await svc.fake.idle();
    });

    it('notifications/cancelled for a running call stops it (stateless: it arrives as a request of its own)', async () => {
      svc.fake.enqueue({ text: 'alpha beta gamma delta epsilon zeta eta theta iota kappa', chunkDelayMs: 400 });
      const headers = { 'x-agent-access-key': keyA, 'mcp-protocol-version': '2025-11-25' };
      const running = rawPost(
        A,
        {
          jsonrpc: '2.0',
          id: 'slow-1',
          method: 'tools/call',
          params: { name: 'ask', arguments: { input: 'slow greek please' }, _meta: { progressToken: 'p1' } },
        },
        headers,
      );
      await eventually(async () =>
        svc.fake.requests.some((r) => JSON.stringify(r.body).includes('slow greek please')) ? true : undefined,
      );
      const cancel = await rawPost(
        A,
        {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 'slow-1', reason: 'user pressed stop' },
        },
        headers,
      );
      expect(cancel.status).to.equal(202);
      const answer = await (await running).text();
      expect(answer).to.include('cancelled');
      const entry = await eventually(async () =>
        (await activity(A)).find((e) => JSON.stringify(e.requestBody).includes('slow greek please')),
      );
      expect(entry.error).to.match(/cancelled/);
      await svc.fake.idle();
    });
  });
});
