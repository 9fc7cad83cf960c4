import { expect } from 'chai';
import { Writable } from 'node:stream';
import { ActivityLog } from '../../src/domain/activity/activity-log.js';
import { systemClock } from '../../src/domain/clock.js';
import { bufferedActivitySink } from '../../src/infra/activity/buffered-sink.js';
import { createLogger } from '../../src/infra/logger.js';
import { translatePgError } from '../../src/infra/store/pg-errors.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent } from '../helpers/runtime.js';
import { newId } from '../../src/domain/ids.js';
import type { ActivityEntry } from '../../src/domain/activity/activity.entities.js';

// The buffered activity sink writes entries in batches. A batch the database refuses as a whole is
// retried entry by entry, so one bad entry costs only itself. Here the bad entry is a real one: it
// belongs to an agent deleted between the request and the write, which the database refuses
// (foreign key). The sink is the product's, over the harness store; nothing is mocked.

describe('activity sink: a batch with one bad entry', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;

  before(async () => {
    ws = await newWorkspace();
  });

  async function statuses(agentId: string): Promise<number[]> {
    const d = await gqlOk(
      ws.adminToken,
      'query($id: ID!) { agent(id: $id) { activity(first: 10) { nodes { status } } } }',
      { id: agentId },
    );
    return (d.agent.activity.nodes as { status: number }[]).map((n) => n.status).sort();
  }

  /** A sink over the real store whose log lines are kept, and an ActivityLog writing through it. */
  function sinkWithLog() {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    // A long delay: the entries below stay pending until flush() writes them as one batch.
    const sink = bufferedActivitySink(h().service.store, logger, { delayMs: 60_000 });
    const log = new ActivityLog(h().service.store, sink, systemClock);
    return { lines, sink, log };
  }

  /** Records an entry for a kept agent, one for an agent deleted meanwhile, another for the kept one. */
  async function writeBatchWithDeletedAgent(log: ActivityLog) {
    const kept = await loadAgent(await createAgent(ws.adminToken));
    const gone = await loadAgent(await createAgent(ws.adminToken));
    await gqlOk(ws.adminToken, 'mutation($id: ID!) { deleteAgent(id: $id) }', { id: gone.id });
    log.writeEntry(kept, { surface: 'HTTP_API', status: 201 });
    log.writeEntry(gone, {
      surface: 'HTTP_API',
      status: 500,
      requestBody: { note: 'body-of-the-refused-entry' },
      response: { output: 'response-of-the-refused-entry' },
    });
    log.writeEntry(kept, { surface: 'HTTP_API', status: 202 });
    return kept;
  }

  it('still stores the other entries of the batch', async () => {
    const { sink, log } = sinkWithLog();
    const kept = await writeBatchWithDeletedAgent(log);

    await sink.flush();

    expect(await statuses(kept.id)).to.deep.equal([201, 202]);
  });

  it('logs the refused entry once, without its request or response body', async () => {
    const { lines, sink, log } = sinkWithLog();
    await writeBatchWithDeletedAgent(log);

    await sink.flush();

    const failures = lines
      .map((l) => JSON.parse(l) as { msg: string; level: number; entries?: number })
      .filter((l) => l.msg === 'activity log write failed');
    expect(failures).to.have.length(1);
    expect(failures[0]).to.include({ level: 50, entries: 1 });
    const all = lines.join('');
    expect(all).to.not.contain('body-of-the-refused-entry');
    expect(all).to.not.contain('response-of-the-refused-entry');
  });

  // Whatever the database refuses in an entry's bodies (on PostgreSQL, jsonb nested past
  // max_stack_depth fails with 54001), the request stays on record: status, error, no bodies.
  it('an entry refused with its bodies is stored without them, and the log says so', async () => {
    const { store } = h().service;
    const refusingBodies = {
      ...store,
      repos: {
        ...store.repos,
        activity: {
          ...store.repos.activity,
          insertMany: async (entries: ActivityEntry[]) => {
            if (entries.some((e) => e.requestBody !== null))
              throw Object.assign(new Error('stack depth limit exceeded'), { code: '54001' });
            return store.repos.activity.insertMany(entries);
          },
        },
      },
    };
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const sink = bufferedActivitySink(refusingBodies, logger, { delayMs: 60_000 });
    const log = new ActivityLog(store, sink, systemClock);
    const agent = await loadAgent(await createAgent(ws.adminToken));

    log.writeEntry(agent, { surface: 'HTTP_API', status: 201 });
    log.writeEntry(agent, {
      surface: 'HTTP_API',
      status: 500,
      error: 'the handler failed',
      requestBody: { note: 'body-of-the-refused-entry' },
    });
    await sink.flush();

    const d = await gqlOk(
      ws.adminToken,
      'query($id: ID!) { agent(id: $id) { activity(first: 10) { nodes { status error requestBody truncated } } } }',
      { id: agent.id },
    );
    const nodes = (d.agent.activity.nodes as { status: number }[]).sort((a, b) => a.status - b.status);
    expect(nodes).to.deep.equal([
      { status: 201, error: null, requestBody: null, truncated: false },
      { status: 500, error: 'the handler failed', requestBody: null, truncated: true },
    ]);
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; level: number; code?: string });
    expect(logged.map((l) => [l.level, l.msg, l.code])).to.deep.equal([
      [40, 'activity log entry stored without its bodies', '54001'],
    ]);
    expect(lines.join('')).to.not.contain('body-of-the-refused-entry');
  });

  it('an entry written to the sink with a body too deep even to walk is stored without it', async () => {
    const { store } = h().service;
    const sink = bufferedActivitySink(store, createLogger('silent'), { delayMs: 60_000 });
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
    const entry: ActivityEntry = {
      id: newId('act'),
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      kind: 'request',
      surface: 'HTTP_API',
      entry: null,
      method: 'POST',
      path: '/x',
      status: 200,
      requestHeaders: null,
      requestBody: deep,
      response: null,
      truncated: false,
      credits: 0,
      durationMs: 1,
      keyId: null,
      oauthClientId: null,
      grantedBy: null,
      runId: null,
      requestId: null,
      error: null,
      logs: null,
      createdAt: new Date(),
      protocol: false,
      deliveryId: null,
    };

    expect(() => sink.write(entry)).to.not.throw();
    await sink.flush();

    expect(await statuses(agent.id)).to.deep.equal([200]);
  });
});

