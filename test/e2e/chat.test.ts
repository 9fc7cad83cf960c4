import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { startModelGate, type ModelGate } from '../helpers/model-gate.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The chat endpoints the widget's proxy forwards to, over real HTTP against the service started in
// the test process (embedded database, or PostgreSQL with TEST_DATABASE_URL), answering from the
// local OpenAI-compatible model server.

const ADMIN_TOKEN = 'chat-e2e-admin-token-0123456789'; // 31 characters

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

describe('e2e: chat endpoints', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let gate: ModelGate;
  let agent: string;
  let key: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  const chat = (
    agentId: string,
    body: unknown,
    opts: { key?: string; accept?: string; visitor?: string; signal?: AbortSignal } = {},
  ) =>
    fetch(`${svc.url}/agents/${agentId}/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(opts.key === undefined
          ? { 'x-agent-access-key': key }
          : opts.key
            ? { 'x-agent-access-key': opts.key }
            : {}),
        ...(opts.accept ? { accept: opts.accept } : {}),
        ...(opts.visitor ? { 'x-visitor-id': opts.visitor } : {}),
      },
      body: JSON.stringify(body),
      signal: opts.signal,
    });
  const history = (agentId: string, conversationId: string, visitor?: string) =>
    fetch(`${svc.url}/agents/${agentId}/chat/${conversationId}`, {
      headers: { 'x-agent-access-key': key, ...(visitor ? { 'x-visitor-id': visitor } : {}) },
    });

  async function newAgent(name: string, input: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: { name, instructions: 'You are the helpful shop assistant.', defaultModel: 'fake-model', ...input },
      })
    ).createAgent.id;
    const k = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key;
    return { id, key: k };
  }

  before(async () => {
    // A short keep-alive interval, so that a held model call shows the comments within the test.
    svc = await startE2eService('chat_e2e', {
      adminToken: ADMIN_TOKEN,
      build: { chatKeepAliveMs: 25 },
      modelProxy: async (fake) => (gate = await startModelGate(fake)),
    });
    ({ id: agent, key } = await newAgent('Shop'));
  });

  after(async () => {
    await svc?.stop();
  });

  it('streams start {conversationId, runId}, delta {text}… and done {output, credits}, then keeps both turns in the history', async () => {
    svc.fake.enqueue({ text: 'Hello there, how can I help you today?' });
    const r = await chat(agent, { message: 'Hi!' });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(r.headers.get('x-accel-buffering')).to.equal('no');
    const events = parseSse(await r.text());
    expect(events[0]!.event).to.equal('start');
    expect(events[0]!.data.conversationId).to.match(/^conv_[A-Za-z0-9_-]{32}$/);
    expect(events[0]!.data.runId).to.match(/^run_/);
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length, 'the answer arrives in pieces').to.be.above(1);
    expect(deltas.map((e) => e.data.text).join('')).to.equal('Hello there, how can I help you today?');
    const done = events.at(-1)!;
    expect(done.event).to.equal('done');
    expect(done.data).to.deep.include({ output: 'Hello there, how can I help you today?' });
    expect(done.data.credits).to.be.a('number');
    expect(events.map((e) => e.event).filter((e) => e !== 'delta')).to.deep.equal(['start', 'done']);

    const h = await history(agent, events[0]!.data.conversationId);
    expect(h.status).to.equal(200);
    const { messages } = (await h.json()) as { messages: { role: string; content: string; createdAt: string }[] };
    expect(messages.map((m) => [m.role, m.content])).to.deep.equal([
      ['user', 'Hi!'],
      ['assistant', 'Hello there, how can I help you today?'],
    ]);
    expect(new Date(messages[0]!.createdAt).getTime()).to.be.at.most(new Date(messages[1]!.createdAt).getTime());
  });

  it('continues a conversation: the model sees the instructions and the earlier turns; Accept: application/json gives one answer', async () => {
    svc.fake.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    const first = (await (await chat(agent, { message: 'One' }, { accept: 'application/json' })).json()) as any;
    expect(first).to.include({ output: 'First answer.' });
    expect(first.conversationId).to.match(/^conv_/);
    expect(first.runId).to.match(/^run_/);
    const r = await chat(
      agent,
      { message: 'Two', conversationId: first.conversationId },
      { accept: 'application/json' },
    );
    expect(r.status).to.equal(200);
    const second = (await r.json()) as any;
    expect(second).to.include({ conversationId: first.conversationId, output: 'Second answer.' });
    const sent = svc.fake.requests
      .at(-1)!
      .body.messages!.map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]);
    expect(sent[0]![0]).to.equal('system');
    expect(sent[0]![1]).to.include('helpful shop assistant');
    expect(sent.slice(1)).to.deep.equal([
      ['user', 'One'],
      ['assistant', 'First answer.'],
      ['user', 'Two'],
    ]);
  });

  it("refuses another visitor's conversation and an unknown one with 404, in both endpoints", async () => {
    svc.fake.enqueue({ text: 'Private.' });
    const mine = (await (
      await chat(agent, { message: 'Mine' }, { accept: 'application/json', visitor: 'visitor-a' })
    ).json()) as any;
    expect((await history(agent, mine.conversationId, 'visitor-a')).status).to.equal(200);
    expect((await history(agent, mine.conversationId, 'visitor-b')).status).to.equal(404);
    expect((await history(agent, mine.conversationId)).status, 'no visitor is another visitor').to.equal(404);
    const other = await chat(
      agent,
      { message: 'Let me in', conversationId: mine.conversationId },
      { accept: 'application/json', visitor: 'visitor-b' },
    );
    expect(other.status).to.equal(404);
    expect(((await other.json()) as any).error).to.match(/Conversation/);
    expect((await chat(agent, { message: 'x', conversationId: 'conv_doesnotexist' })).status).to.equal(404);
    const { id: otherAgent, key: otherKey } = await newAgent('Other');
    const cross = await fetch(`${svc.url}/agents/${otherAgent}/chat/${mine.conversationId}`, {
      headers: { 'x-agent-access-key': otherKey, 'x-visitor-id': 'visitor-a' },
    });
    expect(cross.status, "another agent's conversation").to.equal(404);
  });

  it('answers 400 for a missing or empty message, 401 without a key, 403 with the widget surface off, 429 as JSON before any stream', async () => {
    expect((await chat(agent, {})).status).to.equal(400);
    expect((await chat(agent, { message: '   ' })).status).to.equal(400);
    expect((await chat(agent, { message: 'hi' }, { key: '' })).status).to.equal(401);
    const off = await newAgent('Off');
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: WIDGET, enabled: false) { id } }', { a: off.id });
    expect((await chat(off.id, { message: 'hi' }, { key: off.key })).status).to.equal(403);
    const capped = await newAgent('Capped');
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: capped.id });
    const limited = await chat(capped.id, { message: 'hi' }, { key: capped.key });
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('content-type')).to.match(/^application\/json/);
    expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    expect(((await limited.json()) as any).reason).to.equal('daily_credit_limit');
  });

  it('answers a lone surrogate, and refuses 3,000-deep JSON (400) and a body over 1 MiB (413) before any run', async () => {
    svc.fake.enqueue({ text: 'Fine.' });
    const lone = await fetch(`${svc.url}/agents/${agent}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-agent-access-key': key },
      body: '{"message": "half a pair \\ud800 here"}',
    });
    expect(lone.status, await lone.clone().text()).to.equal(200);
    const runs = svc.fake.requests.length;
    const deep = await fetch(`${svc.url}/agents/${agent}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
      body: '['.repeat(3000) + ']'.repeat(3000),
    });
    expect(deep.status).to.equal(400);
    const big = await chat(agent, { message: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.status).to.equal(413);
    expect(svc.fake.requests.length, 'no model call for a refused request').to.equal(runs);
  });

  it('a visitor who goes away mid-stream cancels the run and frees its concurrency slot', async () => {
    const held = await newAgent('Held');
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, maxConcurrentRequests: 1) { id } }', { a: held.id });
    const slots = () => svc.service.store.repos.slots.countActive(held.id, new Date());
    gate.shut();
    try {
      svc.fake.enqueue({ text: 'This answer is never read.' });
      const ac = new AbortController();
      const r = await chat(held.id, { message: 'Going away' }, { key: held.key, signal: ac.signal });
      expect(r.status).to.equal(200);
      const reader = r.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).to.include('event: start');
      expect(await slots()).to.equal(1);
      const busy = await chat(held.id, { message: 'Me too' }, { key: held.key });
      expect(busy.status, 'the one slot is taken').to.equal(429);
      ac.abort();
    } finally {
      gate.open();
    }
    const deadline = Date.now() + 30_000;
    while ((await slots()) !== 0) {
      if (Date.now() > deadline) throw new Error('the slot was not released');
      await new Promise((res) => setTimeout(res, 50));
    }
    await svc.fake.idle();
  });

  it('keeps a quiet stream open with keep-alive comments until the answer comes', async () => {
    gate.shut();
    let text = '';
    try {
      svc.fake.enqueue({ text: 'Worth the wait.' });
      const r = await chat(agent, { message: 'Take your time' });
      expect(r.status).to.equal(200);
      const reader = r.body!.getReader();
      const decoder = new TextDecoder();
      while (!text.includes(': keep-alive\n\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before any keep-alive: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
      expect(text, 'the model is still held').not.to.include('event: delta');
      gate.open();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += decoder.decode(chunk.value, { stream: true });
    } finally {
      gate.open();
    }
    const events = parseSse(text);
    expect(events[0]!.event).to.equal('start');
    expect(events.at(-1)).to.deep.include({ event: 'done' });
    expect(events.at(-1)!.data.output).to.equal('Worth the wait.');
  });

  it('serves /widget.js without a key: gzip when asked, cached for minutes and revalidated by ETag', async () => {
    const plain = await fetch(`${svc.url}/widget.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('content-type')).to.match(/^application\/javascript/);
    expect(plain.headers.get('cache-control')).to.equal('public, max-age=300');
    expect(plain.headers.get('content-encoding')).to.equal(null);
    const code = await plain.text();
    expect(code).to.include('Open chat');
    const etag = plain.headers.get('etag')!;
    expect(etag).to.match(/^"[A-Za-z0-9_-]{20,}"$/);

    // Over plain http: fetch() adds an Accept-Encoding of its own and, with If-None-Match,
    // `Cache-Control: no-cache`, which rightly asks for the full answer.
    const get = (headers: Record<string, string>) =>
      new Promise<{ status: number; encoding?: string; body: Buffer }>((resolve, reject) => {
        http.get(`${svc.url}/widget.js`, { headers }, (res) => {
          const parts: Buffer[] = [];
          res
            .on('data', (c: Buffer) => parts.push(c))
            .on('end', () =>
              resolve({
                status: res.statusCode!,
                encoding: res.headers['content-encoding'],
                body: Buffer.concat(parts),
              }),
            )
            .on('error', reject);
        });
      });
    const zipped = await get({ 'accept-encoding': 'gzip' });
    expect(zipped.encoding).to.equal('gzip');
    expect(gunzipSync(zipped.body).toString('utf8')).to.equal(code);
    expect(zipped.body.length, 'the gzipped widget stays under 15 KB').to.be.below(15 * 1024);
    const again = await get({ 'if-none-match': etag });
    expect(again.status).to.equal(304);
    expect(again.body.length).to.equal(0);
  });

  it('logs each request on the WIDGET surface with its run', async () => {
    const logged = await newAgent('Logged');
    svc.fake.enqueue({ text: 'Logged answer.' });
    const r = (await (
      await chat(logged.id, { message: 'Log me' }, { key: logged.key, accept: 'application/json' })
    ).json()) as any;
    await svc.service.services.activityLog.flush();
    const d = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 10) { nodes { surface entry status runId requestBody response } } } }',
      { a: logged.id },
    );
    const [entry] = d.agent.activity.nodes;
    expect(entry).to.deep.include({ surface: 'WIDGET', entry: 'chat', status: 200, runId: r.runId });
    expect(entry.requestBody).to.deep.equal({ message: 'Log me' });
  });
});
