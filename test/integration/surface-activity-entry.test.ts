import { expect } from 'chai';
import type { ActivityEntry } from '../../src/domain/activity/activity.entities.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { configureFakeModel } from '../helpers/runtime.js';
import { addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';

// The activity entry of a surface request has one writer (surfaces/shared/activity.middleware.ts),
// outside the route's error mapper: whatever the request's end — refused before its entry was
// resolved, refused after it, a stream that failed after its 200 — it gets exactly one entry, with
// what the domain reported by then (entry, request body, run).

describe('surface requests: one activity entry, whatever the end', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let fake: FakeOpenAi;
  let agent: string;
  let key: string;
  let keyId: string;

  const ORDER = { type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'] };

  before(async () => {
    fake = await startOpenAiServer();
    ws = await newWorkspace();
    await configureFakeModel(ws.adminToken, fake);
    agent = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
    key = await createAgentKey(ws.adminToken, agent);
    keyId = (await h().service.store.repos.apiKeys.listByAgents([agent]))[0]!.id;
    await addHttpEndpoint(ws.adminToken, agent, {
      path: 'orders',
      methods: ['POST'],
      handler: { script: 'return { ok: input.qty };' },
      inputSchema: ORDER,
    });
  });
  after(async () => fake.close());

  /** The entries a request added, oldest first. */
  async function entriesOf(agentId: string, request: () => Promise<unknown>): Promise<ActivityEntry[]> {
    const read = async () => {
      await h().service.services.activityLog.flush();
      return (await h().service.store.repos.workspaceRead.listActivity(agentId, {}, { limit: 200, offset: 0 })).items;
    };
    const before = new Set((await read()).map((e) => e.id));
    await request();
    return (await read()).filter((e) => !before.has(e.id)).reverse();
  }

  it('a refusal before the entry is resolved (no such endpoint): one entry without entry name or body', async () => {
    const [entry, ...rest] = await entriesOf(agent, () =>
      call('POST', httpApiPath(agent, 'nowhere'), { key, json: { qty: 1 } }),
    );
    expect(rest).to.have.length(0);
    expect(entry).to.deep.include({
      surface: 'HTTP_API',
      status: 404,
      entry: null,
      requestBody: null,
      runId: null,
      keyId,
      method: 'POST',
    });
    expect(entry!.error).to.match(/^Endpoint /);
    expect(entry!.response).to.deep.equal({ error: entry!.error });
  });

  it('a refused key: one entry with the 401, no key id', async () => {
    const [entry, ...rest] = await entriesOf(agent, () =>
      call('POST', httpApiPath(agent, 'orders'), { key: 'wrong', json: { qty: 1 } }),
    );
    expect(rest).to.have.length(0);
    expect(entry).to.deep.include({ status: 401, entry: null, keyId: null });
    expect(entry!.requestHeaders!['x-agent-access-key']).to.equal('[redacted]');
  });

  it('a body refused after the entry is resolved (415): the entry names the endpoint, no body', async () => {
    const [entry, ...rest] = await entriesOf(agent, () =>
      call('POST', httpApiPath(agent, 'orders'), { key, raw: 'qty=1', type: 'text/plain' }),
    );
    expect(rest).to.have.length(0);
    expect(entry).to.deep.include({ status: 415, entry: 'orders', requestBody: null, runId: null });
  });

  it('a refusal after the entry is resolved (400 input schema, 429 limit): the entry name and the body sent', async () => {
    const [invalid] = await entriesOf(agent, () =>
      call('POST', httpApiPath(agent, 'orders'), { key, json: { qty: 'many' } }),
    );
    expect(invalid).to.deep.include({ status: 400, entry: 'orders', runId: null, credits: 0 });
    expect(invalid!.requestBody).to.deep.equal({ qty: 'many' });
    expect(invalid!.error).to.match(/Invalid request body for endpoint 'orders'/);

    const limited = await createAgent(ws.adminToken);
    const limitedKey = await createAgentKey(ws.adminToken, limited);
    await addHttpEndpoint(ws.adminToken, limited, {
      path: 'orders',
      methods: ['POST'],
      handler: { script: 'return 1;' },
    });
    await gqlOk(ws.adminToken, 'mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', {
      a: limited,
    });
    const [refused, ...rest] = await entriesOf(limited, () =>
      call('POST', httpApiPath(limited, 'orders'), { key: limitedKey, json: { qty: 2 } }),
    );
    expect(rest).to.have.length(0);
    expect(refused).to.deep.include({ status: 429, entry: 'orders', runId: null });
    expect(refused!.requestBody).to.deep.equal({ qty: 2 });
    expect(refused!.response).to.deep.equal({ error: refused!.error });
  });

  it('a run that answers: the run id, the output and the key', async () => {
    let runId: string | null = null;
    const [entry] = await entriesOf(agent, async () => {
      runId = (await call('POST', httpApiPath(agent, 'orders'), { key, json: { qty: 3 } })).headers.get('x-run-id');
    });
    expect(entry).to.deep.include({ status: 200, entry: 'orders', runId, keyId, error: null });
    expect(entry!.response).to.deep.include({ output: { ok: 3 }, runId });
  });

  it('a chat stream that fails after its 200: the 200 sent, the model failure, the run, the visitor message', async () => {
    fake.enqueue({ text: 'alpha beta gamma delta', failAfterChunks: 1 });
    let runId: string | null = null;
    const [entry, ...rest] = await entriesOf(agent, async () => {
      const r = await call('POST', `/agents/${agent}/chat`, { key, json: { message: 'Tell me' } });
      expect(r.status).to.equal(200);
      expect(r.text).to.include('event: error');
      runId = r.headers.get('x-run-id');
    });
    expect(rest).to.have.length(0);
    expect(entry).to.deep.include({ surface: 'WIDGET', status: 200, entry: 'chat', runId });
    expect(entry!.requestBody).to.deep.equal({ message: 'Tell me' });
    expect(entry!.error).to.be.a('string').and.not.equal('');
    expect(entry!.response).to.have.property('error').that.is.a('string');
  });

  it('a CORS preflight is answered before any check and writes no entry', async () => {
    const entries = await entriesOf(agent, () =>
      fetch(`${h().url}${httpApiPath(agent, 'orders')}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
      }),
    );
    expect(entries).to.have.length(0);
  });
});
