import { expect } from 'chai';
import type { DomainError } from '../../src/domain/errors.js';
import type { Json } from '../../src/domain/json.js';
import type { ToolDefinition } from '../../src/domain/models/language-model.ports.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent, refusal } from '../helpers/runtime.js';

// The agent's own channels through its Endpoint Management tools (docs/decisions.md §30): the same
// EntryService methods as the GraphQL mutations, so the same normalisation (E.164, lower-case
// email), uniqueness across the service (CONFLICT), validation (INVALID naming the field) and
// policy (only its own agent, only with the capability on).

type Tools = Record<string, ToolDefinition>;

async function toolsOf(agentId: string): Promise<Tools> {
  const tools = h().service.services.endpointManagement.toolsFor(await loadAgent(agentId));
  return Object.fromEntries(tools.map((t) => [t.name, t]));
}

const call = (tools: Tools, name: string, args: Record<string, unknown>) =>
  tools[name]!.execute!(args) as Promise<Record<string, Json>>;

describe('Endpoint Management tools: channels', function () {
  this.timeout(30_000);
  let ws: TestWorkspace;
  let own: string;
  let other: string;
  let otherChannel: string;
  let tools: Tools;

  before(async () => {
    ws = await newWorkspace();
    own = await createAgent(ws.adminToken, { name: 'self-managing' });
    other = await createAgent(ws.adminToken, { name: 'someone else' });
    await gqlOk(
      ws.adminToken,
      'mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }',
      { id: own },
    );
    const c = await gqlOk(
      ws.adminToken,
      'mutation($a: ID!) { addChannel(agentId: $a, input: {kind: SMS, address: "+14155550300", handler: {prompt: "theirs"}}) { id } }',
      { a: other },
    );
    otherChannel = c.addChannel.id;
    tools = await toolsOf(own);
  });

  it('offers add_channel, update_channel and remove_channel, with the ChannelInput fields, and lists channels in list_surfaces', () => {
    for (const name of ['add_channel', 'update_channel', 'remove_channel']) expect(tools, name).to.have.property(name);
    const add = tools.add_channel!.inputSchema as {
      properties: { input: { properties: Record<string, { enum?: string[] }>; required: string[] } };
    };
    expect(Object.keys(add.properties.input.properties).sort()).to.deep.equal([
      'address',
      'allowedSenders',
      'autoReply',
      'handler',
      'kind',
      'modelOverride',
    ]);
    expect(add.properties.input.required.sort()).to.deep.equal(['address', 'handler', 'kind']);
    expect(add.properties.input.properties.kind!.enum).to.deep.equal(['EMAIL', 'SMS']);
    expect(tools.list_surfaces!.description).to.match(/channels/);
  });

  it("adds a channel normalised as over GraphQL, and list_surfaces shows it (and not another agent's)", async () => {
    const sms = await call(tools, 'add_channel', {
      input: {
        kind: 'SMS',
        address: '+1 (415) 555-0301',
        handler: { prompt: 'Answer briefly.' },
        allowedSenders: ['+44 20 7946 0001'],
      },
    });
    expect(sms).to.deep.include({
      agentId: own,
      kind: 'SMS',
      address: '+14155550301',
      allowedSenders: ['+442079460001'],
      autoReply: true,
      modelOverride: null,
    });
    expect(sms.handler).to.deep.equal({ kind: 'PROMPT', prompt: 'Answer briefly.', script: null });
    const mail = await call(tools, 'add_channel', {
      input: {
        kind: 'EMAIL',
        address: 'Help@Mail.Example.com',
        handler: { script: 'return "ok";' },
        autoReply: false,
        allowedSenders: ['@Example.com'],
      },
    });
    expect(mail).to.deep.include({
      kind: 'EMAIL',
      address: 'help@mail.example.com',
      autoReply: false,
      allowedSenders: ['@example.com'],
    });
    // An agentId the model names is not the agent acted on.
    const bound = await call(tools, 'add_channel', {
      agentId: other,
      input: { kind: 'SMS', address: '+14155550302', handler: { prompt: 'p' } },
    });
    expect(bound.agentId).to.equal(own);

    const listed = await call(tools, 'list_surfaces', {});
    expect((listed.channels as { address: string }[]).map((c) => c.address)).to.deep.equal([
      '+14155550301',
      'help@mail.example.com',
      '+14155550302',
    ]);
    const d = await gqlOk(ws.adminToken, 'query($id: ID!) { agent(id: $id) { channels { id address } } }', { id: own });
    expect(d.agent.channels.map((c: { id: string }) => c.id)).to.deep.equal(
      (listed.channels as { id: string }[]).map((c) => c.id),
    );
  });

  it('refuses invalid input as INVALID naming the field, and writes nothing', async () => {
    const cases: [Record<string, unknown> | undefined, RegExp][] = [
      [undefined, /^input: required/],
      [{ kind: 'FAX', address: '+14155550310', handler: { prompt: 'p' } }, /^input\.kind: /],
      [{ kind: 'SMS', address: 'not a number', handler: { prompt: 'p' } }, /^input\.address: must be a phone number/],
      [{ kind: 'EMAIL', address: 'nobody', handler: { prompt: 'p' } }, /^input\.address: must be an email address/],
      [
        { kind: 'EMAIL', address: 'a\u0000b@example.com', handler: { prompt: 'p' } },
        /^input\.address: must be an email address/,
      ],
      [
        { kind: 'SMS', address: '+14155550311', handler: { prompt: 'p' }, allowedSenders: ['x@example.com'] },
        /^input\.allowedSenders\.0: must be a phone number/,
      ],
      [{ kind: 'SMS', address: '+14155550312', handler: { prompt: 'p', script: 'return 1;' } }, /^input\.handler/],
      [
        { kind: 'SMS', address: '+14155550313', handler: { script: 'return (;' } },
        /^input\.handler\.script|^handler\.script/,
      ],
      [
        { kind: 'SMS', address: '+14155550314', handler: { script: 'return 1;' }, modelOverride: 'gpt-4o' },
        /modelOverride/,
      ],
    ];
    const before = await gqlOk(ws.adminToken, 'query($id: ID!) { agent(id: $id) { channels { address } } }', {
      id: own,
    });
    for (const [input, message] of cases) {
      const err = await refusal(() => call(tools, 'add_channel', input === undefined ? {} : { input }));
      expect(err.code, JSON.stringify(input)).to.equal('INVALID');
      expect(err.message, JSON.stringify(input)).to.match(message);
    }
    const after = await gqlOk(ws.adminToken, 'query($id: ID!) { agent(id: $id) { channels { address } } }', {
      id: own,
    });
    expect(after).to.deep.equal(before);
  });

  it('refuses an address that already routes to an agent (its own or another) as CONFLICT on address', async () => {
    for (const address of ['+1 415 555 0300', '+14155550301']) {
      const err = await refusal(() =>
        call(tools, 'add_channel', { input: { kind: 'SMS', address, handler: { prompt: 'p' } } }),
      );
      expect(err.code, address).to.equal('CONFLICT');
      expect(err.details, address).to.deep.include({ field: 'address' });
      expect(err.message, address).to.match(/already routes to an agent/);
    }
    const mine = ((await call(tools, 'list_surfaces', {})).channels as { id: string; address: string }[]).find(
      (c) => c.address === 'help@mail.example.com',
    )!;
    const err = await refusal(() => call(tools, 'update_channel', { id: mine.id, input: { address: '+14155550301' } }));
    // The kind stays EMAIL: a number is not an email address.
    expect(err.code).to.equal('INVALID');
    const sms = ((await call(tools, 'list_surfaces', {})).channels as { id: string; address: string }[]).find(
      (c) => c.address === '+14155550302',
    )!;
    expect(
      (await refusal(() => call(tools, 'update_channel', { id: sms.id, input: { address: '+14155550300' } }))).code,
    ).to.equal('CONFLICT');
  });

  it('updates and removes its own channel; an unknown id is NOT_FOUND', async () => {
    const added = await call(tools, 'add_channel', {
      input: { kind: 'SMS', address: '+14155550320', handler: { prompt: 'p' } },
    });
    const updated = await call(tools, 'update_channel', {
      id: added.id,
      input: {
        address: '+1 415 555 0321',
        autoReply: false,
        allowedSenders: ['+14155550999'],
        handler: { script: 'return "x";' },
      },
    });
    expect(updated).to.deep.include({
      id: added.id,
      kind: 'SMS',
      address: '+14155550321',
      autoReply: false,
      allowedSenders: ['+14155550999'],
    });
    expect(updated.handler).to.deep.equal({ kind: 'SCRIPT', prompt: null, script: 'return "x";' });
    const cleared = await call(tools, 'update_channel', { id: added.id, input: { allowedSenders: null } });
    expect(cleared.allowedSenders).to.deep.equal([]);
    expect(await call(tools, 'remove_channel', { id: added.id })).to.equal(true);
    for (const id of [String(added.id), 'ch_doesnotexist', 'ch_\u0000x']) {
      for (const [name, args] of [
        ['update_channel', { id, input: { autoReply: true } }],
        ['remove_channel', { id }],
      ] as const) {
        const err = await refusal(() => call(tools, name, args));
        expect(['NOT_FOUND', 'INVALID'], `${name} ${JSON.stringify(id)}`).to.include(err.code);
        if (!id.includes('\u0000')) expect(err.code).to.equal('NOT_FOUND');
      }
    }
  });

  it("cannot see, change or remove another agent's channel", async () => {
    const listed = await call(tools, 'list_surfaces', {});
    expect((listed.channels as { id: string }[]).map((c) => c.id)).not.to.include(otherChannel);
    const refusals: DomainError[] = [
      await refusal(() =>
        call(tools, 'update_channel', { id: otherChannel, input: { handler: { prompt: 'hijacked' } } }),
      ),
      await refusal(() => call(tools, 'remove_channel', { id: otherChannel })),
      await refusal(() =>
        h().service.services.endpointManagement.call(
          { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId: own },
          'addChannel',
          { agentId: other, input: { kind: 'SMS', address: '+14155550330', handler: { prompt: 'p' } } },
        ),
      ),
    ];
    for (const err of refusals) expect(['FORBIDDEN', 'NOT_FOUND']).to.include(err.code);
    const d = await gqlOk(
      ws.adminToken,
      'query($id: ID!) { agent(id: $id) { channels { id address handler { prompt } } } }',
      { id: other },
    );
    expect(d.agent.channels).to.deep.equal([
      { id: otherChannel, address: '+14155550300', handler: { prompt: 'theirs' } },
    ]);
  });

  it('refuses an agent whose capability is off (FORBIDDEN), whatever tools it was handed', async () => {
    await gqlOk(
      ws.adminToken,
      'mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: false}) { id } }',
      { id: own },
    );
    try {
      const err = await refusal(() =>
        call(tools, 'add_channel', { input: { kind: 'SMS', address: '+14155550340', handler: { prompt: 'p' } } }),
      );
      expect(err.code).to.equal('FORBIDDEN');
    } finally {
      await gqlOk(
        ws.adminToken,
        'mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }',
        { id: own },
      );
    }
  });
});
