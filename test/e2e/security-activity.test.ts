import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/infra/logger.js';
import { MAX_JSON_DEPTH } from '../../src/domain/json-depth.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { call as send, type Reply } from '../helpers/surface-calls.js';

// Security findings 6 and 7 of "Surface core", reproduced against the service as `npm start`
// builds it (in-process, embedded database, or PostgreSQL with TEST_DATABASE_URL):
// 6. every request reaches the activity log, whatever its body holds: a lone surrogate, nesting
//    thousands of levels deep (refused with 400, still logged), a script output as deep (500);
// 7. a model provider's error text (which can quote credentials written into a model's base URL,
//    or the key the provider refused) never reaches an API-key caller, and reaches the activity
//    log and the service log only with its credentials removed.

const ADMIN_TOKEN = 'security-activity-admin-token-0'; // 31 characters
const PLATFORM = 'https://app.example.test';

/** `[[[…]]]` nested `levels` deep, as JSON text. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** Levels of arrays and objects in a JSON value. */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...children.map(depthOf));
}

/** The innermost value of `[[[x]]]`. */
function innermost(v: unknown): unknown {
  let at = v;
  while (Array.isArray(at)) at = at[0];
  return at;
}

interface Entry {
  status: number;
  error: string | null;
  requestBody: unknown;
  response: unknown;
  truncated: boolean;
}

