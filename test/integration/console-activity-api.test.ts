import { expect } from 'chai';
import { ActivityLog, type ActivitySink } from '../../src/domain/activity/activity-log.js';
import type { ActivityEntry } from '../../src/domain/activity/activity.entities.js';
import type { Surface } from '../../src/domain/core/surface.entities.js';
import { createAgent, gql, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent } from '../helpers/runtime.js';

// What the console's Activity and Usage tabs read: Agent.activity's filters (status, entry, since,
// until) with their validation, Agent.activityEntry (one entry with its bodies), and
// Agent.usageBySurface (runs per surface and day, from the activity log).

/** A sink that stores each entry straight through the repository, at the time `at` gives it. */
function sinkAt(at: () => Date): ActivitySink {
  const pending: Promise<void>[] = [];
  const { activity } = h().service.store.repos;
  return {
    write: (e: ActivityEntry) => void pending.push(activity.insert({ ...e, createdAt: at() })),
    flush: async () => void (await Promise.all(pending)),
  };
}

const DAY = 86_400_000;

describe('console: activity filters, one entry, runs per surface (GraphQL)', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let agentId: string;
  const now = Date.now();
  // Times of the entries below, oldest first: t0 two days ago … t5 now.
  const t = [now - 2 * DAY, now - DAY - 60_000, now - DAY, now - 3_600_000, now - 60_000, now - 1_000].map(
    (ms) => new Date(ms),
  );

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken);
    const agent = await loadAgent(agentId);
    let i = 0;
    const log = new ActivityLog(
      h().service.store,
      sinkAt(() => t[i++]!),
      h().service.clock,
    );
    const rec = (surface: Surface, entry: string | null, status: number | null, extra: Record<string, unknown> = {}) =>
      log.writeEntry(agent, { surface, entry, status, ...extra });
    rec('HTTP_API', 'orders', 200, { runId: 'run_a', credits: 0.5 }); // t0
    rec('HTTP_API', 'orders', 429, { error: 'This agent used its daily credit limit of 0; it resets at 00:00 UTC' }); // t1
    rec('MCP', 'lookup', 200, { runId: 'run_b', credits: 0.25 }); // t2
    rec('HTTP_API', 'refunds', 500, { runId: 'run_c', error: 'The run failed', credits: 0.125 }); // t3
    rec('WEBHOOKS', 'stripe', null, { kind: 'run', runId: 'run_d', credits: 1 }); // t4
    rec('HTTP_API', 'orders', 201, {
      runId: 'run_e',
      credits: 0.0625,
      requestHeaders: { authorization: 'Bearer ak_x', 'content-type': 'application/json' },
      requestBody: { q: 'hi' },
      response: { output: 'mail [redacted]' },
      keyId: 'key_1',
      requestId: 'req_1',
      durationMs: 12,
    }); // t5
    await log.flush();
  });

  const list = async (args: Record<string, unknown>) => {
    const r = await gql(
      ws.adminToken,
      `query($id: ID!, $status: String, $entry: String, $since: DateTimeISO, $until: DateTimeISO, $surface: Surface, $first: Int!, $after: String) {
        agent(id: $id) { activity(first: $first, after: $after, status: $status, entry: $entry, since: $since, until: $until, surface: $surface) { nodes { entry status } hasNextPage endCursor } }
      }`,
      { id: agentId, first: 50, ...args },
    );
    return r;
  };
  const statuses = async (args: Record<string, unknown>) => {
    const r = await list(args);
    if (r.errors) throw new Error(JSON.stringify(r.errors));
    return r.data.agent.activity.nodes.map((n: { entry: string; status: number | null }) => `${n.entry}:${n.status}`);
  };

  it('filters by one status code, a class of codes, or error', async () => {
    expect(await statuses({})).to.deep.equal([
      'orders:201',
      'stripe:null',
      'refunds:500',
      'lookup:200',
      'orders:429',
      'orders:200',
    ]);
    expect(await statuses({ status: '429' })).to.deep.equal(['orders:429']);
    expect(await statuses({ status: '2xx' })).to.deep.equal(['orders:201', 'lookup:200', 'orders:200']);
    expect(await statuses({ status: '4XX' })).to.deep.equal(['orders:429']);
    expect(await statuses({ status: '5xx' })).to.deep.equal(['refunds:500']);
    expect(await statuses({ status: 'error' })).to.deep.equal(['refunds:500', 'orders:429']);
    // One code is that code only (201 is not 200); spaces and case do not matter.
    expect(await statuses({ status: '200' })).to.deep.equal(['lookup:200', 'orders:200']);
    expect(await statuses({ status: ' Error ' })).to.deep.equal(['refunds:500', 'orders:429']);
  });

  it('filters by entry name, exactly, and with the surface', async () => {
    expect(await statuses({ entry: 'orders' })).to.deep.equal(['orders:201', 'orders:429', 'orders:200']);
    expect(await statuses({ entry: 'order' })).to.deep.equal([]);
    expect(await statuses({ entry: ' orders ' })).to.deep.equal(['orders:201', 'orders:429', 'orders:200']);
    expect(await statuses({ entry: 'orders', status: '2xx' })).to.deep.equal(['orders:201', 'orders:200']);
    expect(await statuses({ entry: 'lookup', surface: 'HTTP_API' })).to.deep.equal([]);
    expect(await statuses({ entry: 'lookup', surface: 'MCP' })).to.deep.equal(['lookup:200']);
  });

  it('filters by date: since inclusive, until exclusive, and pages within the filter', async () => {
    expect(await statuses({ since: t[3]!.toISOString() })).to.deep.equal(['orders:201', 'stripe:null', 'refunds:500']);
    expect(await statuses({ until: t[2]!.toISOString() })).to.deep.equal(['orders:429', 'orders:200']);
    expect(await statuses({ since: t[1]!.toISOString(), until: t[4]!.toISOString() })).to.deep.equal([
      'refunds:500',
      'lookup:200',
      'orders:429',
    ]);
    const p1 = await list({ first: 1, entry: 'orders' });
    expect(p1.data.agent.activity.hasNextPage).to.equal(true);
    expect(await statuses({ first: 2, entry: 'orders', after: p1.data.agent.activity.endCursor })).to.deep.equal([
      'orders:429',
      'orders:200',
    ]);
  });

  it('refuses bad filter values with an error naming the argument, never a 500', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ status: '42' }, 'status', /status code/],
      [{ status: '600' }, 'status', /status code/],
      [{ status: '2xxx' }, 'status', /status code/],
      [{ status: 'errors' }, 'status', /status code/],
      [{ status: '' }, 'status', /status code/],
      [{ status: '1429' }, 'status', /status code/],
      [{ status: 'x4xx' }, 'status', /status code/],
      [{ status: '4xx!' }, 'status', /status code/],
      [{ first: 0 }, 'first', /must be between 1 and 200/],
      [{ first: 201 }, 'first', /must be between 1 and 200/],
      [{ entry: '' }, 'entry', /must not be empty/],
      [{ entry: 'x'.repeat(201) }, 'entry', /at most 200/],
      [{ since: t[3]!.toISOString(), until: t[3]!.toISOString() }, 'until', /later than since/],
      [{ since: t[4]!.toISOString(), until: t[1]!.toISOString() }, 'until', /later than since/],
    ];
    for (const [args, field, message] of cases) {
      const r = await list(args);
      expect(r.status, JSON.stringify(args)).to.be.below(500);
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(args)).to.equal('BAD_USER_INPUT');
      expect(r.errors?.[0]?.extensions?.field, JSON.stringify(args)).to.equal(field);
      expect(r.errors?.[0]?.message).to.match(message);
    }
    // Not a date-time at all: GraphQL's own coercion refuses the variable (400), naming it.
    const r = await list({ since: 'yesterday' });
    expect(r.status).to.equal(400);
    expect(r.errors?.[0]?.message).to.include('$since');
  });

  it('activityEntry gives one entry with its headers and bodies; another agent’s entry or an unknown id is null', async () => {
    const [newest] = (
      await gqlOk(ws.adminToken, `query($id: ID!) { agent(id: $id) { activity(first: 1) { nodes { id } } } }`, {
        id: agentId,
      })
    ).agent.activity.nodes;
    const q = `query($id: ID!, $e: ID!) { agent(id: $id) { activityEntry(id: $e) { id entry status requestHeaders requestBody response credits keyId runId requestId durationMs error } } }`;
    const d = await gqlOk(ws.adminToken, q, { id: agentId, e: newest.id });
    expect(d.agent.activityEntry).to.deep.equal({
      id: newest.id,
      entry: 'orders',
      status: 201,
      requestHeaders: { authorization: '[redacted]', 'content-type': 'application/json' },
      requestBody: { q: 'hi' },
      response: { output: 'mail [redacted]' },
      credits: 0.0625,
      keyId: 'key_1',
      runId: 'run_e',
      requestId: 'req_1',
      durationMs: 12,
      error: null,
    });
    const other = await createAgent(ws.adminToken);
    expect((await gqlOk(ws.adminToken, q, { id: other, e: newest.id })).agent.activityEntry).to.equal(null);
    expect((await gqlOk(ws.adminToken, q, { id: agentId, e: 'act_nope' })).agent.activityEntry).to.equal(null);
    const long = await gql(ws.adminToken, q, { id: agentId, e: 'x'.repeat(101) });
    expect(long.errors?.[0]?.extensions).to.include({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(long.errors?.[0]?.message).to.match(/must be at most 100 characters/);
    const empty = await gql(ws.adminToken, q, { id: agentId, e: '' });
    expect(empty.errors?.[0]?.extensions).to.include({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(empty.errors?.[0]?.message).to.match(/must not be empty/);
    // Another workspace cannot read it through its own agent or this one.
    const stranger = await newWorkspace();
    const refused = await gql(stranger.adminToken, q, { id: agentId, e: newest.id });
    expect(refused.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
  });

  it('usageBySurface counts runs and their credits per UTC day and surface (entries without a run do not count)', async () => {
    // Days as a literal: a variable counts as the largest window (366 days) against the cost limit.
    const q30 = `query($id: ID!) { agent(id: $id) { usageBySurface(days: 30) { day surface runs credits } } }`;
    const q = (days: number) => q30.replace('days: 30', `days: ${days}`);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const rows = (await gqlOk(ws.adminToken, q30, { id: agentId })).agent.usageBySurface;
    // Expected, built from the entries' own times (the test may run across midnight UTC).
    const runs: Record<string, { runs: number; credits: number }> = {};
    const add = (at: Date, surface: string, credits: number) => {
      const k = `${day(at)} ${surface}`;
      runs[k] = { runs: (runs[k]?.runs ?? 0) + 1, credits: (runs[k]?.credits ?? 0) + credits };
    };
    add(t[0]!, 'HTTP_API', 0.5);
    add(t[2]!, 'MCP', 0.25);
    add(t[3]!, 'HTTP_API', 0.125);
    add(t[4]!, 'WEBHOOKS', 1);
    add(t[5]!, 'HTTP_API', 0.0625);
    const expected = Object.entries(runs)
      .map(([k, v]) => ({ day: k.split(' ')[0], surface: k.split(' ')[1], ...v }))
      .sort((a, b) => (a.day === b.day ? a.surface!.localeCompare(b.surface!) : b.day!.localeCompare(a.day!)));
    expect(rows).to.deep.equal(expected);
    // One day: today's only.
    const today = (await gqlOk(ws.adminToken, q(1), { id: agentId })).agent.usageBySurface;
    expect(today).to.deep.equal(expected.filter((r) => r.day === day(new Date())));
    for (const days of [0, -5]) {
      const r = await gql(ws.adminToken, q(days), { id: agentId });
      expect(r.errors?.[0]?.extensions).to.include({ code: 'BAD_USER_INPUT', field: 'days' });
    }
    // The same bounds, named the same, on the credit usage of the agent and of the workspace.
    for (const query of [
      `query($id: ID!) { agent(id: $id) { usage(days: 0) { day } } }`,
      `query { workspace { usage(days: 367) { day } } }`,
    ]) {
      const r = await gql(ws.adminToken, query, { id: agentId });
      expect(r.errors?.[0]?.extensions, query).to.include({ code: 'BAD_USER_INPUT', field: 'days' });
    }
  });

  it('a page that asks for no headers or bodies does not read them; one that asks (also through a fragment) gets them', async () => {
    const { activity } = h().service.store.repos;
    const light = await activity.list(agentId, { first: 50, withBodies: false });
    const full = await activity.list(agentId, { first: 50 });
    const newest = (list: ActivityEntry[]) => list.find((e) => e.runId === 'run_e')!;
    expect(newest(light)).to.include({
      requestHeaders: null,
      requestBody: null,
      response: null,
      logs: null,
      keyId: 'key_1',
      requestId: 'req_1',
      durationMs: 12,
      credits: 0.0625,
    });
    expect(newest(full).requestBody).to.deep.equal({ q: 'hi' });

    const viaFragment = await gqlOk(
      ws.adminToken,
      `fragment Bodies on ActivityEntry { requestBody response }
       query($id: ID!) { agent(id: $id) { activity(first: 50, entry: "orders") { nodes { id ...Bodies } } } }`,
      { id: agentId },
    );
    expect(viaFragment.agent.activity.nodes[0]).to.include.keys('requestBody');
    expect(viaFragment.agent.activity.nodes[0].requestBody).to.deep.equal({ q: 'hi' });
    const inline = await gqlOk(
      ws.adminToken,
      `query($id: ID!) { agent(id: $id) { activity(first: 1) { nodes { ... on ActivityEntry { requestHeaders } } } } }`,
      { id: agentId },
    );
    expect(inline.agent.activity.nodes[0].requestHeaders).to.include({ 'content-type': 'application/json' });
  });
});
