import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { call as send, type Reply } from '../helpers/surface-calls.js';

// The HTTP API and the Document API of a service built by the composition root `npm start` uses and
// listening on a port of its own inside the test process (so coverage and mutation testing see the
// surface code; embedded database, or PostgreSQL with TEST_DATABASE_URL), configured only through
// GraphQL and driven with plain fetch.

const ADMIN_TOKEN = 'surfaces-e2e-admin-token-01234'; // 30 characters
const PLATFORM = 'https://app.example.test';
const CUSTOM = 'https://custom.example.test';
const EVIL = 'https://evil.example.test';
const MIB = 1024 * 1024;

type Surface = 'HTTP_API' | 'DOCUMENT_API';

describe('e2e: HTTP API and Document API', function () {
  this.timeout(180_000);
  let svc: E2eService;

  // Agent A carries most scenarios; B owns the foreign key (and the U+0000 case); C has a
  // zero daily credit limit; D is used for the activity-log check (its log holds only what that test sends).
  let A: string, B: string, C: string, D: string;
  let keyA: string, keyB: string, keyC: string, keyD: string, wsKey: string;
  const docs: Record<'notes' | 'tasks' | 'ro' | 'wo' | 'hidden' | 'scratch' | 'bTasks' | 'cTasks' | 'dTasks', string> =
    {} as any;

  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  /** A request to the service under test. */
  const call = (method: string, p: string, opts: Omit<Parameters<typeof send>[2], 'baseUrl'> = {}) =>
    send(method, p, { ...opts, baseUrl: svc.url });

  /** Asserts the status and the error shape every refusal has: JSON with a string `error`. */
  function expectError(r: Reply, status: number): void {
    expect(r.status, r.text).to.equal(status);
    expect(r.headers.get('content-type') ?? '').to.match(/^application\/json/);
    expect(r.json, r.text).to.be.an('object');
    expect(r.json.error, r.text).to.be.a('string').and.not.equal('');
  }

  const httpPath = (agent: string, p: string) => `/agents/${agent}/api/${p}`;
  const docPath = (agent: string, d: string, op = '') => `/agents/${agent}/documents/${d}${op ? `/data/${op}` : ''}`;

  /** A request that succeeds with a valid key of agent A on each surface. */
  const good: Record<Surface, (agent: string) => { method: string; path: string; json?: unknown }> = {
    HTTP_API: (agent) => ({ method: 'POST', path: httpPath(agent, 'echo'), json: { ping: 1 } }),
    DOCUMENT_API: (agent) => ({ method: 'GET', path: docPath(agent, docs.tasks) }),
  };

  async function countRecords(agent: string, doc: string, key: string): Promise<number> {
    const r = await call('GET', `${docPath(agent, doc)}?limit=1`, { key });
    expect(r.status, r.text).to.equal(200);
    return r.json.data.totalCount as number;
  }

  async function createKey(agentId: string): Promise<string> {
    return (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: agentId }))
      .createAgentApiKey.key;
  }

  async function createDoc(agentId: string, input: Record<string, unknown>): Promise<string> {
    return (
      await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
        a: agentId,
        i: input,
      })
    ).createDocument.id;
  }

  async function expose(agentId: string, documentId: string, read: boolean, write: boolean): Promise<void> {
    await gql(
      'mutation($a: ID!, $d: ID!, $r: Boolean, $w: Boolean) { exposeDocument(agentId: $a, documentId: $d, read: $r, write: $w) { id } }',
      {
        a: agentId,
        d: documentId,
        r: read,
        w: write,
      },
    );
  }

  async function addEndpoint(agentId: string, input: Record<string, unknown>): Promise<void> {
    await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: agentId,
      i: input,
    });
  }

  const taskFields = [
    { name: 'title', type: 'STRING', required: true },
    { name: 'done', type: 'BOOLEAN' },
    { name: 'score', type: 'NUMBER' },
  ];

  const ECHO_SCRIPT = 'return { params: request.params, query: request.query, method: request.method, body: input };';

  before(async function () {
    svc = await startE2eService('surf_e2e', { adminToken: ADMIN_TOKEN, platformOrigin: PLATFORM });
    const mk = async (name: string) =>
      (
        await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
          i: { name, defaultModel: 'fake-model' },
        })
      ).createAgent.id as string;
    [A, B, C, D] = [await mk('Agent A'), await mk('Agent B'), await mk('Agent C'), await mk('Agent D')];
    [keyA, keyB, keyC, keyD] = [await createKey(A), await createKey(B), await createKey(C), await createKey(D)];
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "ws") { key } }')).createWorkspaceApiKey.key;
    expect(wsKey).to.match(/^wk_/);

    for (const agent of [A, B, C, D]) {
      await addEndpoint(agent, { path: 'echo', handler: { script: ECHO_SCRIPT } });
    }
    await addEndpoint(A, { path: 'items/{id}', methods: ['GET', 'POST'], handler: { script: ECHO_SCRIPT } });
    await addEndpoint(A, { path: 'items/{id}/tags/{tag}', methods: ['PUT'], handler: { script: ECHO_SCRIPT } });
    await addEndpoint(A, { path: 'chat', handler: { prompt: 'Answer briefly.' } });

    docs.notes = await createDoc(A, { name: 'Notes', description: 'Free text', kind: 'TEXT', content: 'hello notes' });
    docs.tasks = await createDoc(A, { name: 'Tasks', description: 'A table', kind: 'DATABASE', fields: taskFields });
    docs.ro = await createDoc(A, { name: 'Read only', kind: 'DATABASE', fields: taskFields });
    docs.wo = await createDoc(A, { name: 'Write only', kind: 'DATABASE', fields: taskFields });
    docs.hidden = await createDoc(A, { name: 'Hidden', kind: 'DATABASE', fields: taskFields });
    docs.scratch = await createDoc(A, { name: 'Scratch', kind: 'DATABASE', fields: taskFields });
    docs.bTasks = await createDoc(B, { name: 'B tasks', kind: 'DATABASE', fields: taskFields });
    docs.cTasks = await createDoc(C, { name: 'C tasks', kind: 'DATABASE', fields: taskFields });
    docs.dTasks = await createDoc(D, { name: 'D tasks', kind: 'DATABASE', fields: taskFields });
    await expose(A, docs.notes, true, true);
    await expose(A, docs.tasks, true, true);
    await expose(A, docs.ro, true, false);
    await expose(A, docs.wo, false, true);
    await expose(A, docs.scratch, true, true);
    await expose(B, docs.bTasks, true, true);
    await expose(C, docs.cTasks, true, true);
    await expose(D, docs.dTasks, true, false);
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

  for (const surface of ['HTTP_API', 'DOCUMENT_API'] as const) {
    describe(`${surface}: authentication, surface switch, routing`, () => {
      const req = (agent: string, opts: Parameters<typeof call>[2] = {}) => {
        const g = good[surface](agent);
        return call(g.method, g.path, { json: g.json, ...opts });
      };

      it('accepts the key in X-Agent-Access-Key and in Authorization: Bearer', async () => {
        const viaHeader = await req(A, { key: keyA });
        expect(viaHeader.status, viaHeader.text).to.equal(200);
        const viaBearer = await req(A, { bearer: keyA });
        expect(viaBearer.status, viaBearer.text).to.equal(200);
        // Same answer either way (the HTTP API's runId differs per run).
        expect(viaBearer.json.output ?? viaBearer.json).to.deep.equal(viaHeader.json.output ?? viaHeader.json);
      });

      it("401 without a key, with a bad key, with a malformed Authorization header, and with another agent's key", async () => {
        expectError(await req(A), 401);
        expectError(await req(A, { key: 'ak_not-a-real-key-0000000000000000000000' }), 401);
        expectError(await req(A, { bearer: keyA.slice(0, -1) + (keyA.endsWith('x') ? 'y' : 'x') }), 401);
        expectError(await req(A, { headers: { authorization: `Basic ${keyA}` } }), 401);
        expectError(await req(A, { key: keyB }), 401);
        expectError(await req(A, { bearer: keyB }), 401);
        // The foreign key itself is valid: it works on its own agent.
        const own = await call('GET', `/agents/${B}/documents/nothing-here`, { key: keyB });
        expectError(own, 404);
      });

      it('a workspace key works only while the agent allows workspace keys', async () => {
        expectError(await req(A, { key: wsKey }), 401);
        await gql('mutation($a: ID!) { updateAgent(id: $a, input: { allowWorkspaceKeys: true }) { id } }', { a: A });
        try {
          const viaHeader = await req(A, { key: wsKey });
          expect(viaHeader.status, viaHeader.text).to.equal(200);
          const viaBearer = await req(A, { bearer: wsKey });
          expect(viaBearer.status, viaBearer.text).to.equal(200);
          // Another agent that did not opt in still refuses it.
          expectError(await req(B, { key: wsKey }), 401);
        } finally {
          await gql('mutation($a: ID!) { updateAgent(id: $a, input: { allowWorkspaceKeys: false }) { id } }', { a: A });
        }
        expectError(await req(A, { key: wsKey }), 401);
      });

      it('403 while the surface is off (the key is still checked first), 200 once it is back on', async () => {
        const set = (enabled: boolean) =>
          gql(
            'mutation($a: ID!, $s: Surface!, $e: Boolean) { setSurface(agentId: $a, surface: $s, enabled: $e) { id } }',
            { a: A, s: surface, e: enabled },
          );
        await set(false);
        try {
          const off = await req(A, { key: keyA });
          expectError(off, 403);
          expectError(await req(A), 401);
          // The other surface is unaffected.
          const other = surface === 'HTTP_API' ? good.DOCUMENT_API(A) : good.HTTP_API(A);
          const r = await call(other.method, other.path, { json: other.json, key: keyA });
          expect(r.status, r.text).to.equal(200);
        } finally {
          await set(true);
        }
        const on = await req(A, { key: keyA });
        expect(on.status, on.text).to.equal(200);
      });

      it('404 for an unknown agent, before any key check', async () => {
        expectError(await req('agt_does_not_exist', { key: keyA }), 404);
        expectError(await req('agt_does_not_exist'), 404);
        // An id holding U+0000 names nothing (PostgreSQL cannot even compare it): 404, not 500.
        expectError(await req('%00', { key: keyA }), 404);
        expectError(await req('agt%00x', { key: keyA }), 404);
      });

      it('a percent-encoded agent id addresses the same agent', async () => {
        const encoded = A.replace('_', '%5F');
        expect(encoded).to.not.equal(A);
        const g = good[surface](encoded);
        const r = await call(g.method, g.path, { json: g.json, key: keyA });
        expect(r.status, r.text).to.equal(200);
        if (surface === 'HTTP_API') {
          const p = await call('POST', `${httpPath(encoded, 'items/9')}?k=v`, { key: keyA, json: 1 });
          expect(p.status, p.text).to.equal(200);
          expect(p.json.output).to.deep.include({ params: { id: '9' }, query: { k: 'v' } });
        }
      });

      it('CORS preflight: platform origin (while allowed), custom origin, refused origin; server calls unaffected', async () => {
        const g = good[surface](A);
        const preflight = (origin: string) =>
          call('OPTIONS', g.path, {
            headers: {
              origin,
              'access-control-request-method': g.method,
              'access-control-request-headers': 'content-type, x-agent-access-key',
            },
          });

        for (const origin of [PLATFORM, CUSTOM]) {
          const r = await preflight(origin);
          expect(r.status, `${origin}: ${r.text}`).to.be.within(200, 204);
          expect(r.headers.get('access-control-allow-origin')).to.equal(origin);
          expect(r.headers.get('access-control-allow-methods')).to.include(g.method);
          expect((r.headers.get('access-control-allow-headers') ?? '').toLowerCase()).to.include('x-agent-access-key');
        }
        const refused = await preflight(EVIL);
        expect(refused.headers.get('access-control-allow-origin')).to.equal(null);

        // The actual browser request from an allowed origin carries the CORS headers; a refused one does not.
        const allowed = await call(g.method, g.path, { json: g.json, key: keyA, headers: { origin: CUSTOM } });
        expect(allowed.status, allowed.text).to.equal(200);
        expect(allowed.headers.get('access-control-allow-origin')).to.equal(CUSTOM);
        expect(allowed.headers.get('access-control-expose-headers') ?? '').to.include('Retry-After');
        const evil = await call(g.method, g.path, { json: g.json, key: keyA, headers: { origin: EVIL } });
        expect(evil.headers.get('access-control-allow-origin')).to.equal(null);

        // A server-side caller sends no Origin: no CORS headers, and the request is answered normally.
        const server = await call(g.method, g.path, { json: g.json, key: keyA });
        expect(server.status, server.text).to.equal(200);
        expect(server.headers.get('access-control-allow-origin')).to.equal(null);

        // Platform apps are allowed only while allowPlatformApps is on; custom origins stay allowed.
        await gql(
          'mutation($a: ID!, $o: [String!]) { setCors(agentId: $a, allowPlatformApps: false, customOrigins: $o) { id } }',
          { a: A, o: [CUSTOM] },
        );
        try {
          expect((await preflight(PLATFORM)).headers.get('access-control-allow-origin')).to.equal(null);
          expect((await preflight(CUSTOM)).headers.get('access-control-allow-origin')).to.equal(CUSTOM);
        } finally {
          await gql(
            'mutation($a: ID!, $o: [String!]) { setCors(agentId: $a, allowPlatformApps: true, customOrigins: $o) { id } }',
            { a: A, o: [CUSTOM] },
          );
        }
        expect((await preflight(PLATFORM)).headers.get('access-control-allow-origin')).to.equal(PLATFORM);
      });

      it('429 with reason daily_credit_limit and a numeric Retry-After when the daily credit limit is 0', async () => {
        const g = good[surface](C);
        const p = surface === 'DOCUMENT_API' ? docPath(C, docs.cTasks) : g.path;
        const r = await call(g.method, p, { json: g.json, key: keyC });
        expectError(r, 429);
        expect(r.json.reason).to.equal('daily_credit_limit');
        const retry = r.headers.get('retry-after');
        expect(retry).to.match(/^\d+$/);
        expect(Number(retry)).to.be.within(1, 86_400);
        // The key is still checked before admission.
        expectError(await call(g.method, p, { json: g.json, key: keyA }), 401);
      });
    });
  }

  describe('HTTP API: request handling', () => {
    it('404 for an undefined path; 405 with Allow for a defined path and another method', async () => {
      expectError(await call('POST', httpPath(A, 'nope'), { key: keyA, json: {} }), 404);
      expectError(await call('POST', httpPath(A, 'echo/extra'), { key: keyA, json: {} }), 404);
      expectError(await call('POST', `/agents/${A}/api`, { key: keyA, json: {} }), 404);

      const del = await call('DELETE', httpPath(A, 'echo'), { key: keyA });
      expectError(del, 405);
      expect(del.headers.get('allow')).to.equal('POST');
      const put = await call('PUT', httpPath(A, 'items/7'), { key: keyA, json: {} });
      expectError(put, 405);
      expect((put.headers.get('allow') ?? '').split(/,\s*/).sort()).to.deep.equal(['GET', 'POST']);
      // 404 and 405 come after the key check.
      expectError(await call('DELETE', httpPath(A, 'echo')), 401);
      expectError(await call('POST', httpPath(A, 'nope'), { json: {} }), 401);
    });

    it('a literal segment beats a parameter: items/latest goes to its own endpoint, items/7 to items/{id}', async () => {
      await addEndpoint(A, {
        path: 'items/latest',
        methods: ['GET'],
        handler: { script: 'return "the literal endpoint";' },
      });
      const literal = await call('GET', httpPath(A, 'items/latest'), { key: keyA });
      expect(literal.status, literal.text).to.equal(200);
      expect(literal.json.output).to.equal('the literal endpoint');
      const param = await call('GET', httpPath(A, 'items/7'), { key: keyA });
      expect(param.json.output.params).to.deep.equal({ id: '7' });
      // POST exists only on items/{id}, so a POST to items/latest is that endpoint's, with id = latest.
      const post = await call('POST', httpPath(A, 'items/latest'), { key: keyA, json: {} });
      expect(post.status, post.text).to.equal(200);
      expect(post.json.output.params).to.deep.equal({ id: 'latest' });
    });

    it('HEAD runs a GET endpoint and answers its status and headers without a body; on a path without GET it is 405', async () => {
      const head = await call('HEAD', httpPath(A, 'items/9'), { key: keyA });
      expect(head.status).to.equal(200);
      expect(head.text).to.equal('');
      expect(head.headers.get('content-type') ?? '').to.match(/^application\/json/);
      const get = await call('GET', httpPath(A, 'items/9'), { key: keyA });
      expect(get.status, get.text).to.equal(200);
      expect(get.json.output.params).to.deep.equal({ id: '9' });
      const onPostOnly = await call('HEAD', httpPath(A, 'echo'), { key: keyA });
      expect(onPostOnly.status).to.equal(405);
      expect(onPostOnly.headers.get('allow')).to.equal('POST');
    });

    it('400 for malformed JSON, 415 for a non-JSON content type, 413 for a body over 1 MiB', async () => {
      expectError(await call('POST', httpPath(A, 'echo'), { key: keyA, raw: '{"a": ' }), 400);
      expectError(await call('POST', httpPath(A, 'echo'), { key: keyA, raw: '{"a": 1} trailing' }), 400);
      expectError(await call('POST', httpPath(A, 'echo'), { key: keyA, raw: 'hello', type: 'text/plain' }), 415);
      expectError(await call('POST', httpPath(A, 'echo'), { key: keyA, json: { a: 1 }, type: 'text/plain' }), 415);
      const big = JSON.stringify({ blob: 'x'.repeat(MIB + 10) });
      expectError(await call('POST', httpPath(A, 'echo'), { key: keyA, raw: big }), 413);
      // Just under the limit is accepted.
      const fits = JSON.stringify({ blob: 'y'.repeat(MIB - 100) });
      const ok = await call('POST', httpPath(A, 'echo'), { key: keyA, raw: fits });
      expect(ok.status, ok.text.slice(0, 300)).to.equal(200);
      expect(ok.json.output.body.blob).to.have.length(MIB - 100);
    });

    it('413 also for a chunked body (no Content-Length) that grows over 1 MiB', async () => {
      const chunk = new TextEncoder().encode('"' + 'z'.repeat(64 * 1024 - 2) + '",');
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('['));
        },
        pull(c) {
          if (sent >= 20) {
            c.enqueue(new TextEncoder().encode('"end"]'));
            c.close();
            return;
          }
          sent++;
          c.enqueue(chunk);
        },
      });
      const res = await fetch(`${svc.url}${httpPath(A, 'echo')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-agent-access-key': keyA },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      expect(res.status, text).to.equal(413);
      expect(JSON.parse(text).error).to.be.a('string');
      // The refused body is left unread: the connection must not be offered for reuse (a client
      // that reused it would see ECONNRESET on its next request).
      expect(res.headers.get('connection')).to.equal('close');
      for (let i = 0; i < 4; i++) {
        const next = await call('POST', httpPath(A, 'echo'), { key: keyA, json: { i } });
        expect(next.status, next.text).to.equal(200);
      }
    });

    it('a script endpoint answers {output, runId, credits} and sees params, query and body', async () => {
      const r = await call('POST', `${httpPath(A, 'items/42')}?color=red&n=2`, {
        key: keyA,
        json: { hello: 'world', list: [1, 2] },
      });
      expect(r.status, r.text).to.equal(200);
      expect(Object.keys(r.json).sort()).to.deep.equal(['credits', 'output', 'runId']);
      expect(r.json.output).to.deep.equal({
        params: { id: '42' },
        query: { color: 'red', n: '2' },
        method: 'POST',
        body: { hello: 'world', list: [1, 2] },
      });
      expect(r.json.runId).to.be.a('string').and.match(/^run_/);
      expect(r.json.credits).to.be.a('number').and.at.least(0);
      expect(r.headers.get('x-run-id')).to.equal(r.json.runId);

      const get = await call('GET', `${httpPath(A, 'items/caf%C3%A9%20x')}?q=1`, { key: keyA });
      expect(get.status, get.text).to.equal(200);
      expect(get.json.output).to.deep.equal({ params: { id: 'café x' }, query: { q: '1' }, method: 'GET', body: null });

      const two = await call('PUT', httpPath(A, 'items/a/tags/b'), { key: keyA, json: 5 });
      expect(two.status, two.text).to.equal(200);
      expect(two.json.output.params).to.deep.equal({ id: 'a', tag: 'b' });
      expect(two.json.output.body).to.equal(5);
      expect(two.json.runId).to.not.equal(r.json.runId);
    });

    it('a prompt endpoint answers with the model output as JSON', async () => {
      svc.fake.reset();
      svc.fake.enqueue({ text: 'plain answer' });
      const r = await call('POST', httpPath(A, 'chat'), { key: keyA, json: { question: 'why' } });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.output).to.equal('plain answer');
      expect(r.json.runId).to.be.a('string');
      expect(r.json.credits).to.be.a('number');
      expect(svc.fake.requests).to.have.length(1);
      expect(svc.fake.requests[0]!.body.model).to.equal('fake-model');
      expect(JSON.stringify(svc.fake.requests[0]!.body.messages)).to.include('why');
    });

    it('Accept: text/event-stream on a prompt endpoint streams delta events in order, then done {output, runId, credits}', async () => {
      svc.fake.reset();
      const answer = 'one two three four five';
      svc.fake.enqueue({ text: answer, chunkDelayMs: 20 });
      const res = await fetch(`${svc.url}${httpPath(A, 'chat')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-agent-access-key': keyA },
        body: JSON.stringify({ say: 'count' }),
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = parseSse(await res.text());
      const names = events.map((e) => e.event);
      expect(names.length).to.be.at.least(3);
      expect(
        names.slice(0, -1).every((n) => n === 'delta'),
        names.join(','),
      ).to.equal(true);
      expect(names[names.length - 1]).to.equal('done');
      const streamed = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
      expect(streamed.length).to.be.at.least(2);
      expect(streamed.join('')).to.equal(answer);
      const done = events[events.length - 1]!.data;
      expect(done.output).to.equal(answer);
      expect(done.runId).to.be.a('string').and.match(/^run_/);
      expect(done.credits).to.be.a('number');
    });

    it('a script endpoint asked for Accept: text/event-stream streams its result as one done event', async () => {
      const r = await call('POST', httpPath(A, 'echo'), {
        key: keyA,
        json: { a: 1 },
        headers: { accept: 'text/event-stream' },
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^text\/event-stream/);
      const blocks = r.text.split('\n\n').filter((b) => b.trim());
      expect(blocks, r.text).to.have.length(1);
      expect(blocks[0]).to.match(/^event: done\ndata: /);
      const data = JSON.parse(blocks[0]!.split('\ndata: ')[1]!);
      expect(data.output.body).to.deep.equal({ a: 1 });
      expect(data.runId).to.equal(r.headers.get('x-run-id'));
    });

    it('400 when the input matches a blocked guardrail pattern (streaming too); the model is not called', async () => {
      svc.fake.reset();
      expectError(await call('POST', httpPath(A, 'echo'), { key: keyA, json: { text: 'a Forbidden Word here' } }), 400);
      expectError(await call('POST', httpPath(A, 'chat'), { key: keyA, json: { text: 'forbidden-word' } }), 400);
      const streamed = await call('POST', httpPath(A, 'chat'), {
        key: keyA,
        json: 'forbidden word',
        headers: { accept: 'text/event-stream' },
      });
      expectError(streamed, 400);
      expect(svc.fake.requests).to.have.length(0);
      const fine = await call('POST', httpPath(A, 'echo'), { key: keyA, json: { text: 'a permitted word' } });
      expect(fine.status).to.equal(200);
    });
  });

  describe('Document API: request handling', () => {
    it('GET a TEXT document: {id, name, description, content}, no data', async () => {
      const r = await call('GET', docPath(A, docs.notes), { key: keyA });
      expect(r.status, r.text).to.equal(200);
      expect(r.json).to.include({ id: docs.notes, name: 'Notes', description: 'Free text', content: 'hello notes' });
      expect(r.json).to.not.have.property('data');
    });

    it('404 for a document that is not exposed, a document of another agent, and an undefined sub-path', async () => {
      expectError(await call('GET', docPath(A, docs.hidden), { key: keyA }), 404);
      expectError(
        await call('POST', docPath(A, docs.hidden, 'insert'), { key: keyA, json: { items: [{ title: 'x' }] } }),
        404,
      );
      expectError(await call('GET', docPath(A, docs.cTasks), { key: keyA }), 404);
      expectError(await call('GET', docPath(A, 'doc_unknown'), { key: keyA }), 404);
      expectError(await call('POST', docPath(A, docs.tasks, 'upsert'), { key: keyA, json: {} }), 404);
      expectError(await call('GET', `${docPath(A, docs.tasks)}/data`, { key: keyA }), 404);
      // A document id holding U+0000 names nothing: 404, not 500.
      expectError(await call('GET', docPath(A, '%00'), { key: keyA }), 404);
      expectError(
        await call('POST', docPath(A, 'doc%00', 'insert'), { key: keyA, json: { items: [{ title: 'x' }] } }),
        404,
      );
    });

    it('405 with Allow for a defined path and another method', async () => {
      const del = await call('DELETE', docPath(A, docs.tasks), { key: keyA });
      expectError(del, 405);
      expect((del.headers.get('allow') ?? '').split(/,\s*/).sort()).to.deep.equal(['GET', 'PUT']);
      const get = await call('GET', docPath(A, docs.tasks, 'query'), { key: keyA });
      expectError(get, 405);
      expect(get.headers.get('allow')).to.equal('POST');
      expectError(await call('DELETE', docPath(A, docs.tasks)), 401);
    });

    it('403 for a missing permission: read on a write-only exposure, write on a read-only one', async () => {
      expectError(await call('GET', docPath(A, docs.wo), { key: keyA }), 403);
      expectError(await call('POST', docPath(A, docs.wo, 'query'), { key: keyA, json: { filter: {} } }), 403);
      expectError(
        await call('POST', docPath(A, docs.ro, 'insert'), { key: keyA, json: { items: [{ title: 'x' }] } }),
        403,
      );
      expectError(
        await call('POST', docPath(A, docs.ro, 'update'), {
          key: keyA,
          json: { filter: { title: 'x' }, set: { done: true } },
        }),
        403,
      );
      expectError(
        await call('POST', docPath(A, docs.ro, 'delete'), { key: keyA, json: { filter: {}, all: true } }),
        403,
      );
      expectError(await call('PUT', docPath(A, docs.ro), { key: keyA, json: { description: 'changed' } }), 403);
      // The permitted direction works on each.
      const ins = await call('POST', docPath(A, docs.wo, 'insert'), { key: keyA, json: { items: [{ title: 'w' }] } });
      expect(ins.status, ins.text).to.equal(200);
      expect(ins.json.inserted).to.equal(1);
      const read = await call('GET', docPath(A, docs.ro), { key: keyA });
      expect(read.status, read.text).to.equal(200);
      expect(read.json.data.totalCount).to.equal(0);
    });

    it('400 for query and insert on a TEXT document', async () => {
      expectError(await call('POST', docPath(A, docs.notes, 'query'), { key: keyA, json: { filter: {} } }), 400);
      expectError(
        await call('POST', docPath(A, docs.notes, 'insert'), { key: keyA, json: { items: [{ title: 'x' }] } }),
        400,
      );
    });

    it('400 for malformed JSON, 415 for text/plain, 413 over 1 MiB', async () => {
      expectError(await call('POST', docPath(A, docs.tasks, 'insert'), { key: keyA, raw: '{"items": [' }), 400);
      expectError(
        await call('POST', docPath(A, docs.tasks, 'insert'), {
          key: keyA,
          raw: '{"items":[{"title":"t"}]}',
          type: 'text/plain',
        }),
        415,
      );
      expectError(
        await call('PUT', docPath(A, docs.notes), { key: keyA, raw: JSON.stringify({ content: 'c'.repeat(MIB + 1) }) }),
        413,
      );
      expectError(
        await call('POST', docPath(A, docs.tasks, 'insert'), {
          key: keyA,
          raw: JSON.stringify({ items: [{ title: 't'.repeat(MIB) }] }),
        }),
        413,
      );
      expect(await countRecords(A, docs.tasks, keyA)).to.equal(0);
      const note = await call('GET', docPath(A, docs.notes), { key: keyA });
      expect(note.json.content).to.equal('hello notes');
    });

    it('insert assigns ids; a request with one bad item inserts nothing and names the field', async () => {
      const before = await countRecords(A, docs.tasks, keyA);
      const ok = await call('POST', docPath(A, docs.tasks, 'insert'), {
        key: keyA,
        json: {
          items: [
            { title: 'a', done: false, score: 1 },
            { title: 'b', done: true, score: 2 },
            { title: 'c', score: 3 },
          ],
        },
      });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.json.inserted).to.equal(3);
      expect(ok.json.records.map((r: any) => r.title)).to.deep.equal(['a', 'b', 'c']);
      for (const r of ok.json.records) expect(r.id).to.be.a('string').and.not.equal('');
      expect(await countRecords(A, docs.tasks, keyA)).to.equal(before + 3);

      for (const bad of [
        [{ title: 'd' }, { title: 7 }],
        [{ title: 'd' }, { done: true }],
        [{ title: 'd' }, { title: 'e', colour: 'red' }],
        [{ title: 'd' }, 'not an object'],
        [{ title: 'd' }, { title: 'e', score: 'high' }],
      ]) {
        const r = await call('POST', docPath(A, docs.tasks, 'insert'), { key: keyA, json: { items: bad } });
        expectError(r, 400);
        expect(r.json.error, JSON.stringify(bad)).to.match(/items\.1/);
      }
      expectError(await call('POST', docPath(A, docs.tasks, 'insert'), { key: keyA, json: { items: [] } }), 400);
      expectError(
        await call('POST', docPath(A, docs.tasks, 'insert'), {
          key: keyA,
          json: { items: [{ title: 'z' }], extra: 1 },
        }),
        400,
      );
      expectError(await call('POST', docPath(A, docs.tasks, 'insert'), { key: keyA, json: [{ title: 'z' }] }), 400);
      // A blocked guardrail pattern refuses the write too.
      expectError(
        await call('POST', docPath(A, docs.tasks, 'insert'), {
          key: keyA,
          json: { items: [{ title: 'forbidden word' }] },
        }),
        400,
      );
      expect(await countRecords(A, docs.tasks, keyA)).to.equal(before + 3);
    });

    it('query by equality and any-of; update sets fields on matches', async () => {
      const q = await call('POST', docPath(A, docs.tasks, 'query'), {
        key: keyA,
        json: { filter: { title: ['a', 'c'] } },
      });
      expect(q.status, q.text).to.equal(200);
      expect(q.json.totalCount).to.equal(2);
      expect(q.json.records.map((r: any) => r.title).sort()).to.deep.equal(['a', 'c']);

      const u = await call('POST', docPath(A, docs.tasks, 'update'), {
        key: keyA,
        json: { filter: { title: 'a' }, set: { done: true, score: 10 } },
      });
      expect(u.status, u.text).to.equal(200);
      expect(u.json).to.deep.equal({ updated: 1 });
      const after = await call('POST', docPath(A, docs.tasks, 'query'), {
        key: keyA,
        json: { filter: { done: true } },
      });
      expect(after.json.records.map((r: any) => [r.title, r.score]).sort()).to.deep.equal([
        ['a', 10],
        ['b', 2],
      ]);
      expectError(
        await call('POST', docPath(A, docs.tasks, 'update'), {
          key: keyA,
          json: { filter: { title: 'a' }, set: { score: 'x' } },
        }),
        400,
      );
      expectError(
        await call('POST', docPath(A, docs.tasks, 'update'), {
          key: keyA,
          json: { filter: { title: 'a' }, set: { title: null } },
        }),
        400,
      );
      expectError(
        await call('POST', docPath(A, docs.tasks, 'query'), { key: keyA, json: { filter: { nosuch: 1 } } }),
        400,
      );
    });

    it('update and delete with an empty filter are refused unless all: true', async () => {
      const scratch = (op: string, json: unknown) => call('POST', docPath(A, docs.scratch, op), { key: keyA, json });
      const ins = await scratch('insert', { items: [{ title: 'p' }, { title: 'q' }, { title: 'r' }] });
      expect(ins.json.inserted).to.equal(3);
      expectError(await scratch('update', { filter: {}, set: { done: true } }), 400);
      expectError(await scratch('delete', { filter: {} }), 400);
      expectError(await scratch('delete', { filter: {}, all: false }), 400);
      expectError(await scratch('delete', {}), 400);
      expect(await countRecords(A, docs.scratch, keyA)).to.equal(3);

      const one = await scratch('delete', { filter: { title: 'q' } });
      expect(one.json).to.deep.equal({ deleted: 1 });
      const upd = await scratch('update', { filter: {}, set: { done: true }, all: true });
      expect(upd.json).to.deep.equal({ updated: 2 });
      const all = await scratch('delete', { filter: {}, all: true });
      expect(all.json).to.deep.equal({ deleted: 2 });
      expect(await countRecords(A, docs.scratch, keyA)).to.equal(0);
    });

    it('PUT replaces content, name and description; GET shows them', async () => {
      const r = await call('PUT', docPath(A, docs.notes), {
        key: keyA,
        json: { content: 'new content ✓', description: 'Edited' },
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.json).to.include({ id: docs.notes, name: 'Notes', description: 'Edited', content: 'new content ✓' });
      const g = await call('GET', docPath(A, docs.notes), { key: keyA });
      expect(g.json).to.include({ content: 'new content ✓', description: 'Edited' });
      expectError(await call('PUT', docPath(A, docs.notes), { key: keyA, json: { content: 5 } }), 400);
      expectError(await call('PUT', docPath(A, docs.notes), { key: keyA, json: { owner: 'me' } }), 400);
    });

    it('GET a database: data {fields, records, totalCount}, with ?limit and ?offset', async () => {
      const items = Array.from({ length: 7 }, (_, i) => ({ title: `page-${i}`, score: i }));
      const ins = await call('POST', docPath(A, docs.scratch, 'insert'), { key: keyA, json: { items } });
      expect(ins.json.inserted).to.equal(7);
      const full = await call('GET', docPath(A, docs.scratch), { key: keyA });
      expect(full.status, full.text).to.equal(200);
      expect(full.json).to.include({ id: docs.scratch, name: 'Scratch', kind: 'DATABASE' });
      expect(full.json.data.fields).to.deep.equal([
        { name: 'title', type: 'string', required: true },
        { name: 'done', type: 'boolean', required: false },
        { name: 'score', type: 'number', required: false },
      ]);
      expect(full.json.data.totalCount).to.equal(7);
      expect(full.json.data.records).to.have.length(7);
      const allIds = full.json.data.records.map((r: any) => r.id);

      const page = await call('GET', `${docPath(A, docs.scratch)}?limit=3&offset=2`, { key: keyA });
      expect(page.status, page.text).to.equal(200);
      expect(page.json.data.totalCount).to.equal(7);
      expect(page.json.data.records.map((r: any) => r.id)).to.deep.equal(allIds.slice(2, 5));
      const tail = await call('GET', `${docPath(A, docs.scratch)}?offset=6`, { key: keyA });
      expect(tail.json.data.records.map((r: any) => r.id)).to.deep.equal(allIds.slice(6));

      expectError(await call('GET', `${docPath(A, docs.scratch)}?limit=1001`, { key: keyA }), 400);
      expectError(await call('GET', `${docPath(A, docs.scratch)}?limit=0`, { key: keyA }), 400);
      expectError(await call('GET', `${docPath(A, docs.scratch)}?limit=abc`, { key: keyA }), 400);
      expectError(await call('GET', `${docPath(A, docs.scratch)}?offset=-1`, { key: keyA }), 400);
    });
  });

  describe('activity log', () => {
    it('records every request of both surfaces with its status and method, and never a key value', async () => {
      const sent: { surface: Surface; method: string; status: number }[] = [];
      const send = async (surface: Surface, method: string, p: string, opts: Parameters<typeof call>[2]) => {
        const r = await call(method, p, opts);
        sent.push({ surface, method, status: r.status });
        return r;
      };
      expect((await send('HTTP_API', 'POST', httpPath(D, 'echo'), { key: keyD, json: { n: 1 } })).status).to.equal(200);
      expect((await send('HTTP_API', 'POST', httpPath(D, 'echo'), { bearer: keyD, json: { n: 2 } })).status).to.equal(
        200,
      );
      expect((await send('HTTP_API', 'POST', httpPath(D, 'echo'), { key: keyA, json: {} })).status).to.equal(401);
      expect((await send('HTTP_API', 'GET', httpPath(D, 'echo'), { key: keyD })).status).to.equal(405);
      expect((await send('HTTP_API', 'POST', httpPath(D, 'missing'), { key: keyD, json: {} })).status).to.equal(404);
      expect(
        (await send('HTTP_API', 'POST', httpPath(D, 'echo'), { key: keyD, raw: '{', type: 'application/json' })).status,
      ).to.equal(400);
      expect((await send('DOCUMENT_API', 'GET', docPath(D, docs.dTasks), { key: keyD })).status).to.equal(200);
      expect((await send('DOCUMENT_API', 'GET', docPath(D, docs.dTasks), { bearer: keyB })).status).to.equal(401);
      expect(
        (
          await send('DOCUMENT_API', 'POST', docPath(D, docs.dTasks, 'insert'), {
            key: keyD,
            json: { items: [{ title: 'x' }] },
          })
        ).status,
      ).to.equal(403);
      expect((await send('DOCUMENT_API', 'GET', docPath(D, 'doc_nope'), { key: keyD })).status).to.equal(404);
      expect(
        (await send('DOCUMENT_API', 'PUT', docPath(D, docs.dTasks), { key: keyD, raw: 'x', type: 'text/plain' }))
          .status,
      ).to.equal(415);

      const key = (e: { surface: string; method: string; status: number }) => `${e.surface} ${e.method} ${e.status}`;
      // A request's entry is recorded before its response is sent, and flush() stores what was
      // recorded: after it the log is complete — one entry per request, none missing, none twice.
      await svc.service.services.activityLog.flush();
      const nodes: any[] = (
        await gql(
          'query($a: ID!) { agent(id: $a) { activity(first: 100) { nodes { surface status method requestHeaders requestBody response keyId } } } }',
          { a: D },
        )
      ).agent.activity.nodes;
      expect(nodes.map(key).sort()).to.deep.equal(sent.map(key).sort());

      const serialized = JSON.stringify(nodes);
      for (const secret of [keyD, keyA, keyB]) expect(serialized).to.not.include(secret);
      const withKey = nodes.filter((n) => n.requestHeaders?.['x-agent-access-key'] !== undefined);
      const withBearer = nodes.filter((n) => n.requestHeaders?.authorization !== undefined);
      expect(withKey.length).to.be.at.least(1);
      expect(withBearer.length).to.be.at.least(1);
      for (const n of withKey) expect(n.requestHeaders['x-agent-access-key']).to.equal('[redacted]');
      for (const n of withBearer) expect(n.requestHeaders.authorization).to.equal('[redacted]');
      expect(nodes.some((n) => n.requestBody && n.requestBody.n === 1)).to.equal(true);
    });

    // PostgreSQL cannot store U+0000 in text or jsonb: a write holding it is a 400 (decisions §13),
    // and the activity log stores such strings with U+FFFD rather than losing entries.
    it('a string holding U+0000 is refused with 400, not 500, and the activity log loses no entry', async () => {
      const activityCount = async () => {
        // Everything recorded so far (entries are recorded before the response) is stored first.
        await svc.service.services.activityLog.flush();
        const d = await gql('query($a: ID!) { agent(id: $a) { activity(first: 200) { nodes { id } } } }', { a: B });
        return d.agent.activity.nodes.length as number;
      };
      const before = await activityCount();
      const unstorable = { error: 'A text value holds a character that cannot be stored (such as U+0000)' };
      const inserted = await call('POST', docPath(B, docs.bTasks, 'insert'), {
        key: keyB,
        json: { items: [{ title: 'a\u0000b' }] },
      });
      expectError(inserted, 400);
      expect(inserted.json).to.deep.equal(unstorable);
      // A query filter holding U+0000 is refused the same way, on the embedded database and on
      // PostgreSQL alike: the filter value cannot be put into a query (jsonb has no U+0000 either).
      const q = await call('POST', docPath(B, docs.bTasks, 'query'), {
        key: keyB,
        json: { filter: { title: 'a\u0000b' } },
      });
      expectError(q, 400);
      expect(q.json).to.deep.equal(unstorable);
      const echoed = await call('POST', `${httpPath(B, 'echo')}?q=%00`, { key: keyB, json: { s: 'x\u0000y' } });
      expect(echoed.status, echoed.text).to.equal(200);
      expect(echoed.json.output.body).to.deep.equal({ s: 'x\u0000y' });
      const plain = await call('POST', httpPath(B, 'echo'), { key: keyB, json: { s: 'plain' } });
      expect(plain.status).to.equal(200);
      expect(await activityCount()).to.equal(before + 4);
    });

    it("agent A's log covers both surfaces and holds no key value anywhere", async () => {
      const nodes: any[] = [];
      let after: string | null = null;
      do {
        const d = await gql(
          'query($a: ID!, $after: String) { agent(id: $a) { activity(first: 200, after: $after) { nodes { surface status method requestHeaders } endCursor hasNextPage } } }',
          { a: A, after },
        );
        nodes.push(...d.agent.activity.nodes);
        after = d.agent.activity.hasNextPage ? d.agent.activity.endCursor : null;
      } while (after);
      expect(new Set(nodes.map((n) => n.surface))).to.deep.equal(new Set(['HTTP_API', 'DOCUMENT_API']));
      for (const s of [200, 400, 401, 403, 404, 405, 413, 415])
        expect(
          nodes.some((n) => n.status === s),
          `status ${s}`,
        ).to.equal(true);
      const serialized = JSON.stringify(nodes);
      for (const secret of [keyA, keyB, wsKey]) expect(serialized).to.not.include(secret);
    });
  });
});

/** Parses a text/event-stream body into `{event, data}` records (data parsed as JSON). */
function parseSse(body: string): { event: string; data: any }[] {
  return body
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim())
    .map((block) => {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      return { event, data: JSON.parse(data.join('\n')) };
    });
}