describe('activity sink: while the database cannot be reached', function () {
  this.timeout(30_000);

  it('keeps the entries and stores every one of them once the database is back', async () => {
    const ws = await newWorkspace();
    const real = h().service.store;
    // The real store, whose activity writes fail as an unreachable database fails them (a refused
    // connection, translated by the repositories) until `down` is cleared.
    let down = true;
    let refused = 0;
    const activity = new Proxy(real.repos.activity, {
      get: (target, k) =>
        k === 'insertMany'
          ? (entries: ActivityEntry[]) => {
              if (down) {
                refused++;
                return Promise.reject(
                  translatePgError(
                    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
                  ),
                );
              }
              return target.insertMany(entries);
            }
          : Reflect.get(target, k),
    });
    const store = { ...real, repos: { ...real.repos, activity } };
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const sink = bufferedActivitySink(store, logger, { delayMs: 5, retryMs: 50, maxBatch: 2 });
    const log = new ActivityLog(store, sink, systemClock);
    const agent = await loadAgent(await createAgent(ws.adminToken));

    for (const status of [201, 202, 203, 204, 205]) log.writeEntry(agent, { surface: 'HTTP_API', status });
    await sink.flush();
    // A few retries while it is still down.
    for (let i = 0; i < 250 && refused < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(refused).to.be.at.least(3);
    expect(sink.backlog().entries).to.equal(5);
    log.writeEntry(agent, { surface: 'HTTP_API', status: 206 }); // written during the outage too

    down = false;
    for (let i = 0; i < 50 && sink.backlog().entries > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const stored = (await h().db('activity_log').where({ agent_id: agent.id }).select('status')) as {
      status: number;
    }[];
    expect(stored.map((r) => r.status).sort()).to.deep.equal([201, 202, 203, 204, 205, 206]);
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.filter((m) => m.includes('cannot be reached'))).to.have.length(1);
    expect(messages.some((m) => m.includes('is back'))).to.equal(true);
    expect(messages.filter((m) => m.includes('write failed'))).to.deep.equal([]);
  });
});

describe('activity sink: a batch stored whose acknowledgement was lost', function () {
  this.timeout(30_000);

  it('is sent again with the entries written since, and each entry is stored once, none reported as failed', async () => {
    const ws = await newWorkspace();
    const real = h().service.store;
    // The first write commits and then fails as a connection dropped before the answer does.
    let calls = 0;
    const activity = new Proxy(real.repos.activity, {
      get: (target, k) =>
        k === 'insertMany'
          ? async (entries: ActivityEntry[]) => {
              await target.insertMany(entries);
              if (++calls === 1)
                throw translatePgError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
            }
          : Reflect.get(target, k),
    });
    const store = { ...real, repos: { ...real.repos, activity } };
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const sink = bufferedActivitySink(store, logger, { delayMs: 60_000, retryMs: 20 });
    const log = new ActivityLog(store, sink, systemClock);
    const agent = await loadAgent(await createAgent(ws.adminToken));

    log.writeEntry(agent, { surface: 'HTTP_API', status: 201 });
    log.writeEntry(agent, { surface: 'HTTP_API', status: 202 });
    await sink.flush();
    expect(calls).to.equal(1);
    log.writeEntry(agent, { surface: 'HTTP_API', status: 203 }); // joins the batch sent again
    for (let i = 0; i < 250 && sink.backlog().entries > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sink.backlog().entries).to.equal(0);

    const stored = (await h().db('activity_log').where({ agent_id: agent.id }).select('status')) as {
      status: number;
    }[];
    expect(stored.map((r) => r.status).sort()).to.deep.equal([201, 202, 203]);
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.filter((m) => m.includes('write failed') || m.includes('without its bodies'))).to.deep.equal([]);
  });
});

