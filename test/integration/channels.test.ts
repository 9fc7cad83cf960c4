import { expect } from 'chai';
import { createAgent, errorCode, gql, gqlOk, newWorkspace, type TestWorkspace } from '../helpers/harness.js';

// Channel entries over GraphQL (docs/decisions.md §30): an agent's SMS numbers and email addresses,
// normalised and validated by kind, unique per kind across the service, listed on the agent.

const FIELDS = 'id agentId kind address modelOverride allowedSenders autoReply handler { kind prompt script }';

describe('GraphQL: channels', () => {
  let ws: TestWorkspace;
  let agent: string;
  const add = (agentId: string, input: Record<string, unknown>) =>
    gql(ws.adminToken, `mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { ${FIELDS} } }`, {
      a: agentId,
      i: input,
    });

  before(async () => {
    ws = await newWorkspace();
    agent = await createAgent(ws.adminToken, { name: 'Channels' });
  });

  it('adds an SMS number in E.164 form and an email address in lower case, listed on the agent', async () => {
    const sms = await add(agent, {
      kind: 'SMS',
      address: '+1 (415) 555-0100',
      handler: { script: 'return "hi";' },
      allowedSenders: ['+44 20 7946 0000', '+442079460000'],
    });
    expect(sms.errors).to.equal(undefined);
    expect(sms.data.addChannel).to.include({
      agentId: agent,
      kind: 'SMS',
      address: '+14155550100',
      autoReply: true,
      modelOverride: null,
    });
    expect(sms.data.addChannel.allowedSenders).to.deep.equal(['+442079460000']);
    const mail = await add(agent, {
      kind: 'EMAIL',
      address: 'Support@Mail.Example.com',
      handler: { prompt: 'Answer.' },
      allowedSenders: ['@Example.com'],
      autoReply: false,
    });
    expect(mail.data.addChannel).to.include({ kind: 'EMAIL', address: 'support@mail.example.com', autoReply: false });
    expect(mail.data.addChannel.allowedSenders).to.deep.equal(['@example.com']);
    const d = await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { channels { kind address } } }', {
      a: agent,
    });
    expect(d.agent.channels).to.deep.equal([
      { kind: 'SMS', address: '+14155550100' },
      { kind: 'EMAIL', address: 'support@mail.example.com' },
    ]);
  });

  it('refuses an address that is not one of its kind, naming the field', async () => {
    for (const [kind, address, field] of [
      ['SMS', 'not a number', 'input.address'],
      ['SMS', '+0123', 'input.address'],
      ['EMAIL', 'nobody', 'input.address'],
    ]) {
      const r = await add(agent, { kind, address, handler: { script: 'return 1;' } });
      expect(errorCode(r), address).to.equal('BAD_USER_INPUT');
      expect(r.errors![0]!.message).to.match(new RegExp(`^${field.replace('.', '\\.')}: must be`));
    }
    const r = await add(agent, {
      kind: 'SMS',
      address: '+14155550199',
      handler: { script: 'return 1;' },
      allowedSenders: ['someone@example.com'],
    });
    expect(r.errors![0]!.message).to.match(/^input\.allowedSenders\.0: must be a phone number/);
  });

  it('gives an address to one agent only: the same number on another agent is a CONFLICT on address', async () => {
    const other = await createAgent(ws.adminToken, { name: 'Other' });
    await add(agent, { kind: 'SMS', address: '+14155550111', handler: { script: 'return 1;' } });
    const r = await add(other, { kind: 'SMS', address: '+1 415 555 0111', handler: { script: 'return 1;' } });
    expect(errorCode(r)).to.equal('CONFLICT');
    expect(r.errors![0]!.message).to.match(/already routes to an agent/);
  });

  it('updates a channel (not its kind) and removes it', async () => {
    const id = (await add(agent, { kind: 'SMS', address: '+14155550122', handler: { script: 'return 1;' } })).data
      .addChannel.id;
    const u = await gqlOk(
      ws.adminToken,
      `mutation($id: ID!, $i: UpdateChannelInput!) { updateChannel(id: $id, input: $i) { ${FIELDS} } }`,
      {
        id,
        i: {
          address: '+14155550123',
          handler: { prompt: 'Be brief.' },
          autoReply: false,
          allowedSenders: ['+14155550999'],
        },
      },
    );
    expect(u.updateChannel).to.deep.include({
      kind: 'SMS',
      address: '+14155550123',
      modelOverride: null,
      autoReply: false,
      allowedSenders: ['+14155550999'],
    });
    expect(u.updateChannel.handler).to.deep.equal({ kind: 'PROMPT', prompt: 'Be brief.', script: null });
    const bad = await gql(
      ws.adminToken,
      'mutation($id: ID!) { updateChannel(id: $id, input: {modelOverride: "gpt-4o", handler: {script: "return 1;"}}) { id } }',
      { id },
    );
    expect(errorCode(bad)).to.equal('BAD_USER_INPUT');
    expect(await gqlOk(ws.adminToken, 'mutation($id: ID!) { removeChannel(id: $id) }', { id })).to.deep.equal({
      removeChannel: true,
    });
    expect(errorCode(await gql(ws.adminToken, 'mutation($id: ID!) { removeChannel(id: $id) }', { id }))).to.equal(
      'NOT_FOUND',
    );
  });
});
