import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { call as send, type Reply } from '../helpers/surface-calls.js';

// Each way a key can be refused answers 401 with its own `{"error"}` text, the same on every
// key-authenticated surface, and the agent-exists (404) → key (401) order is kept: an unknown
// agent is a 404 whatever key comes with it, so no key tells more about an agent than before.

const ADMIN_TOKEN = 'auth-reasons-admin-token-0123456'; // 32 characters

describe('e2e: 401 reasons on the agent surfaces', function () {
  this.timeout(180_000);
  let svc: E2eService;
  let A: string, B: string, docA: string;
  let keyA: string, keyB: string, revokedA: string, wsKey: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);
  const call = (method: string, p: string, opts: Omit<Parameters<typeof send>[2], 'baseUrl'> = {}) =>
    send(method, p, { ...opts, baseUrl: svc.url });

  /** One request per surface that a valid key of `agent` gets through. */
  const surfaces: Record<
    string,
    (agent: string, opts: { key?: string; bearer?: string; headers?: Record<string, string> }) => Promise<Reply>
  > = {
    'HTTP API': (agent, o) => call('POST', `/agents/${agent}/api/echo`, { ...o, json: { ping: 1 } }),
    'Document API': (agent, o) => call('GET', `/agents/${agent}/documents/${docA}`, o),
    MCP: (agent, o) =>
      call('POST', `/agents/${agent}/mcp`, {
        ...o,
        headers: { ...o.headers, accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      }),
    chat: (agent, o) =>
      call('POST', `/agents/${agent}/chat`, {
        ...o,
        headers: { ...o.headers, accept: 'application/json' },
        json: { message: 'hi' },
      }),
  };

  function expect401(r: Reply, pattern: RegExp): void {
    expect(r.status, r.text).to.equal(401);
    expect(r.headers.get('content-type') ?? '').to.match(/^application\/json/);
    expect(Object.keys(r.json ?? {}), r.text).to.deep.equal(['error']);
    expect(r.json.error).to.match(pattern);
  }

  const createKey = async (agentId: string) =>
    (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key apiKey { id } } }', { a: agentId }))
      .createAgentApiKey;

  before(async function () {
    svc = await startE2eService('auth_reasons_e2e', { adminToken: ADMIN_TOKEN });
    const mk = async (name: string) =>
      (
        await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
          i: { name, defaultModel: 'fake-model' },
        })
      ).createAgent.id as string;
    [A, B] = [await mk('Agent A'), await mk('Agent B')];
    for (const agent of [A, B]) {
      await gql(
        'mutation($a: ID!) { addHttpEndpoint(agentId: $a, input: {path: "echo", handler: {script: "return input;"}}) { id } }',
        { a: agent },
      );
      await gql(
        'mutation($a: ID!) { addMcpTool(agentId: $a, input: {name: "echo", description: "Echo", handler: {script: "return input;"}}) { id } }',
        { a: agent },
      );
      await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: WIDGET, enabled: true) { id } }', { a: agent });
    }
    docA = (
      await gql(
        'mutation($a: ID!) { createDocument(agentId: $a, input: {name: "Notes", kind: TEXT, content: "x"}) { id } }',
        { a: A },
      )
    ).createDocument.id;
    await gql(
      'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: false) { id } }',
      { a: A, d: docA },
    );
    keyA = (await createKey(A)).key;
    keyB = (await createKey(B)).key;
    const revoked = await createKey(A);
    revokedA = revoked.key;
    await gql('mutation($id: ID!) { revokeApiKey(id: $id) }', { id: revoked.apiKey.id });
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "ws", scopes: [WORKSPACE_READ]) { key } }'))
      .createWorkspaceApiKey.key;
  });

  after(async () => {
    await svc?.stop();
  });

  for (const [name, send] of Object.entries(surfaces)) {
    describe(name, () => {
      it("passes with the agent's own key (the requests below differ only in the key)", async () => {
        const r = await send(A, { key: keyA });
        expect(r.status, r.text).to.equal(200);
      });

      it('no key sent: says so and where to send it', async () => {
        expect401(
          await send(A, {}),
          /^No API key sent: send it in the X-Agent-Access-Key header or as Authorization: Bearer <key>$/,
        );
        expect401(
          await send(A, { headers: { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` } }),
          /^No API key sent/,
        );
      });

      it('key not recognised: a well-formed unknown key and a malformed value', async () => {
        expect401(await send(A, { key: `ak_${'0'.repeat(40)}` }), /^API key not recognised/);
        expect401(await send(A, { bearer: 'not-a-key' }), /^API key not recognised/);
      });

      it('key revoked', async () => {
        expect401(await send(A, { key: revokedA }), /^This API key was revoked/);
      });

      it('key of another agent', async () => {
        expect401(await send(A, { key: keyB }), /^This API key belongs to another agent/);
      });

      it('workspace key while allowWorkspaceKeys is off: names the mutation that turns it on, and it does', async () => {
        const r = await send(A, { bearer: wsKey });
        expect401(r, /^Workspace keys are turned off for this agent/);
        expect(r.json.error).to.include(`updateAgent(id: "${A}", input: {allowWorkspaceKeys: true})`);
        await gql(`mutation($a: ID!) { updateAgent(id: $a, input: {allowWorkspaceKeys: true}) { id } }`, { a: A });
        try {
          const allowed = await send(A, { bearer: wsKey });
          expect(allowed.status, allowed.text).to.equal(200);
        } finally {
          await gql(`mutation($a: ID!) { updateAgent(id: $a, input: {allowWorkspaceKeys: false}) { id } }`, { a: A });
        }
      });

      it('an unknown agent is 404 whatever key is sent (existence is not told apart by the key)', async () => {
        const unknown = 'agt_doesnotexist00000000';
        for (const opts of [{}, { key: keyA }, { key: keyB }, { key: revokedA }, { bearer: wsKey }]) {
          const r = await send(unknown, opts);
          expect(r.status, r.text).to.equal(404);
        }
      });
    });
  }

  describe('Workspace API', () => {
    const overview = (opts: Parameters<typeof call>[2]) => call('GET', '/workspaceapi/overview', opts);

    it('no key, unknown key, revoked key and an agent key each say their case', async () => {
      expect((await overview({ bearer: wsKey })).status).to.equal(200);
      expect401(await overview({}), /^No API key sent: send a workspace key \(wk_\)/);
      expect401(await overview({ bearer: `wk_${'0'.repeat(40)}` }), /^API key not recognised/);
      expect401(await overview({ bearer: revokedA }), /^This API key was revoked/);
      expect401(await overview({ bearer: keyA }), /^The Workspace API takes a workspace key \(wk_\)/);
    });
  });
});
