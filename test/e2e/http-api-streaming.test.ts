import { expect } from 'chai';
import { createLogger } from '../../src/infra/logger.js';
import type { LanguageModels, ModelEvent } from '../../src/domain/models/language-model.ports.js';
import { buildService, type Service } from '../../src/server.js';
import { createAgent, h, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi } from '../helpers/openai-server.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import {
  activityOf,
  addHttpEndpoint,
  call,
  createAgentKey,
  httpApiPath,
  type ActivityNode,
  type Reply,
} from '../helpers/surface-calls.js';

// Issue 15, deliverable 8: every streamed answer names its run in X-Run-Id before the first event;
// a script endpoint asked for an event stream answers with one `done` event (the prompt streams'
// format); a stream that fails after its 200 is in the activity log with that 200 and the failure
// itself — neither a 500 that was never sent nor a success.

interface SseEvent {
  event: string;
  data: any;
}

/** Parses a complete `text/event-stream` body into its events (comments dropped). */
function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return { event, data: data === undefined ? undefined : JSON.parse(data) };
    });
}

const SSE = { accept: 'text/event-stream' };

function expectStream(r: Reply): SseEvent[] {
  expect(r.status, r.text).to.equal(200);
  expect(r.headers.get('content-type')).to.match(/^text\/event-stream/);
  return parseSse(r.text);
}

async function entryOf(token: string, agent: string, runId: string | null, baseUrl?: Service): Promise<ActivityNode> {
  if (baseUrl) await baseUrl.services.activityLog.flush();
  const entry = (await activityOf(token, agent)).find((e) => e.runId === runId);
  expect(entry, `activity entry of run ${runId}`).to.not.equal(undefined);
  return entry!;
}

