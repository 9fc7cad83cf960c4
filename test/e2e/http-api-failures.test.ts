import { expect } from 'chai';
import { createLogger } from '../../src/infra/logger.js';
import type { LanguageModels, ModelEvent } from '../../src/domain/models/language-model.ports.js';
import type { ScriptSandbox } from '../../src/domain/core/sandbox.ports.js';
import { buildService, type Service } from '../../src/server.js';
import { createAgent, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import {
  activityOf,
  addHttpEndpoint,
  call,
  createAgentKey,
  createDocument,
  httpApiPath,
  type Reply,
} from '../helpers/surface-calls.js';

// DESIGN §6 and docs/decisions.md §12: a failed run on the HTTP API answers 500 with a JSON body
// `{"error": string}`. A handler failure (the script's own error, a model error, no model
// configured) carries the handler's message and the run id in X-Run-Id; an unexpected failure
// (a broken sandbox or model adapter) carries only a generic message with the request id — never
// the cause's message or a stack trace. The activity entry records the same.

/** Text of an unexpected failure; none of it may reach a caller. */
const CAUSE = 'worker heap corrupted at /srv/internal/sandbox/quickjs.worker.ts:87 (secret-token-123)';

function expectJsonError(r: Reply, status: number): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.headers.get('content-type') ?? '').to.match(/^application\/json/);
  expect(r.json, r.text).to.be.an('object');
  expect(Object.keys(r.json), r.text).to.deep.equal(['error']);
  expect(r.json.error).to.be.a('string').and.not.equal('');
}

