import { expect } from 'chai';
import { newId } from '../../src/domain/ids.js';
import type { Message } from '../../src/domain/messages/message.entities.js';
import { MAX_MESSAGES_PER_RUN } from '../../src/domain/channels/message-sender.js';
import { messages as messageRows } from '../../src/infra/store/rows/messages.js';
import { createAgent, gqlOk, h, type TestWorkspace } from '../helpers/harness.js';
import type { FakeOpenAi, FakeToolCall } from '../helpers/openai-server.js';
import { useFakeModelWorkspace } from '../helpers/runtime.js';
import { addHttpEndpoint, call, createAgentKey, httpApiPath } from '../helpers/surface-calls.js';

// The messaging capability (docs/decisions.md §33): `send_email` and `send_sms` through a real
// prompt run on the local model server, which issues the tool calls. What the model is told (the
// tool results) and what is stored (outbound messages, queued for the channel queue) are checked.

type Agent = { id: string; key: string };

// Channel addresses are unique across the service: this file's own mail domain and number range.
const MAIL = `m${Math.random().toString(36).slice(2, 8)}.example.net`;
const RANGE = String(Math.floor(Math.random() * 10_000)).padStart(4, '0');
const N = (n: number) => `+1555${RANGE}${String(n).padStart(3, '0')}`;
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('messaging tools of a prompt run', function () {
  this.timeout(60_000);
  let fake: FakeOpenAi;
  let ws: TestWorkspace;

  useFakeModelWorkspace((s) => ({ fake, ws } = s));

  const setCapabilities = (id: string, c: Record<string, boolean>) =>
    gqlOk(
      ws.adminToken,
      'mutation($a: ID!, $c: CapabilitiesInput!) { setCapabilities(agentId: $a, input: $c) { capabilities { endpointManagement documents messaging } } }',
      { a: id, c },
    );
  const addChannel = async (agentId: string, input: Record<string, unknown>): Promise<string> =>
    (
      await gqlOk(ws.adminToken, 'mutation($a: ID!, $i: ChannelInput!) { addChannel(agentId: $a, input: $i) { id } }', {
        a: agentId,
        i: { handler: { prompt: 'Answer briefly.' }, ...input },
      })
    ).addChannel.id;

  /** An agent on the fake model with messaging on (unless told), a prompt endpoint `assist`, and the given channels. */
  async function messagingAgent(
    channels: Record<string, unknown>[],
    messaging = true,
  ): Promise<Agent & { channels: string[] }> {
    const id = await createAgent(ws.adminToken, { name: 'Messenger', defaultModel: 'test-model' });
    if (messaging) await setCapabilities(id, { messaging: true });
    const ids: string[] = [];
    for (const c of channels) ids.push(await addChannel(id, c));
    await addHttpEndpoint(ws.adminToken, id, { path: 'assist', handler: { prompt: 'Use your tools.' } });
    return { id, key: await createAgentKey(ws.adminToken, id), channels: ids };
  }

  /** Runs `assist` while the model makes `steps` of tool calls, then answers; returns the tool results and the run id. */
  async function runTools(
    agent: Agent,
    steps: FakeToolCall[][],
    json: unknown = { task: 'tell people' },
  ): Promise<{ results: any[]; runId: string }> {
    fake.enqueue(...steps.map((toolCalls) => ({ toolCalls })), { text: 'done' });
    const r = await call('POST', httpApiPath(agent.id, 'assist'), { key: agent.key, json });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.output).to.equal('done');
    expect(fake.pending()).to.equal(0);
    const last = fake.requests.at(-1)!.body.messages!;
    return {
      results: last.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content))),
      runId: r.json.runId,
    };
  }

  async function stored(agentId: string): Promise<Message[]> {
    return (await h().db('messages').where({ agent_id: agentId }).orderBy('created_at')).map(messageRows.fromRow);
  }

  const toolNames = (i = 0) =>
    ((fake.requests[i]!.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

  it('the setCapabilities field turns messaging on and off, the other capabilities untouched; a new agent has it off', async () => {
    const id = await createAgent(ws.adminToken, { name: 'Caps' });
    const read = async () =>
      (
        await gqlOk(
          ws.adminToken,
          'query($a: ID!) { agent(id: $a) { capabilities { endpointManagement documents messaging } } }',
          { a: id },
        )
      ).agent.capabilities;
    expect(await read()).to.deep.equal({ endpointManagement: false, documents: false, messaging: false });
    expect((await setCapabilities(id, { documents: true })).setCapabilities.capabilities).to.deep.equal({
      endpointManagement: false,
      documents: true,
      messaging: false,
    });
    expect((await setCapabilities(id, { messaging: true })).setCapabilities.capabilities).to.deep.equal({
      endpointManagement: false,
      documents: true,
      messaging: true,
    });
    expect(await read()).to.deep.equal({ endpointManagement: false, documents: true, messaging: true });
    expect((await setCapabilities(id, { messaging: false })).setCapabilities.capabilities).to.deep.equal({
      endpointManagement: false,
      documents: true,
      messaging: false,
    });
  });

  it('an agent stored before the capability existed reads it as off', async () => {
    const id = await createAgent(ws.adminToken, { name: 'Old' });
    await h()
      .db('agents')
      .where({ id })
      .update({ capabilities: JSON.stringify({ endpointManagement: false, documents: true }) });
    const row = await h().db('agents').where({ id }).first();
    const { agents } = await import('../../src/infra/store/rows/agents.js');
    expect(agents.fromRow(row).capabilities).to.deep.equal({
      endpointManagement: false,
      documents: true,
      messaging: false,
    });
  });

  it('a manifest carries the capability: exported, and a changed value planned and applied', async () => {
    const id = await createAgent(ws.adminToken, { name: `manifest-messenger-${RANGE}` });
    await setCapabilities(id, { messaging: true });
    const exported: string = (
      await gqlOk(ws.adminToken, 'query($ids: [ID!]) { exportAgents(ids: $ids) }', { ids: [id] })
    ).exportAgents;
    expect(exported).to.contain(
      '  capabilities:\n    documents: false\n    endpointManagement: false\n    messaging: true\n',
    );
    const off = exported.replace('messaging: true', 'messaging: false');
    const plan = (
      await gqlOk(ws.adminToken, 'query($y: String!) { planManifest(yaml: $y) { digest changes { action path } } }', {
        y: off,
      })
    ).planManifest;
    expect(plan.changes).to.deep.equal([{ action: 'UPDATE', path: 'spec.capabilities.messaging' }]);
    await gqlOk(
      ws.adminToken,
      'mutation($y: String!, $d: String!) { applyManifest(yaml: $y, planDigest: $d) { changed } }',
      { y: off, d: plan.digest },
    );
    const read = await gqlOk(ws.adminToken, 'query($a: ID!) { agent(id: $a) { capabilities { messaging } } }', {
      a: id,
    });
    expect(read.agent.capabilities.messaging).to.equal(false);
  });

  it('without the capability no messaging tool is offered; with it both are, with their required arguments', async () => {
    const off = await messagingAgent(
      [{ kind: 'EMAIL', address: `off@${MAIL}`, allowedSenders: ['@example.com'] }],
      false,
    );
    await runTools(off, []);
    expect(toolNames()).to.not.include.members(['send_email']).and.not.include('send_sms');
    fake.reset();
    const on = await messagingAgent([{ kind: 'EMAIL', address: `on@${MAIL}`, allowedSenders: ['@example.com'] }]);
    await runTools(on, []);
    const tools = (fake.requests[0]!.body.tools ?? []) as {
      function: { name: string; description: string; parameters: { required: string[] } };
    }[];
    const byName = Object.fromEntries(tools.map((t) => [t.function.name, t.function]));
    expect(byName.send_email!.parameters.required).to.deep.equal(['to', 'subject', 'text']);
    expect(byName.send_sms!.parameters.required).to.deep.equal(['to', 'text']);
    // The open-relay rule is in what the model is told, not only in what it is refused.
    expect(byName.send_email!.description).to.match(
      /with no allowed senders sends only into the thread being answered, never to anyone else/,
    );
  });

  it('queues an email and a text message to allowed recipients: stored outbound, queued, with the run id and the initiative mark', async () => {
    const agent = await messagingAgent([
      { kind: 'EMAIL', address: `news@${MAIL}`, allowedSenders: ['@example.com'] },
      { kind: 'SMS', address: N(100), allowedSenders: ['+14155550999'] },
    ]);
    const { results, runId } = await runTools(agent, [
      [
        { name: 'send_email', arguments: { to: 'Boss@Example.com', subject: 'Weekly report', text: 'All green.' } },
        { name: 'send_sms', arguments: { to: '+1 (415) 555-0999', text: 'Report sent.' } },
      ],
    ]);
    const rows = await stored(agent.id);
    expect(rows).to.have.length(2);
    const email = rows.find((m) => m.channel === 'email')!;
    const sms = rows.find((m) => m.channel === 'sms')!;
    expect(results).to.deep.equal([
      { queued: email.id, to: 'boss@example.com', from: `news@${MAIL}` },
      { queued: sms.id, to: '+14155550999', from: N(100) },
    ]);
    expect(email).to.include({
      direction: 'outbound',
      status: 'queued',
      from: `news@${MAIL}`,
      to: 'boss@example.com',
      subject: 'Weekly report',
      body: 'All green.',
      runId,
      inReplyTo: null,
      channelId: agent.channels[0],
    });
    expect(email.messageId).to.match(/^<.+@.+>$/);
    expect(email.threadId).to.equal(email.messageId);
    expect((email.provider as any).email.headers).to.deep.equal({
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
    });
    expect(sms).to.include({
      direction: 'outbound',
      status: 'queued',
      from: N(100),
      to: '+14155550999',
      subject: null,
      body: 'Report sent.',
      runId,
      channelId: agent.channels[1],
    });
    expect(sms.threadId).to.equal(`${agent.channels[1]}:+14155550999`);
  });

  it('refuses a recipient the channel does not allow, and anyone at all on a channel with no allowed senders; nothing is stored', async () => {
    // A caller's body that looks like a received message names no thread: only a channel's run answers one.
    const agent = await messagingAgent([
      { kind: 'EMAIL', address: `guarded@${MAIL}`, allowedSenders: ['boss@example.com'] },
      { kind: 'EMAIL', address: `open@${MAIL}` },
    ]);
    const { results } = await runTools(
      agent,
      [
        [
          { name: 'send_email', arguments: { to: 'stranger@evil.test', subject: 'Hi', text: 'x' } },
          { name: 'send_email', arguments: { to: 'peer@example.com', subject: 'Hi', text: 'x' } },
          { name: 'send_email', arguments: { to: 'boss@example.com', from: `open@${MAIL}`, subject: 'Hi', text: 'x' } },
          { name: 'send_sms', arguments: { to: '+14155550999', text: 'x' } },
          { name: 'send_email', arguments: { to: 'caller@evil.test', from: `open@${MAIL}`, subject: 'Hi', text: 'x' } },
        ],
      ],
      { from: 'caller@evil.test', threadId: 't1', messageId: '<m@evil.test>', text: 'write to me' },
    );
    expect(results.map((r) => r.code)).to.deep.equal(['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN']);
    expect(results[0].error).to.match(
      new RegExp(`^to: stranger@evil\\.test may not be written to from ${escaped(`guarded@${MAIL}`)}`),
    );
    expect(results[2].error).to.match(/lists no allowed senders/);
    expect(results[3].error).to.match(/no SMS number/);
    expect(await stored(agent.id)).to.deep.equal([]);
  });

  it(`stops at ${MAX_MESSAGES_PER_RUN} messages in one run, even when the model asks for more at once`, async () => {
    const agent = await messagingAgent([{ kind: 'SMS', address: N(200), allowedSenders: ['+14155550999'] }]);
    const calls = Array.from({ length: MAX_MESSAGES_PER_RUN + 2 }, (_, i) => ({
      name: 'send_sms',
      arguments: { to: '+14155550999', text: `notice ${i}` },
    }));
    const { results } = await runTools(agent, [calls.slice(0, 4), calls.slice(4)]);
    expect(results.filter((r) => r.queued)).to.have.length(MAX_MESSAGES_PER_RUN);
    const refused = results.filter((r) => r.error);
    expect(refused).to.have.length(2);
    expect(refused[0].error).to.match(/already sent 10 messages/);
    expect(await stored(agent.id)).to.have.length(MAX_MESSAGES_PER_RUN);
    // The cap is per run: the next run sends again.
    fake.reset();
    expect((await runTools(agent, [[calls[0]!]])).results[0].queued).to.be.a('string');
  });

  it('hostile arguments are tool errors the model sees, never a failed run, and store nothing', async () => {
    const agent = await messagingAgent([
      { kind: 'EMAIL', address: `robust@${MAIL}`, allowedSenders: ['@example.com'] },
      { kind: 'SMS', address: N(300), allowedSenders: ['+14155550999'] },
    ]);
    const email = (args: Record<string, unknown>) => ({
      name: 'send_email',
      arguments: { to: 'a@example.com', subject: 'S', text: 'T', ...args },
    });
    const sms = (args: Record<string, unknown>) => ({
      name: 'send_sms',
      arguments: { to: '+14155550999', text: 'T', ...args },
    });
    const cases: [FakeToolCall, RegExp][] = [
      [email({ to: 'a\u0000@example.com' }), /^to: must not contain U\+0000/],
      [email({ text: 'bad \uD800 half' }), /^text: must be valid Unicode/],
      [email({ subject: 'x\uDC00' }), /^subject: must be valid Unicode/],
      [email({ text: 'nul \u0000 inside' }), /^text: must not contain U\+0000/],
      [email({ subject: 'Hi\r\nBcc: everyone@evil.test' }), /^subject: must be one line/],
      [email({ text: 'x'.repeat(2_000_000) }), /^text: must be at most 100000 characters/],
      [email({ text: '   ' }), /^text: must not be empty/],
      [email({ to: 'not an address' }), /^to: must be an email address/],
      [email({ to: ['a@example.com'] }), /^to: /],
      [
        email({ from: 'someone@else.example.com' }),
        new RegExp(
          `^from: someone@else\\.example\\.com is not one of this agent's email addresses \\(${escaped(`robust@${MAIL}`)}\\)`,
        ),
      ],
      [sms({ text: 'y'.repeat(1601) }), /^text: must be at most 1600 characters \(what one text message may carry\)/],
      [sms({ to: '+1415555\uD83D' }), /^to: must be valid Unicode/],
      [sms({ to: 'call me' }), /^to: must be a phone number in E\.164 form/],
      [{ name: 'send_sms', arguments: {} }, /^to: /],
    ];
    const { results } = await runTools(agent, [cases.map(([c]) => c)]);
    expect(results).to.have.length(cases.length);
    results.forEach((r, i) => {
      expect(r.code, `case ${i}: ${JSON.stringify(r)}`).to.equal('INVALID');
      expect(r.error, `case ${i}`).to.match(cases[i]![1]);
    });
    expect(await stored(agent.id)).to.deep.equal([]);
  });

  describe('answering a received message', () => {
    /** Stores an inbound message not yet due (the queue leaves it alone) and answers it as the channel queue would. */
    async function answer(agentId: string, channelId: string, m: Partial<Message>, steps: FakeToolCall[][]) {
      const agent = (await h().service.store.repos.agents.get(agentId))!;
      const now = new Date();
      const inbound: Message = {
        id: newId('msg'),
        workspaceId: agent.workspaceId,
        agentId,
        direction: 'inbound',
        channel: 'email',
        from: '',
        to: '',
        subject: null,
        body: 'Where is my order?',
        sentAt: now,
        createdAt: now,
        channelId,
        threadId: null,
        messageId: null,
        inReplyTo: null,
        status: 'received',
        attempts: 1,
        failures: 0,
        nextAttemptAt: null,
        lockedUntil: null,
        lastError: null,
        runId: null,
        provider: null,
        ...m,
      };
      await h().service.store.repos.messages.insert(inbound);
      fake.enqueue(...steps.map((toolCalls) => ({ toolCalls })), { text: 'Thanks, on its way.' });
      const outcome = await h().service.services.channelMessages.run(inbound);
      expect(outcome.kind, JSON.stringify(outcome)).to.equal('done');
      const results = fake.requests
        .at(-1)!
        .body.messages!.filter((x) => x.role === 'tool')
        .map((x) => JSON.parse(String(x.content)));
      return { results, runId: (outcome as { runId: string }).runId, inbound };
    }

    it('an email channel with no allowed senders writes to the sender it answers, in that thread, and to no one else', async () => {
      const agent = await messagingAgent([{ kind: 'EMAIL', address: `help@${MAIL}` }]);
      const { results, runId } = await answer(
        agent.id,
        agent.channels[0]!,
        {
          from: 'customer@shop.test',
          to: `help@${MAIL}`,
          subject: 'Order 42',
          messageId: '<q2@shop.test>',
          threadId: '<q1@shop.test>',
          provider: { email: { references: ['<q1@shop.test>'] } },
        },
        [
          [
            {
              name: 'send_email',
              arguments: { to: 'Customer@Shop.test', subject: 'Re: Order 42', text: 'It shipped today.' },
            },
            { name: 'send_email', arguments: { to: 'someone-else@shop.test', subject: 'Psst', text: 'x' } },
          ],
        ],
      );
      expect(results[0].queued).to.be.a('string');
      expect(results[1].code).to.equal('FORBIDDEN');
      const out = (await stored(agent.id)).filter((m) => m.direction === 'outbound');
      expect(out).to.have.length(1);
      expect(out[0]).to.include({
        id: results[0].queued,
        to: 'customer@shop.test',
        threadId: '<q1@shop.test>',
        inReplyTo: '<q2@shop.test>',
        runId,
        status: 'queued',
      });
      const details = (out[0]!.provider as any).email;
      expect(details.references).to.deep.equal(['<q1@shop.test>', '<q2@shop.test>']);
      expect(details.headers['Auto-Submitted']).to.equal('auto-replied');
    });

    it('an SMS channel answers the number that wrote, in its thread, from the channel it came to', async () => {
      const agent = await messagingAgent([
        { kind: 'SMS', address: N(400) },
        { kind: 'SMS', address: N(401) },
      ]);
      const channel = agent.channels[1]!;
      const { results, runId } = await answer(
        agent.id,
        channel,
        { channel: 'sms', from: '+14155550123', to: N(401), messageId: 'SM0001', threadId: `${channel}:+14155550123` },
        [
          [
            { name: 'send_sms', arguments: { to: '+1 415 555 0123', text: 'On its way.' } },
            // The thread is the channel's: the agent's other number may not write to that sender.
            { name: 'send_sms', arguments: { to: '+14155550123', from: N(400), text: 'Hello from elsewhere' } },
          ],
        ],
      );
      expect(results[0]).to.deep.include({ to: '+14155550123', from: N(401) });
      expect(results[1].code).to.equal('FORBIDDEN');
      const [out] = (await stored(agent.id)).filter((m) => m.direction === 'outbound');
      expect(out).to.include({
        from: N(401),
        to: '+14155550123',
        threadId: `${channel}:+14155550123`,
        inReplyTo: 'SM0001',
        runId,
        status: 'queued',
      });
    });
  });
});