describe('e2e security: the activity log keeps every request; provider errors stay with members', function () {
  this.timeout(180_000);
  const logLines: string[] = [];
  let svc: E2eService;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  const call = (method: string, p: string, opts: Parameters<typeof send>[2] = {}): Promise<Reply> =>
    send(method, p, { ...opts, baseUrl: svc.url });

  /** An agent (default model `model`) with a key and one HTTP endpoint `path` running `handler`. */
  async function agentWith(
    handler: Record<string, string>,
    model = 'fake-model',
  ): Promise<{ id: string; key: string; url: string }> {
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name: 'Security agent', defaultModel: model },
      })
    ).createAgent.id as string;
    const key = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key as string;
    await gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: id,
      i: { path: 'run', handler },
    });
    return { id, key, url: `/agents/${id}/api/run` };
  }

  /** The agent's activity entries, oldest first, once everything buffered is stored. */
  async function entries(agentId: string): Promise<Entry[]> {
    await svc.service.services.activityLog.flush();
    const d = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 100) { nodes { status error requestBody response truncated } } } }',
      { a: agentId },
    );
    return (d.agent.activity.nodes as Entry[]).reverse();
  }

  before(async () => {
    const logger = createLogger(
      'debug',
      new Writable({ write: (chunk, _enc, cb) => (logLines.push(String(chunk)), cb()) }),
    );
    svc = await startE2eService('sec_activity', { adminToken: ADMIN_TOKEN, platformOrigin: PLATFORM, logger });
  });

  after(async () => {
    await svc?.stop();
  });

  beforeEach(() => svc.fake.reset());

  describe('finding 6: every request is logged', () => {
    for (const [kind, handler] of [
      ['script', { script: 'return input' }],
      ['prompt', { prompt: 'Answer briefly.' }],
    ] as const) {
      it(`${kind} handler: plain, lone surrogate and 3,000-deep bodies in a row answer 200, 200, 400 and give three entries`, async () => {
        const agent = await agentWith(handler);

        const plain = await call('POST', agent.url, { key: agent.key, raw: '{"t":"plain"}' });
        const surrogate = await call('POST', agent.url, { key: agent.key, raw: '{"t":"\\ud800"}' });
        const deep = await call('POST', agent.url, { key: agent.key, raw: nested(3000) });

        expect([plain.status, surrogate.status, deep.status], deep.text.slice(0, 300)).to.deep.equal([200, 200, 400]);
        expect(Object.keys(deep.json)).to.deep.equal(['error']);
        expect(deep.json.error).to.contain(`${MAX_JSON_DEPTH} levels`);
        const log = await entries(agent.id);
        expect(log.map((e) => e.status)).to.deep.equal([200, 200, 400]);
        expect(log[0]!.requestBody).to.deep.equal({ t: 'plain' });
        expect(log[1]!.requestBody).to.deep.equal({ t: '\uFFFD' });
        expect(log[2]).to.deep.include({ requestBody: null, error: deep.json.error });
        if (kind === 'script')
          expect(log[1]!.response).to.deep.equal({
            output: { t: '\uFFFD' },
            runId: surrogate.json.runId,
            credits: surrogate.json.credits,
          });
      });
    }

    it(`the limit is ${MAX_JSON_DEPTH} levels: ${MAX_JSON_DEPTH} run, ${MAX_JSON_DEPTH + 1} are refused with 400 naming the limit, also on the Document API`, async () => {
      const agent = await agentWith({ script: 'return input' });

      const atLimit = await call('POST', agent.url, { key: agent.key, raw: nested(MAX_JSON_DEPTH) });
      expect(atLimit.status, atLimit.text).to.equal(200);
      expect(depthOf(atLimit.json.output)).to.equal(MAX_JSON_DEPTH);
      const over = await call('POST', agent.url, { key: agent.key, raw: nested(MAX_JSON_DEPTH + 1) });
      expect(over.status, over.text).to.equal(400);
      expect(over.json.error).to.contain(`${MAX_JSON_DEPTH} levels`);
      // Brackets inside strings are text, not nesting.
      const inString = await call('POST', agent.url, { key: agent.key, json: { text: nested(500), quote: '\\"[[[' } });
      expect(inString.status, inString.text).to.equal(200);

      const doc = (
        await gql('mutation($a: ID!, $i: DocumentInput!) { createDocument(agentId: $a, input: $i) { id } }', {
          a: agent.id,
          i: { name: 'Notes', kind: 'DATABASE', fields: [{ name: 'n', type: 'JSON' }] },
        })
      ).createDocument.id as string;
      await gql(
        'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } }',
        { a: agent.id, d: doc },
      );
      const insert = await call('POST', `/agents/${agent.id}/documents/${doc}/data/insert`, {
        key: agent.key,
        raw: `{"items":[{"n":${nested(3000)}}]}`,
      });
      expect(insert.status, insert.text).to.equal(400);
      expect(insert.json.error).to.contain(`${MAX_JSON_DEPTH} levels`);
    });

    it(`a script output nested more than ${MAX_JSON_DEPTH} levels deep: 500 naming the limit (not a bare "Internal Server Error"), and logged`, async () => {
      const agent = await agentWith({ script: "let v = 'leaf'; for (let i = 0; i < input.n; i++) v = [v]; return v;" });

      const atLimit = await call('POST', agent.url, { key: agent.key, json: { n: MAX_JSON_DEPTH } });
      const deep = await call('POST', agent.url, { key: agent.key, json: { n: 3000 } });

      expect(atLimit.status, atLimit.text).to.equal(200);
      expect(depthOf(atLimit.json.output)).to.equal(MAX_JSON_DEPTH);
      expect(innermost(atLimit.json.output)).to.equal('leaf');
      expect(deep.status, deep.text.slice(0, 200)).to.equal(500);
      expect(deep.json).to.deep.equal({ error: `Script returned a value nested deeper than ${MAX_JSON_DEPTH} levels` });
      const log = await entries(agent.id);
      expect(log.map((e) => [e.status, e.error])).to.deep.equal([
        [200, null],
        [500, deep.json.error],
      ]);
    });
  });

  describe('finding 7: a provider error reaches callers without its text, members without credentials', () => {
    const PROVIDER_KEY = 'sk-test-provider-key-4c7e9a1b';
    const PROVIDER_TEXT = 'PROVIDER-TEXT-7731';

    async function configureModel(input: Record<string, unknown>): Promise<void> {
      await gql('mutation($i: ConfigureModelInput!) { configureModel(input: $i) { id } }', { i: input });
    }

    /** No trace of a credential or of the provider's own words. */
    function expectPublic(text: string): void {
      expect(text).to.not.contain('secret');
      expect(text).to.not.contain(PROVIDER_KEY);
      expect(text).to.not.contain(PROVIDER_TEXT);
      expect(text).to.not.contain('127.0.0.1');
    }

    /** Log lines written while `run` ran. */
    async function logDuring(run: () => Promise<void>): Promise<string[]> {
      const from = logLines.length;
      await run();
      await svc.service.services.activityLog.flush();
      return logLines.slice(from);
    }

    it('a base URL holding user:secret@: 500 with a generic message; entry and log lines name the failure without the secret', async () => {
      await configureModel({
        name: 'creds-in-url',
        provider: 'OPENAI_COMPATIBLE',
        model: 'fake-model',
        baseUrl: svc.fake.url.replace('http://', 'http://user:secret-in-url@'),
      });
      const agent = await agentWith({ prompt: 'Answer.' }, 'creds-in-url');
      let plain!: Reply;
      let streamed!: Reply;

      const lines = await logDuring(async () => {
        plain = await call('POST', agent.url, { key: agent.key, json: { q: 'hi' } });
        streamed = await call('POST', agent.url, {
          key: agent.key,
          json: { q: 'hi' },
          headers: { accept: 'text/event-stream' },
        });
      });

      expect(plain.status).to.equal(500);
      expect(plain.json).to.deep.equal({ error: "The model call failed; the details are in the agent's activity log" });
      expectPublic(plain.text);
      expect(streamed.text).to.contain('event: error').and.contain("the details are in the agent's activity log");
      expectPublic(streamed.text);
      const log = await entries(agent.id);
      // The streamed answer sent its 200 before the model failed: its entry keeps that status, and
      // the failure in `error` like the plain one.
      expect(log.map((e) => e.status)).to.deep.equal([500, 200]);
      for (const e of log) {
        expect(e.error).to.contain('credentials').and.contain('http://[redacted]@127.0.0.1');
        expect(JSON.stringify(e)).to.not.contain('secret-in-url');
      }
      expect(lines.filter((l) => l.includes('model call failed'))).to.have.length(2);
      expect(lines.join('')).to.not.contain('secret-in-url');
    });

    for (const status of [401, 500]) {
      it(`a provider answering ${status} with text quoting the key and a URL with credentials: the caller gets the kind and the status only; members get the text without credentials`, async () => {
        await gql(
          'mutation($n: String!, $v: String!) { createSecret(name: $n, kind: MODEL_API_KEY, value: $v) { name } }',
          { n: `key-${status}`, v: PROVIDER_KEY },
        );
        await configureModel({
          name: `refusing-${status}`,
          provider: 'OPENAI_COMPATIBLE',
          model: 'fake-model',
          baseUrl: svc.fake.url,
          apiKeySecret: `key-${status}`,
        });
        const agent = await agentWith({ prompt: 'Answer.' }, `refusing-${status}`);
        const message = `${PROVIDER_TEXT}: key ${PROVIDER_KEY} refused; upstream https://admin:secret-upstream@10.0.0.7/v1 said Bearer secret-bearer-token`;
        // One retry on provider errors: the same answer twice.
        const turn = {
          status,
          errorBody: { error: { message, type: 'invalid_request_error', param: null, code: null } },
        };
        svc.fake.enqueue(turn, turn);
        let r!: Reply;

        const lines = await logDuring(async () => {
          r = await call('POST', agent.url, { key: agent.key, json: { q: 'hi' } });
        });

        expect(svc.fake.requests.length).to.be.greaterThan(0);
        expect(r.status).to.equal(500);
        expect(r.json).to.deep.equal({
          error: `The model provider failed (HTTP ${status}); the details are in the agent's activity log`,
        });
        expectPublic(r.text);
        const [entry] = await entries(agent.id);
        expect(entry!.status).to.equal(500);
        expect(entry!.error)
          .to.contain(PROVIDER_TEXT)
          .and.contain(String(status))
          .and.contain('https://[redacted]@10.0.0.7/v1');
        expect(JSON.stringify(entry)).to.not.contain(PROVIDER_KEY).and.not.contain('secret');
        const failed = lines.filter((l) => l.includes('model call failed'));
        expect(failed).to.have.length(1);
        expect(failed[0]).to.contain(PROVIDER_TEXT);
        expect(lines.join('')).to.not.contain(PROVIDER_KEY).and.not.contain('secret');
      });
    }
  });
});