/** No trace of the cause: its message, a source path or a stack frame. */
function expectNoCause(text: string): void {
  expect(text).to.not.contain('worker heap corrupted');
  expect(text).to.not.contain('secret-token-123');
  expect(text).to.not.contain('/srv/internal');
  expect(text).to.not.match(/\.ts:\d+|\bat \S+ \(/);
}

describe('HTTP API: the 500 body of a failed run', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  describe("handler failures carry the handler's message and the run id", () => {
    it("a script's own thrown error: 500 {error: the script's message}, X-Run-Id, no stack trace; the activity entry agrees", async () => {
      const agent = await createAgent(ws.adminToken);
      const key = await createAgentKey(ws.adminToken, agent);
      const script = `function ship(order) {
        if (!order.inStock) throw new Error('Order ' + order.id + ' cannot be shipped: out of stock');
        return 'shipped';
      }
      return ship(input);`;
      await addHttpEndpoint(ws.adminToken, agent, { path: 'ship', handler: { script } });

      const r = await call('POST', httpApiPath(agent, 'ship'), { key, json: { id: 7, inStock: false } });
      expectJsonError(r, 500);
      expect(r.json).to.deep.equal({ error: 'Error: Order 7 cannot be shipped: out of stock (line 2, column 44)' });
      const runId = r.headers.get('x-run-id');
      expect(runId).to.be.a('string').and.match(/^run_/);

      const ok = await call('POST', httpApiPath(agent, 'ship'), { key, json: { id: 8, inStock: true } });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.json.output).to.equal('shipped');

      const failed = (await activityOf(ws.adminToken, agent)).find((e) => e.runId === runId);
      expect(failed, 'activity entry of the failed run').to.not.equal(undefined);
      expect(failed).to.deep.include({
        surface: 'HTTP_API',
        entry: 'ship',
        status: 500,
        error: 'Error: Order 7 cannot be shipped: out of stock (line 2, column 44)',
      });
    });

    // The provider's own text can quote credentials or account details: callers get the kind and
    // the status, members the text (credentials removed) in the activity log.
    it("a model provider failure: 500 with a message giving the provider's status, and X-Run-Id; the activity entry holds the provider's text", async () => {
      const agent = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      const key = await createAgentKey(ws.adminToken, agent);
      await addHttpEndpoint(ws.adminToken, agent, { path: 'ask', handler: { prompt: 'Answer.' } });
      fake.enqueue({
        status: 400,
        errorBody: {
          error: { message: 'context length exceeded', type: 'invalid_request_error', param: null, code: null },
        },
      });

      const r = await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'why' } });
      expectJsonError(r, 500);
      expect(r.json).to.deep.equal({
        error: "The model provider failed (HTTP 400); the details are in the agent's activity log",
      });
      const runId = r.headers.get('x-run-id');
      expect(runId).to.match(/^run_/);
      const entry = (await activityOf(ws.adminToken, agent)).find((e) => e.runId === runId);
      expect(entry?.error).to.contain('openai-compatible').and.contain('400').and.contain('context length exceeded');
    });

    it('no model configured: 500 with a message naming what to configure', async () => {
      const bare = await newWorkspace();
      const agent = await createAgent(bare.adminToken);
      const key = await createAgentKey(bare.adminToken, agent);
      await addHttpEndpoint(bare.adminToken, agent, { path: 'ask', handler: { prompt: 'Answer.' } });

      const r = await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'why' } });
      expectJsonError(r, 500);
      expect(r.json.error)
        .to.match(/No model configured/)
        .and.match(/configureModel/);
      expect(r.headers.get('x-run-id')).to.match(/^run_/);
      expect(fake.requests).to.have.length(0);
    });
  });

  describe('unexpected failures carry a generic message only', () => {
    let broken: Service;
    let url: string;

    // The same composition root on the same database, with a sandbox and a model adapter that fail
    // the way a bug or a crashed dependency would: a plain Error, not a ScriptFailure/ModelFailure.
    const failingSandbox: ScriptSandbox = {
      run: async () => {
        throw new Error(CAUSE);
      },
    };
    const failingModels: LanguageModels = {
      generate: async () => {
        throw new TypeError(CAUSE);
      },
      // eslint-disable-next-line require-yield
      stream: async function* (): AsyncGenerator<ModelEvent> {
        throw new TypeError(CAUSE);
      },
    };

    before(async () => {
      broken = await buildService(h().config, {
        db: h().db,
        skipMigrations: true,
        logger: createLogger('silent'),
        sandbox: failingSandbox,
        models: failingModels,
        housekeepingMs: 0,
      });
      url = (await broken.listen(0, '127.0.0.1')).url;
    });
    after(async () => broken?.close());

    async function brokenActivity(agentId: string) {
      await broken.services.activityLog.flush();
      return activityOf(ws.adminToken, agentId);
    }

    /** 500 `{error: "Internal server error (request <id>)"}`, the id being this response's X-Request-Id. */
    function expectGeneric500(r: Reply): void {
      expectJsonError(r, 500);
      const requestId = r.headers.get('x-request-id');
      expect(requestId).to.match(/^[0-9a-f-]{36}$/);
      expect(r.json.error).to.equal(`Internal server error (request ${requestId})`);
      expectNoCause(r.text);
    }

    it('a sandbox that breaks: 500 {error: "Internal server error (request …)"}, no cause, no stack; the activity entry holds no cause either', async () => {
      const agent = await createAgent(ws.adminToken);
      const key = await createAgentKey(ws.adminToken, agent);
      await addHttpEndpoint(ws.adminToken, agent, { path: 'work', handler: { script: 'return 1' } });

      const r = await call('POST', httpApiPath(agent, 'work'), { key, json: { a: 1 }, baseUrl: url });
      expectGeneric500(r);

      const entries = await brokenActivity(agent);
      expect(entries).to.have.length(1);
      expect(entries[0]).to.deep.include({
        surface: 'HTTP_API',
        entry: 'work',
        status: 500,
        error: 'Internal server error',
      });
      expectNoCause(JSON.stringify(entries[0]));
    });

    // An unexpected failure inside the script host API (here the record store throwing a plain
    // Error, as a dropped database connection does) reaches the script only as "failed
    // unexpectedly", never with the cause's message.
    it("a store failure inside documents.* reaches neither the script nor the caller with the cause's message", async () => {
      const agent = await createAgent(ws.adminToken);
      const key = await createAgentKey(ws.adminToken, agent);
      const doc = await createDocument(ws.adminToken, agent, {
        name: 'Orders',
        kind: 'DATABASE',
        fields: [{ name: 'sku', type: 'STRING' }],
      });
      await addHttpEndpoint(ws.adminToken, agent, {
        path: 'peek',
        handler: { script: 'return await documents.query(input.documentId, {})' },
      });
      await addHttpEndpoint(ws.adminToken, agent, {
        path: 'catch',
        handler: {
          script:
            'try { await documents.query(input.documentId, {}); return "read"; } catch (e) { return String(e.message); }',
        },
      });
      const records = h().service.store.repos.records;
      const original = records.query;
      records.query = async () => {
        throw new Error(CAUSE);
      };
      try {
        const uncaught = await call('POST', httpApiPath(agent, 'peek'), { key, json: { documentId: doc } });
        expectJsonError(uncaught, 500);
        expectNoCause(uncaught.text);
        const caught = await call('POST', httpApiPath(agent, 'catch'), { key, json: { documentId: doc } });
        expect(caught.status, caught.text).to.equal(200);
        expect(caught.json.output).to.be.a('string').and.not.equal('');
        expectNoCause(caught.text);
      } finally {
        records.query = original;
      }
      const entries = await activityOf(ws.adminToken, agent);
      expectNoCause(JSON.stringify(entries));
    });

    it('a model adapter that breaks: 500 with the generic message, also when the caller asks for a stream', async () => {
      const agent = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      const key = await createAgentKey(ws.adminToken, agent);
      await addHttpEndpoint(ws.adminToken, agent, { path: 'ask', handler: { prompt: 'Answer.' } });

      expectGeneric500(await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'why' }, baseUrl: url }));
      expectGeneric500(
        await call('POST', httpApiPath(agent, 'ask'), {
          key,
          json: { q: 'why' },
          baseUrl: url,
          headers: { accept: 'text/event-stream' },
        }),
      );

      const entries = await brokenActivity(agent);
      expect(entries.map((e) => [e.status, e.error])).to.deep.equal([
        [500, 'Internal server error'],
        [500, 'Internal server error'],
      ]);
      expectNoCause(JSON.stringify(entries));
    });
  });
});