describe('activity sink: what a batch stores', function () {
  this.timeout(30_000);

  it('keeps every field as written: JSON null apart from an absent value, exact credits, the instant, and an entry sent twice stored once', async () => {
    const ws = await newWorkspace();
    const agent = await loadAgent(await createAgent(ws.adminToken));
    const at = new Date('2026-11-26T21:04:05.678Z');
    const base: ActivityEntry = {
      id: newId('act'),
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      kind: 'request',
      surface: 'HTTP_API',
      entry: 'orders/{id}',
      method: 'POST',
      path: '/agents/x/api/orders/it\'s "quoted" \\ é',
      status: 429,
      requestHeaders: { 'content-type': 'application/json', 'x-agent-access-key': '[redacted]' },
      requestBody: { a: [1, 2.5, null, 'x'], nested: { ok: true } },
      response: { error: 'Daily credit limit reached', reason: 'agent_daily_credit_limit' },
      truncated: false,
      credits: 0.000123,
      durationMs: 7,
      keyId: 'key_1',
      oauthClientId: null,
      grantedBy: null,
      runId: null,
      requestId: 'req-1',
      error: 'Daily credit limit reached',
      logs: ['one', 'two'],
      createdAt: at,
      protocol: true,
      deliveryId: 'dlv_1',
    };
    const nulls: ActivityEntry = {
      ...base,
      id: newId('act'),
      entry: null,
      method: null,
      path: null,
      status: null,
      requestHeaders: null,
      requestBody: null,
      response: 'text answer',
      truncated: true,
      credits: 0,
      durationMs: null,
      keyId: null,
      requestId: null,
      error: null,
      logs: null,
      protocol: false,
      deliveryId: null,
    };
    const activity = h().service.store.repos.activity;
    await activity.insertMany([base, nulls]);
    await activity.insertMany([{ ...base, status: 200 }]);

    const rows = (await h().db.raw(
      `select id, entry, method, path, status, request_headers, request_body, response, truncated, credits::text as credits, duration_ms, key_id, run_id, request_id, error, logs, protocol, delivery_id,
              request_headers is null as headers_sql_null, jsonb_typeof(request_headers) as headers_type, jsonb_typeof(request_body) as body_type, jsonb_typeof(logs) as logs_type,
              created_at = ?::timestamptz as same_instant
         from activity_log where agent_id = ? order by status nulls last`,
      [at.toISOString(), agent.id],
    )) as { rows?: Record<string, unknown>[] } | Record<string, unknown>[];
    const stored = (rows as { rows?: Record<string, unknown>[] }).rows ?? (rows as Record<string, unknown>[]);
    expect(stored).to.have.length(2);
    const [full, empty] = stored as Record<string, unknown>[];
    expect(full).to.deep.include({
      id: base.id,
      entry: 'orders/{id}',
      method: 'POST',
      path: base.path,
      status: 429,
      request_headers: base.requestHeaders,
      request_body: base.requestBody,
      response: base.response,
      truncated: false,
      credits: '0.000123',
      duration_ms: 7,
      key_id: 'key_1',
      run_id: null,
      request_id: 'req-1',
      error: 'Daily credit limit reached',
      logs: ['one', 'two'],
      protocol: true,
      delivery_id: 'dlv_1',
      same_instant: true,
    });
    // null is stored as a JSON null, as the driver's parameters stored it (jsonb 'null', not SQL NULL).
    expect(empty).to.deep.include({
      status: null,
      entry: null,
      response: 'text answer',
      truncated: true,
      credits: '0.000000',
      duration_ms: null,
      protocol: false,
      delivery_id: null,
      headers_sql_null: false,
      headers_type: 'null',
      body_type: 'null',
      logs_type: 'null',
    });
  });
});
