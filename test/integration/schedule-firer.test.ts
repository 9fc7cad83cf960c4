import { expect } from 'chai';
import { ScheduleFirer } from '../../src/domain/schedules/schedule-firer.js';
import { LOST_ERROR } from '../../src/domain/schedules/schedule-fire.task.js';
import type { ScheduleFire } from '../../src/domain/schedules/schedule.entities.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { until } from '../helpers/until.js';

// The schedule firer with a clock the test sets (in 2100, so that the harness's own loop, on the
// real clock, finds nothing due): overlap QUEUE while another instance runs the schedule, and a fire
// whose instance stopped, marked LOST once its lease ran out (issue 54).

const T = Date.parse('2100-01-01T00:00:00Z');
const at = (s: number) => new Date(T + s * 1000);

describe('schedule firer: queued and lost fires', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  let agentId: string;
  let scheduleId: string;
  let now = T;
  let firer: ScheduleFirer;
  const repos = () => h().service.store.repos;
  const fire = (occurrence: number, over: Partial<ScheduleFire>): ScheduleFire => ({
    scheduleId,
    agentId,
    occurrenceAt: at(occurrence),
    state: 'RUNNING',
    late: false,
    claimedBy: 'another-instance',
    leaseUntil: at(occurrence + 600),
    runId: null,
    error: null,
    refusal: null,
    createdAt: at(occurrence),
    finishedAt: null,
    ...over,
  });
  const stateOf = async (occurrence: number) =>
    (await repos().schedules.listFires(scheduleId, 50)).find(
      (f) => f.occurrenceAt.getTime() === at(occurrence).getTime(),
    )?.state;

  before(async () => {
    ws = await newWorkspace();
    agentId = await createAgent(ws.adminToken, { name: 'Queued' });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { setSurface(agentId: $a, surface: SCHEDULE, enabled: true) { id } }',
      {
        a: agentId,
      },
    );
    scheduleId = 'sch_firer_test';
    await repos().schedules.insert({
      id: scheduleId,
      workspaceId: ws.workspaceId,
      agentId,
      name: 'every-minute',
      timing: { intervalSeconds: 60 },
      handler: { kind: 'script', body: 'return 1;' },
      modelOverride: null,
      input: null,
      enabled: true,
      catchUp: false,
      overlap: 'QUEUE',
      createdAt: at(0),
      updatedAt: at(0),
    });
    const { service } = h();
    firer = new ScheduleFirer(service.store, { now: () => new Date(now) }, service.services.calls, {
      instanceId: 'test-firer',
      leaseMs: 60_000,
      graceMs: 10_000,
    });
  });

  after(() => repos().schedules.delete(scheduleId));

  it('QUEUE: due while another instance runs it, one fire waits, the next is skipped; it runs once the first ends', async () => {
    await repos().schedules.recordFire(fire(60, {}));
    now = at(120.5).getTime();
    await firer.pass();
    expect(await stateOf(120)).to.equal('QUEUED');
    now = at(180.5).getTime();
    await firer.pass();
    expect(await stateOf(180)).to.equal('SKIPPED');
    await repos().schedules.finish(scheduleId, at(60), 'another-instance', {
      state: 'DONE',
      runId: null,
      error: null,
      finishedAt: at(181),
    });
    now = at(181).getTime();
    await firer.pass();
    await firer.drain(10_000);
    // This firer or the harness's own loop takes it: either way it runs, once.
    expect(
      await until('the queued fire to run', async () => ((await stateOf(120)) === 'DONE' ? true : undefined)),
    ).to.equal(true);
  });

  it('a fire whose instance stopped is marked LOST once its lease ran out, with an activity entry', async () => {
    await repos().schedules.recordFire(fire(240, { claimedBy: 'gone', leaseUntil: at(250) }));
    now = at(260).getTime();
    await firer.pass();
    expect(await stateOf(240)).to.equal('LOST');
    const entry = await until('the lost fire logged', async () => {
      const d = await gqlOk(
        ws.adminToken,
        'query($a: ID!) { agent(id: $a) { activity(surface: SCHEDULE, first: 10) { nodes { kind entry error } } } }',
        { a: agentId },
      );
      return (d.agent.activity.nodes as { kind: string; entry: string; error: string }[]).find(
        (e) => e.error === LOST_ERROR,
      );
    });
    expect(entry).to.deep.include({ kind: 'RUN', entry: 'every-minute' });
  });
});
