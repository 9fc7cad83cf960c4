import { expect } from 'chai';
import {
  createAgent,
  errorCode,
  gql,
  gqlOk,
  h,
  newWorkspace,
  type GqlResult,
  type TestWorkspace,
} from '../helpers/harness.js';

// Channels (an agent's email addresses and SMS numbers) in manifests, `spec.channels`: exported,
// matched by kind and address (normalised as addChannel stores them), created, updated and — with
// prune — deleted; invalid entries named at their line; an address another agent holds refused
// before anything is written; hostile text never a 500.

const EXPORT = 'query($ids: [ID!]) { exportAgents(ids: $ids) }';
const PLAN =
  'query($y: String!, $p: Boolean) { planManifest(yaml: $y, prune: $p) { digest hasChanges changes { agent action path before after applied } missing { kind name field line column } } }';
const APPLY =
  'mutation($y: String!, $d: String!, $p: Boolean) { applyManifest(yaml: $y, planDigest: $d, prune: $p) { changed changes { action path } agents { name id action } } }';
const CHANNELS =
  'query($id: ID!) { agent(id: $id) { channels { kind address allowedSenders autoReply modelOverride handler { kind prompt script } } surfaces { surface enabled } } }';

type Issue = { field: string; line: number; column: number; message: string };

describe('agents as code: channels', function () {
  this.timeout(60_000);
  let ws: TestWorkspace;
  const plan = async (yaml: string, prune = false) =>
    (await gqlOk(ws.adminToken, PLAN, { y: yaml, p: prune })).planManifest;
  const apply = async (yaml: string, prune = false) =>
    (await gqlOk(ws.adminToken, APPLY, { y: yaml, d: (await plan(yaml, prune)).digest, p: prune })).applyManifest;
  const agentNamed = async (name: string) =>
    ((await gqlOk(ws.adminToken, 'query { agents { id name } }')).agents as { id: string; name: string }[]).find(
      (a) => a.name === name,
    )!.id;
  const issuesOf = (r: GqlResult): Issue[] => {
    expect(errorCode(r), JSON.stringify(r.errors)).to.equal('BAD_USER_INPUT');
    return r.errors![0]!.extensions!.errors as Issue[];
  };
  const rows = async () => JSON.stringify(await h().db('channels').orderBy('id'));

  const manifest = (name: string, channels: string, extra = '') => `apiVersion: agents/v1
kind: Agent
metadata:
  name: ${name}
spec:${extra}
  channels:
${channels}`;

  /** The email channel as stored; the first file writes its address in another case. */
  const DESK = `    - kind: EMAIL
      address: desk@mail.example.com
      handler:
        script: |
          return { reply: 'thanks' };
      autoReply: false
`;
  const TWO = `    - kind: SMS
      address: +1 (415) 555-0800
      handler: {prompt: Answer by text}
      allowedSenders: ["+44 20 7946 0800", "+442079460800"]
${DESK.replace('desk@mail.example.com', 'Desk@Mail.Example.com')}`;

  before(async () => {
    ws = await newWorkspace();
  });

  it('creates the channels of a new agent, normalised; planning the same file again shows no changes', async () => {
    const yaml = manifest(
      'desk',
      TWO,
      '\n  surfaces: {SMS: {enabled: true}, EMAIL: {enabled: true, activityLogging: false}}',
    );
    const applied = await apply(yaml);
    expect(applied.agents[0]).to.include({ name: 'desk', action: 'CREATED' });
    const id = await agentNamed('desk');
    const a = (await gqlOk(ws.adminToken, CHANNELS, { id })).agent;
    expect(
      [...a.channels].sort((x: { kind: string }, y: { kind: string }) => (x.kind < y.kind ? 1 : -1)),
    ).to.deep.equal([
      {
        kind: 'SMS',
        address: '+14155550800',
        allowedSenders: ['+442079460800'],
        autoReply: true,
        modelOverride: null,
        handler: { kind: 'PROMPT', prompt: 'Answer by text', script: null },
      },
      {
        kind: 'EMAIL',
        address: 'desk@mail.example.com',
        allowedSenders: [],
        autoReply: false,
        modelOverride: null,
        handler: { kind: 'SCRIPT', prompt: null, script: "return { reply: 'thanks' };\n" },
      },
    ]);
    expect(a.surfaces.filter((s: { surface: string }) => ['EMAIL', 'SMS'].includes(s.surface))).to.deep.equal([
      { surface: 'EMAIL', enabled: true },
      { surface: 'SMS', enabled: true },
    ]);
    const again = await plan(yaml);
    expect(again.changes).to.deep.equal([]);
    expect(again.hasChanges).to.equal(false);
  });

  it('round trip: export → apply → plan shows no changes; the export lists the channels by kind and address', async () => {
    const id = await agentNamed('desk');
    const exported = (await gqlOk(ws.adminToken, EXPORT, { ids: [id] })).exportAgents as string;
    expect(exported).to.include('  channels:\n    - kind: EMAIL\n      address: desk@mail.example.com\n');
    expect(exported).to.include(
      '    - kind: SMS\n      address: "+14155550800"\n      allowedSenders:\n        - "+442079460800"\n      autoReply: true\n',
    );
    expect((await plan(exported, true)).changes).to.deep.equal([]);
    expect((await apply(exported, true)).changed).to.equal(false);
    expect((await gqlOk(ws.adminToken, EXPORT, { ids: [id] })).exportAgents).to.equal(exported);
  });

  it('updates a channel matched by kind and address, creates a new one, and deletes one absent from the file only with prune', async () => {
    const id = await agentNamed('desk');
    // One channel added outside the file (as the agent's own tool or a member would).
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addChannel(agentId: $a, input: {kind: SMS, address: "+14155550801", handler: {prompt: "extra"}}) { id } }',
      { a: id },
    );
    const changed = manifest(
      'desk',
      `    - kind: SMS
      address: "+14155550800"
      handler: {prompt: "Answer by text, briefly"}
${DESK}    - kind: EMAIL
      address: sales@mail.example.com
      handler: {prompt: Sell}
`,
    );
    const p = await plan(changed);
    expect(
      p.changes.map((c: { action: string; path: string; applied: boolean }) => `${c.action} ${c.path} ${c.applied}`),
    ).to.deep.equal([
      'UPDATE spec.channels[address=+14155550800] true',
      'CREATE spec.channels[address=sales@mail.example.com] true',
      'DELETE spec.channels[address=+14155550801] false',
    ]);
    const update = p.changes[0];
    expect(update.before).to.deep.include({ allowedSenders: ['+442079460800'], handler: { prompt: 'Answer by text' } });
    expect(update.after).to.deep.equal({
      kind: 'SMS',
      address: '+14155550800',
      autoReply: true,
      handler: { prompt: 'Answer by text, briefly' },
    });
    await apply(changed);
    let channels = (await gqlOk(ws.adminToken, CHANNELS, { id })).agent.channels as {
      address: string;
      allowedSenders: string[];
      handler: { prompt: string };
    }[];
    expect(channels.map((c) => c.address).sort()).to.deep.equal([
      '+14155550800',
      '+14155550801',
      'desk@mail.example.com',
      'sales@mail.example.com',
    ]);
    expect(channels.find((c) => c.address === '+14155550800')).to.deep.include({
      allowedSenders: [],
      handler: { kind: 'PROMPT', prompt: 'Answer by text, briefly', script: null },
    });

    const pruned = await apply(changed, true);
    expect(pruned.changes).to.deep.equal([{ action: 'DELETE', path: 'spec.channels[address=+14155550801]' }]);
    channels = (await gqlOk(ws.adminToken, CHANNELS, { id })).agent.channels;
    expect(channels.map((c) => c.address).sort()).to.deep.equal([
      '+14155550800',
      'desk@mail.example.com',
      'sales@mail.example.com',
    ]);
    const log = (
      await gqlOk(ws.adminToken, 'query($id: ID!) { agent(id: $id) { changeLog { changes { action path } } } }', { id })
    ).agent.changeLog;
    expect(log[0].changes).to.deep.equal([{ action: 'DELETE', path: 'spec.channels[address=+14155550801]' }]);
  });

  it('names every invalid channel entry at its line and column, and writes nothing', async () => {
    const before = await rows();
    const bad = manifest(
      'broken',
      `    - kind: FAX
      address: "+14155550810"
      handler: {prompt: p}
    - kind: SMS
      address: not a number
      handler: {prompt: p}
    - kind: EMAIL
      address: ok@mail.example.com
      allowedSenders: [fine@example.com, "not an address"]
      handler: {prompt: p}
    - kind: SMS
      address: "+14155550811"
      colour: red
      handler: {prompt: p}
`,
    );
    const issues = issuesOf(await gql(ws.adminToken, PLAN, { y: bad }));
    const at = (field: string) => issues.find((i) => i.field === field);
    expect(at('spec.channels.0.kind'), JSON.stringify(issues)).to.include({ line: 7, column: 13 });
    expect(at('spec.channels.1.address')).to.include({ line: 11, column: 16 });
    expect(at('spec.channels.1.address')!.message).to.match(/^must be a phone number in E\.164 form/);
    expect(at('spec.channels.2.allowedSenders.1')).to.include({ line: 15, column: 42 });
    expect(at('spec.channels.3.colour')).to.include({ line: 19, column: 7 });

    // Once the schema is satisfied: the same address twice (however written), a script that does
    // not compile, a model override on a script, a model the workspace lacks.
    const rules = manifest(
      'broken',
      `    - kind: SMS
      address: "+14155550812"
      handler: {prompt: p}
      modelOverride: no-such-model
    - kind: SMS
      address: +1 415-555-0812
      handler: {prompt: p}
    - kind: EMAIL
      address: script@mail.example.com
      handler:
        script: |
          return (;
    - kind: EMAIL
      address: other@mail.example.com
      handler: {script: "return 1;"}
      modelOverride: gpt-4o
`,
    );
    const r = await gql(ws.adminToken, APPLY, { y: rules, d: 'x' });
    const found = issuesOf(r);
    const get = (field: string) => found.find((i) => i.field === field);
    expect(get('spec.channels.1.address'), JSON.stringify(found)).to.include({ line: 12, column: 16 });
    expect(get('spec.channels.1.address')!.message).to.match(/appears twice \(also entry 0\)/);
    expect(get('spec.channels.2.handler.script')!.line).to.be.within(18, 19);
    expect(get('spec.channels.3.modelOverride')).to.include({ line: 22, column: 22 });
    expect(get('spec.channels.0.modelOverride')).to.include({ line: 10, column: 22 });
    // Missing models are listed as for every entry, never created.
    expect(found.filter((i) => (i as { kind?: string }).kind === 'MODEL').map((i) => i.field)).to.deep.equal([
      'spec.channels.0.modelOverride',
      'spec.channels.3.modelOverride',
    ]);
    expect(await rows()).to.equal(before);
  });

  it('refuses an address another agent holds, at its line, before anything is written', async () => {
    const other = await createAgent(ws.adminToken, { name: 'holder' });
    await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addChannel(agentId: $a, input: {kind: EMAIL, address: "taken@mail.example.com", handler: {prompt: "mine"}}) { id } }',
      { a: other },
    );
    const before = await rows();
    const yaml = manifest(
      'taker',
      '    - kind: EMAIL\n      address: Taken@Mail.Example.com\n      handler: {prompt: p}\n',
    );
    const issues = issuesOf(await gql(ws.adminToken, PLAN, { y: yaml }));
    expect(issues).to.have.length(1);
    expect(issues[0]).to.include({ field: 'spec.channels.0.address', line: 8, column: 16 });
    expect(issues[0]!.message).to.match(/already routes to another agent/);
    expect(errorCode(await gql(ws.adminToken, APPLY, { y: yaml, d: 'x' }))).to.equal('BAD_USER_INPUT');
    expect(await rows()).to.equal(before);
    // The agent that holds it may state it.
    const own = manifest(
      'holder',
      '    - kind: EMAIL\n      address: taken@mail.example.com\n      handler: {prompt: mine}\n',
    );
    expect((await plan(own)).changes).to.deep.equal([]);
  });

  it('hostile text (U+0000, lone surrogates, control characters) is a 400 or stored as given, never a 500', async () => {
    // [manifest, the field the plan refuses, or null when the text is only stored (and must not 500)]
    const cases: [string, string | null][] = [
      [
        manifest('nul', '    - kind: EMAIL\n      address: "a\\0b@mail.example.com"\n      handler: {prompt: p}\n'),
        'spec.channels.0.address',
      ],
      [
        manifest('nul', '    - kind: SMS\n      address: "+1415555\\00820"\n      handler: {prompt: p}\n'),
        'spec.channels.0.address',
      ],
      [
        manifest(
          'nul',
          '    - kind: SMS\n      address: "+14155550821"\n      allowedSenders: ["+1\\0"]\n      handler: {prompt: p}\n',
        ),
        'spec.channels.0.allowedSenders.0',
      ],
      [
        manifest(
          'nul',
          '    - kind: SMS\n      address: "+14155550823"\n      "\\0key": 1\n      handler: {prompt: p}\n',
        ),
        'spec.channels.0.\u0000key',
      ],
      [
        manifest('nul', '    - kind: EMAIL\n      address: "\\uD800@mail.example.com"\n      handler: {prompt: p}\n'),
        'spec.channels.0.address',
      ],
      [
        manifest('nul', '    - kind: EMAIL\n      address: "bell\\a@mail.example.com"\n      handler: {prompt: p}\n'),
        'spec.channels.0.address',
      ],
      [
        manifest('nul', '    - kind: SMS\n      address: "+14155550822"\n      handler: {prompt: "nul \\0 here"}\n'),
        null,
      ],
      [
        manifest('nul2', '    - kind: SMS\n      address: "+14155550824"\n      handler: {prompt: "\\uDC00 lone"}\n'),
        null,
      ],
    ];
    for (const [yaml, field] of cases) {
      const before = await rows();
      const p = await gql(ws.adminToken, PLAN, { y: yaml });
      expect(p.status, yaml).to.be.below(500);
      if (field) {
        expect(
          issuesOf(p).map((i) => i.field),
          yaml,
        ).to.include(field);
        expect(await rows()).to.equal(before);
        continue;
      }
      expect(p.errors, yaml).to.equal(undefined);
      const r = await gql(ws.adminToken, APPLY, { y: yaml, d: p.data.planManifest.digest });
      expect(r.status, yaml).to.be.below(500);
      if (r.errors) {
        expect(errorCode(r), yaml).to.equal('BAD_USER_INPUT');
        expect(await rows(), yaml).to.equal(before);
      }
    }
  });

  it('the JSON Schema describes spec.channels, closed like every entry', async () => {
    const schema = (await (await fetch(`${h().url}/schemas/agent-manifest.v1.json`)).json()) as any;
    const channel = schema.properties.spec.properties.channels.items;
    expect(channel.additionalProperties).to.equal(false);
    expect(channel.required).to.deep.equal(['kind', 'address', 'handler']);
    expect(Object.keys(channel.properties)).to.deep.equal([
      'kind',
      'address',
      'handler',
      'modelOverride',
      'allowedSenders',
      'autoReply',
    ]);
    expect(channel.properties.kind.enum).to.deep.equal(['EMAIL', 'SMS']);
    expect(Object.keys(schema.properties.spec.properties.surfaces.properties)).to.include.members(['EMAIL', 'SMS']);
  });
});