describe('Streamed answers: X-Run-Id, script streams and the outcome of a failed stream', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  async function agentWith(handler: Record<string, string>, path = 'ask'): Promise<{ agent: string; key: string }> {
    const agent = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
    const key = await createAgentKey(ws.adminToken, agent);
    await addHttpEndpoint(ws.adminToken, agent, { path, handler });
    return { agent, key };
  }

  describe('X-Run-Id on every stream', () => {
    it("a prompt endpoint streamed on the HTTP API: X-Run-Id equals the done event's runId and the activity entry's", async () => {
      const { agent, key } = await agentWith({ prompt: 'Answer briefly.' });
      fake.enqueue({ text: 'one two three' });
      const r = await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'count' }, headers: SSE });
      const events = expectStream(r);
      const runId = r.headers.get('x-run-id');
      expect(runId).to.match(/^run_/);
      expect(events.at(-1)).to.deep.include({ event: 'done' });
      expect(events.at(-1)!.data).to.deep.include({ output: 'one two three', runId });
      const entry = await entryOf(ws.adminToken, agent, runId);
      expect(entry).to.deep.include({ status: 200, error: null });
    });

    it("the chat stream: X-Run-Id equals the start event's runId and the activity entry's", async () => {
      const agent = await createAgent(ws.adminToken, { defaultModel: 'test-model' });
      const key = await createAgentKey(ws.adminToken, agent);
      fake.enqueue({ text: 'Hello there.' });
      const r = await call('POST', `/agents/${agent}/chat`, { key, json: { message: 'Hi' } });
      const events = expectStream(r);
      const runId = r.headers.get('x-run-id');
      expect(runId).to.match(/^run_/);
      expect(events[0]).to.deep.include({ event: 'start' });
      expect(events[0]!.data.runId).to.equal(runId);
      expect((await entryOf(ws.adminToken, agent, runId)).status).to.equal(200);
      // The one-answer form of the chat names its run the same way.
      fake.enqueue({ text: 'Hello again.' });
      const json = await call('POST', `/agents/${agent}/chat`, {
        key,
        json: { message: 'Hi' },
        headers: { accept: 'application/json' },
      });
      expect(json.headers.get('x-run-id')).to.equal(json.json.runId);
    });
  });

  describe('a script endpoint asked for an event stream', () => {
    it('answers one done event {output, runId, credits}, with X-Run-Id', async () => {
      const { agent, key } = await agentWith({ script: 'return { sum: input.a + input.b }' }, 'sum');
      const r = await call('POST', httpApiPath(agent, 'sum'), { key, json: { a: 2, b: 3 }, headers: SSE });
      const events = expectStream(r);
      const runId = r.headers.get('x-run-id');
      expect(events.map((e) => e.event)).to.deep.equal(['done']);
      const entry = await entryOf(ws.adminToken, agent, runId);
      expect(events[0]!.data).to.deep.equal({ output: { sum: 5 }, runId, credits: entry.credits });
      expect(entry).to.deep.include({ status: 200, error: null, response: { output: { sum: 5 } } });
    });

    it('a script that throws: one error event naming the line, recorded as that failure', async () => {
      const { agent, key } = await agentWith({ script: 'const x = 1;\nreturn input.missing.value;' }, 'boom');
      const r = await call('POST', httpApiPath(agent, 'boom'), { key, json: {}, headers: SSE });
      const events = expectStream(r);
      const runId = r.headers.get('x-run-id');
      const message = "TypeError: cannot read property 'value' of undefined (line 2, column 21)";
      expect(events).to.deep.equal([{ event: 'error', data: { error: message, runId } }]);
      expect(await entryOf(ws.adminToken, agent, runId)).to.deep.include({
        status: 200,
        error: message,
        response: { error: message },
      });
    });
  });

  describe('a stream that fails after its 200', () => {
    it('a model that breaks off mid-stream: deltas, then an error event; the entry has the 200 sent and the model failure', async () => {
      const { agent, key } = await agentWith({ prompt: 'Answer at length.' });
      fake.enqueue({ text: 'alpha beta gamma delta epsilon zeta', failAfterChunks: 2 });
      const r = await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'go' }, headers: SSE });
      const events = expectStream(r);
      const runId = r.headers.get('x-run-id');
      expect(
        events.map((e) => e.event),
        r.text,
      ).to.include('error');
      expect(
        events
          .filter((e) => e.event === 'delta')
          .map((e) => e.data.text)
          .join(''),
      ).to.equal('alpha beta ');
      const last = events.at(-1)!;
      expect(last.event).to.equal('error');
      expect(last.data.runId).to.equal(runId);
      const entry = await entryOf(ws.adminToken, agent, runId);
      expect(entry.status, 'the status the client got, not a 500 nobody sent').to.equal(200);
      expect(entry.error, 'the failure, not a success').to.be.a('string').and.not.equal('');
      expect(entry.response).to.deep.equal({ error: last.data.error });
      expect(entry.response).to.not.have.property('output');
    });

    it('a handler that throws after the first event: the entry has the 200 sent and "The run failed", no cause', async () => {
      // The same composition root on the same database, with a model adapter that breaks the way a
      // bug would (a plain Error, not a ModelFailure) after its first delta.
      const CAUSE = 'adapter state corrupted (secret-cause-42)';
      const breaking: LanguageModels = {
        generate: async () => {
          throw new TypeError(CAUSE);
        },
        stream: async function* (): AsyncGenerator<ModelEvent> {
          yield { type: 'delta', text: 'Partial ' };
          throw new TypeError(CAUSE);
        },
      };
      const broken = await buildService(h().config, {
        db: h().db,
        skipMigrations: true,
        logger: createLogger('silent'),
        models: breaking,
        housekeepingMs: 0,
      });
      try {
        const { url } = await broken.listen(0, '127.0.0.1');
        const { agent, key } = await agentWith({ prompt: 'Answer.' });
        const r = await call('POST', httpApiPath(agent, 'ask'), { key, json: { q: 'go' }, headers: SSE, baseUrl: url });
        const events = expectStream(r);
        const runId = r.headers.get('x-run-id');
        expect(events.map((e) => e.event)).to.deep.equal(['delta', 'error']);
        expect(events[1]!.data).to.deep.equal({ error: 'The run failed', runId });
        await broken.services.activityLog.flush();
        const entries = (await activityOf(ws.adminToken, agent)).filter((e) => e.entry === 'ask');
        expect(entries).to.have.length(1);
        expect(entries[0]).to.deep.include({
          status: 200,
          error: 'The run failed',
          response: { error: 'The run failed' },
        });
        expect(JSON.stringify(entries[0])).to.not.contain('secret-cause-42');
      } finally {
        await broken.close();
      }
    });
  });
});
