import { expect } from 'chai';
import fs from 'node:fs';
import { ScheduleFirer } from '../../src/domain/schedules/schedule-firer.js';
import { startScheduleLoop } from '../../src/infra/queue/schedule-loop.js';
import { createLogger } from '../../src/infra/logger.js';
import { dataDirWithDatabase } from '../helpers/embedded-template.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { databaseEnv, graphqlClient } from '../helpers/process.js';
import { startSurfaceService, type InProcessService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';
import { startReceiver } from '../helpers/event-receiver.js';

// Schedules (issue 54) end to end: the service's own loop fires them. Two instances share one
// database: on PostgreSQL (TEST_DATABASE_URL) a second service instance; on the embedded
// database, which belongs to one process, a second schedule loop (its own instance id) over the
// same database — the claim under test is the same insert on the fires' key either way.

const ADMIN_TOKEN = 'schedules-admin-token-0123456789abcdef';
/** Short passes and lease; an occurrence seen within 2 s is on time, later it was missed. */
const LOOP = { pollMs: 100, graceMs: 2_000, leaseMs: 5_000 };
const SCHEMA = 'e2e_schedules';

interface Fire {
  occurrenceAt: string;
  state: string;
  late: boolean;
  runId: string | null;
  error: string | null;
  refusal: { code: string; reason: string | null } | null;
}

describe('e2e: schedules', function () {
  this.timeout(180_000);
  let fake: FakeOpenAi;
  let dataDir: string;
  let database: Awaited<ReturnType<typeof databaseEnv>>;
  let first: InProcessService | undefined;
  let second: { stop(): Promise<void> } | undefined;
  const dirs: string[] = [];

  const start = (dir: string) =>
    startSurfaceService({
      dataDir: dir,
      adminToken: ADMIN_TOKEN,
      modelUrl: fake.url,
      platformOrigin: 'https://app.example.test',
      database: database.env,
      build: { scheduleLoop: LOOP },
    });

  /** The second instance: a service on PostgreSQL, a second loop over the first's database on the embedded one. */
  async function startSecond(): Promise<{ stop(): Promise<void> }> {
    if (process.env.TEST_DATABASE_URL) {
      const dir = fs.mkdtempSync(`${dataDir}-`);
      dirs.push(dir);
      return start(dir);
    }
    const { service } = first!;
    const firer = new ScheduleFirer(service.store, service.clock, service.services.calls, {
      instanceId: 'second-loop',
      leaseMs: LOOP.leaseMs,
      graceMs: LOOP.graceMs,
    });
    const loop = startScheduleLoop(firer, createLogger('silent'), LOOP.pollMs);
    return { stop: () => loop.stop(10_000) };
  }

  async function stopAll(): Promise<void> {
    await second?.stop();
    second = undefined;
    await first?.stop();
    first = undefined;
  }

  const gql = (query: string, variables?: Record<string, unknown>) =>
    graphqlClient(() => first!.url, ADMIN_TOKEN)(query, variables);
  /** GraphQL without throwing: the errors' codes. */
  async function gqlCodes(query: string, variables: Record<string, unknown>): Promise<(string | undefined)[]> {
    const res = await fetch(`${first!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
    return (body.errors ?? []).map((e) => e.extensions?.code);
  }

  before(async () => {
    fake = await startOpenAiServer();
    dataDir = await dataDirWithDatabase('aes-schedules-');
    dirs.push(dataDir);
    database = await databaseEnv(SCHEMA);
    first = await start(dataDir);
  });

  after(async () => {
    await stopAll();
    await fake?.close();
    await database?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function agentWithSchedules(name: string): Promise<string> {
    const id = (
      await gql('mutation($n: String!) { createAgent(input: { name: $n, defaultModel: "fake-model" }) { id } }', {
        n: name,
      })
    ).createAgent.id as string;
    return id;
  }
  const surfaceOn = (agentId: string) =>
    gql('mutation($a: ID!) { setSurface(agentId: $a, surface: SCHEDULE, enabled: true) { id } }', { a: agentId });
  const ADD =
    'mutation($a: ID!, $i: ScheduleInput!) { addSchedule(agentId: $a, input: $i) { id name nextFires(count: 3) } }';
  const add = async (agentId: string, input: Record<string, unknown>) =>
    (await gql(ADD, { a: agentId, i: input })).addSchedule as { id: string; name: string; nextFires: string[] };
  const disable = (id: string) =>
    gql('mutation($id: ID!) { updateSchedule(id: $id, input: { enabled: false }) { id } }', { id });
  /** The schedule's fires, newest first, as stored (read through the first instance's repositories). */
  async function firesOf(agentId: string, name: string): Promise<Fire[]> {
    const { repos } = first!.service.store;
    const s = (await repos.schedules.listByAgents([agentId])).find((x) => x.name === name)!;
    return (await repos.schedules.listFires(s.id, 200)).map((f) => ({
      occurrenceAt: f.occurrenceAt.toISOString(),
      state: f.state,
      late: f.late,
      runId: f.runId,
      error: f.error,
      refusal: f.refusal,
    }));
  }

  it('refuses a bad cron expression or time zone as BAD_USER_INPUT, saving nothing', async () => {
    const a = await agentWithSchedules('Refusals');
    const handler = { script: 'return 1;' };
    expect(await gqlCodes(ADD, { a, i: { name: 'x', cron: 'at noon', handler } })).to.deep.equal(['BAD_USER_INPUT']);
    expect(
      await gqlCodes(ADD, { a, i: { name: 'x', cron: '0 9 * * *', timeZone: 'Mars/Olympus', handler } }),
    ).to.deep.equal(['BAD_USER_INPUT']);
    expect(await gqlCodes(ADD, { a, i: { name: 'x', cron: '0 9 * * *', intervalSeconds: 5, handler } })).to.deep.equal([
      'BAD_USER_INPUT',
    ]);
    const d = await gql('query($a: ID!) { agent(id: $a) { schedules { id } } }', { a });
    expect(d.agent.schedules).to.deep.equal([]);
    const s = await add(a, { name: 'paris', cron: '0 9 * * *', timeZone: 'Europe/Paris', handler });
    expect(s.nextFires).to.have.length(3);
  });

  it('every second, with two instances: each occurrence fires exactly once, and only while SCHEDULE is on', async () => {
    second = await startSecond();
    const a = await agentWithSchedules('Ticker');
    const s = await add(a, {
      name: 'tick',
      intervalSeconds: 1,
      handler: { script: 'return { n: input.n };' },
      input: { n: 7 },
    });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await firesOf(a, 'tick'), 'the SCHEDULE surface is off by default').to.deep.equal([]);
    await surfaceOn(a);
    await until(
      'five fires',
      async () => ((await firesOf(a, 'tick')).filter((f) => f.state === 'DONE').length >= 5 ? true : undefined),
      30_000,
    );
    await disable(s.id);
    const fires = await until('the last run to end', async () => {
      const f = await firesOf(a, 'tick');
      return f.some((x) => x.state === 'RUNNING') ? undefined : f;
    });
    const occurrences = fires.map((f) => f.occurrenceAt);
    expect(new Set(occurrences).size, 'one record per occurrence').to.equal(occurrences.length);
    for (const o of occurrences) expect(new Date(o).getMilliseconds(), o).to.equal(0);
    const ran = fires.filter((f) => f.state === 'DONE');
    expect(new Set(ran.map((f) => f.runId)).size, 'a run of its own per fire').to.equal(ran.length);
    // Exactly one run per fire, whichever instance won it: the runs logged are the fires' runs.
    const entries = await until('every run logged', async () => {
      const d = await gql(
        'query($a: ID!) { agent(id: $a) { activity(surface: SCHEDULE, first: 100) { nodes { kind runId response } } } }',
        { a },
      );
      const nodes = d.agent.activity.nodes as { kind: string; runId: string; response: unknown }[];
      return nodes.length >= ran.length ? nodes : undefined;
    });
    expect(entries.map((e) => e.runId).sort()).to.deep.equal(ran.map((f) => f.runId).sort());
    expect(entries[0]).to.deep.include({ kind: 'RUN', response: { output: { n: 7 } } });
    await second.stop();
    second = undefined;
  });

  it('a fire whose run was admitted is a schedule.fired event to a subscription, naming the schedule and the run', async () => {
    const rx = await startReceiver();
    try {
      await gql('mutation($i: EventSubscriptionInput!) { createEventSubscription(input: $i) { secret } }', {
        i: { url: rx.url, kinds: ['schedule.fired'] },
      });
      const a = await agentWithSchedules('Announcer');
      const s = await add(a, { name: 'announce', intervalSeconds: 1, handler: { script: 'return 1;' } });
      await surfaceOn(a);
      const [event] = await until('schedule.fired', async () => (rx.events().length ? rx.events() : undefined), 20_000);
      await disable(s.id);
      expect(event!.type).to.equal('schedule.fired');
      expect(event!.data).to.include({ agentId: a, scheduleId: s.id });
      const fires = await until('the fire recorded', async () => {
        const f = await firesOf(a, 'announce');
        return f.some((x) => x.runId === event!.data.runId) ? f : undefined;
      });
      expect(fires.map((f) => f.runId)).to.include(event!.data.runId);
    } finally {
      await rx.close();
    }
  });

  it('after both instances were stopped past an occurrence: fired once late with catchUp, skipped without', async () => {
    second = await startSecond();
    const a = await agentWithSchedules('Sleeper');
    await surfaceOn(a);
    const script = { script: 'return "ok";' };
    await add(a, { name: 'catch-up', intervalSeconds: 6, catchUp: true, handler: script });
    await add(a, { name: 'no-catch-up', intervalSeconds: 6, handler: script });
    // Both fired an occurrence (the same one: they share the interval), and nothing runs.
    const firstFire = await until(
      'the first fires',
      async () => {
        const [c, n] = [(await firesOf(a, 'catch-up'))[0], (await firesOf(a, 'no-catch-up'))[0]];
        return c?.state === 'DONE' && n?.state === 'DONE' && c.occurrenceAt === n.occurrenceAt ? c : undefined;
      },
      30_000,
    );
    await stopAll();
    const o = new Date(firstFire.occurrenceAt).getTime();
    const missed = new Date(o + 6_000).toISOString();
    // Back after the next occurrence's grace, before the one after it.
    await new Promise((r) => setTimeout(r, Math.max(0, o + 6_000 + LOOP.graceMs + 500 - Date.now())));
    first = await start(dataDir);
    second = await startSecond();
    const fires = await until(
      'the missed occurrence recorded',
      async () => {
        const [c, n] = [await firesOf(a, 'catch-up'), await firesOf(a, 'no-catch-up')];
        const cf = c.find((f) => f.occurrenceAt === missed);
        const nf = n.find((f) => f.occurrenceAt === missed);
        return cf && cf.state !== 'RUNNING' && nf ? { c, n, cf, nf } : undefined;
      },
      20_000,
    );
    expect(fires.cf).to.deep.include({ state: 'DONE', late: true });
    expect(fires.nf).to.deep.include({ state: 'SKIPPED', late: false });
    expect(fires.nf.error).to.match(/missed/i);
    expect(
      fires.c.filter((f) => f.late),
      'caught up once',
    ).to.have.length(1);
  });

  it('overlap SKIP: an occurrence due while the run still goes is recorded as skipped', async () => {
    const a = await agentWithSchedules('Slow');
    await surfaceOn(a);
    fake.enqueue({ text: 'slow', delayMs: 2_500 });
    const s = await add(a, { name: 'slow', intervalSeconds: 1, handler: { prompt: 'Take your time.' } });
    const fires = await until(
      'a skipped fire, then the run done',
      async () => {
        const f = await firesOf(a, 'slow');
        return f.some((x) => x.state === 'SKIPPED') && f.some((x) => x.state === 'DONE') ? f : undefined;
      },
      30_000,
    );
    await disable(s.id);
    expect(fires.find((f) => f.state === 'SKIPPED')!.error).to.match(/still going/);
  });

  it('a refused fire (over the daily credit limit) is recorded as refused and logged like any refused run', async () => {
    const a = await agentWithSchedules('Broke');
    await surfaceOn(a);
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a });
    const s = await add(a, { name: 'broke', intervalSeconds: 1, handler: { script: 'return 1;' } });
    const refused = await until(
      'a refused fire',
      async () => (await firesOf(a, 'broke')).find((f) => f.state === 'REFUSED'),
      30_000,
    );
    await disable(s.id);
    expect(refused.refusal).to.deep.equal({ code: 'LIMIT_EXCEEDED', reason: 'daily_credit_limit' });
    const entry = await until('the refusal logged', async () => {
      const d = await gql(
        'query($a: ID!) { agent(id: $a) { activity(surface: SCHEDULE, first: 5) { nodes { kind entry error } } } }',
        { a },
      );
      return d.agent.activity.nodes[0] as { kind: string; entry: string; error: string } | undefined;
    });
    expect(entry).to.include({ kind: 'RUN', entry: 'broke' });
    expect(entry.error).to.be.a('string').and.not.equal('');
  });
});
