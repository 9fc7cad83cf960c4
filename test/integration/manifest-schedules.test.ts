import { expect } from 'chai';
import { errorCode, gql, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// Schedules in manifests, `spec.schedules` (issue 54): applied (created, then updated by name, and
// with prune deleted), exported as applied so that the export plans as no change; a bad cron
// expression or two timings refused at their field before anything is written.

const PLAN =
  'query($y: String!, $p: Boolean) { planManifest(yaml: $y, prune: $p) { digest hasChanges changes { action path applied } } }';
const APPLY =
  'mutation($y: String!, $d: String!, $p: Boolean) { applyManifest(yaml: $y, planDigest: $d, prune: $p) { agents { name id } } }';
const EXPORT = 'query($ids: [ID!]) { exportAgents(ids: $ids) }';
const SCHEDULES =
  'query($id: ID!) { agent(id: $id) { schedules { name cron timeZone intervalSeconds catchUp overlap input handler { kind prompt } } } }';

const manifest = (schedules: string) => `apiVersion: agents/v1
kind: Agent
metadata:
  name: Scheduled
spec:
  surfaces:
    SCHEDULE: { enabled: true }
  schedules:
${schedules}`;

describe('agents as code: schedules', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  const plan = async (yaml: string, prune = false) =>
    (await gqlOk(ws.adminToken, PLAN, { y: yaml, p: prune })).planManifest;
  const apply = async (yaml: string, prune = false) =>
    (await gqlOk(ws.adminToken, APPLY, { y: yaml, d: (await plan(yaml, prune)).digest, p: prune })).applyManifest
      .agents[0].id as string;

  before(async () => {
    ws = await newWorkspace();
  });

  it('creates, updates by name, prunes, and exports what it applied', async () => {
    const id = await apply(
      manifest(`    - name: morning
      cron: "0 9 * * 1-5"
      timeZone: Europe/Paris
      handler: { prompt: Report. }
      catchUp: true
    - name: beat
      intervalSeconds: 60
      handler: { script: "return 1;" }
      input: { n: 1 }
`),
    );
    let s = (await gqlOk(ws.adminToken, SCHEDULES, { id })).agent.schedules;
    expect(s.map((x: { name: string }) => x.name).sort()).to.deep.equal(['beat', 'morning']);
    expect(s.find((x: { name: string }) => x.name === 'morning')).to.deep.include({
      cron: '0 9 * * 1-5',
      timeZone: 'Europe/Paris',
      intervalSeconds: null,
      catchUp: true,
      overlap: 'SKIP',
    });
    const exported = (await gqlOk(ws.adminToken, EXPORT, { ids: [id] })).exportAgents as string;
    expect(exported).to.include('schedules:');
    expect((await plan(exported)).hasChanges, 'the export plans as no change').to.equal(false);

    const next = manifest(`    - name: beat
      intervalSeconds: 120
      handler: { script: "return 2;" }
      overlap: QUEUE
`);
    const p = await plan(next, true);
    expect(p.changes.map((c: { action: string; path: string }) => `${c.action} ${c.path}`)).to.deep.equal([
      'UPDATE spec.schedules[name=beat]',
      'DELETE spec.schedules[name=morning]',
    ]);
    await apply(next, true);
    s = (await gqlOk(ws.adminToken, SCHEDULES, { id })).agent.schedules;
    expect(s).to.have.length(1);
    expect(s[0]).to.deep.include({ name: 'beat', intervalSeconds: 120, overlap: 'QUEUE', input: null });
  });

  it('refuses a bad cron expression, or a cron expression and an interval, at their field', async () => {
    for (const bad of [
      `    - name: x\n      cron: "whenever"\n      handler: { prompt: Hi. }\n`,
      `    - name: x\n      cron: "* * * * *"\n      intervalSeconds: 5\n      handler: { prompt: Hi. }\n`,
    ]) {
      const r = await gql(ws.adminToken, PLAN, { y: manifest(bad) });
      expect(errorCode(r), JSON.stringify(r.errors)).to.equal('BAD_USER_INPUT');
      expect(JSON.stringify(r.errors)).to.match(/spec\.schedules\.0\.(cron|intervalSeconds)/);
    }
  });
});
