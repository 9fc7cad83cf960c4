import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { expect } from 'chai';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// The A2A server as other agents reach it: `@a2a-js/sdk`'s client resolving the agent card from the
// agent's base URL, over JSON-RPC and the HTTP+JSON binding, against the service started in the test
// process (embedded database, or PostgreSQL with TEST_DATABASE_URL), the model played by the local
// OpenAI-compatible test server.

const ADMIN_TOKEN = 'a2a-e2e-admin-token-0123456789';

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: {},
  filename: '',
  mediaType: 'text/plain',
});
const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: {},
  filename: '',
  mediaType: 'application/json',
});

function message(parts: Part[], extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

function answerText(task: Task): string {
  const parts = task.artifacts.flatMap((a) => a.parts);
  return parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('');
}

describe('e2e: the A2A server with @a2a-js/sdk as its client', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let agent: string;
  let key: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  const withKey =
    (k: string): typeof fetch =>
    (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${k}` },
      });

  async function clientFor(
    agentId: string,
    k: string,
    binding: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC',
    url = svc.url,
  ): Promise<Client> {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl: withKey(k) }),
        new RestTransportFactory({ fetchImpl: withKey(k) }),
      ],
      preferredTransports: [binding],
    });
    return new ClientFactory(options).createFromUrl(`${url}/agents/${agentId}/`);
  }

  async function newAgent(
    name: string,
    opts: { a2a?: boolean; instructions?: string } = {},
  ): Promise<{ id: string; key: string }> {
    const id = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: {
          name,
          description: `${name} agent`,
          instructions: opts.instructions ?? 'You answer questions about the shop.',
          defaultModel: 'fake-model',
        },
      })
    ).createAgent.id;
    if (opts.a2a !== false)
      await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: A2A, enabled: true) { id } }', { a: id });
    const k = (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "k") { key } }', { a: id }))
      .createAgentApiKey.key;
    return { id, key: k };
  }

  before(async () => {
    svc = await startE2eService('a2a_e2e', { adminToken: ADMIN_TOKEN });
    ({ id: agent, key } = await newAgent('Shop'));
    await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: {
        name: 'add',
        description: 'Adds two numbers',
        handler: { script: 'return { sum: input.a + input.b };' },
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      },
    });
  });

  after(async () => {
    await svc?.stop();
  });

  beforeEach(() => svc.fake.reset());

  it('serves the agent card: interfaces, key schemes, streaming, a skill per MCP tool and the chat', async () => {
    const r = await fetch(`${svc.url}/agents/${agent}/.well-known/agent-card.json`);
    expect(r.status).to.equal(200);
    const card = (await r.json()) as any;
    expect(card.name).to.equal('Shop');
    expect(card.supportedInterfaces.map((i: any) => [i.protocolBinding, i.protocolVersion])).to.deep.equal([
      ['JSONRPC', '1.0'],
      ['HTTP+JSON', '1.0'],
      ['JSONRPC', '0.3'],
    ]);
    expect(card.supportedInterfaces[0].url).to.equal(`${svc.url}/agents/${agent}/a2a`);
    expect(card.capabilities).to.deep.include({ streaming: true, pushNotifications: false });
    expect(card.skills.map((s: any) => s.id)).to.deep.equal(['chat', 'add']);
    // Every skill has tags (required); the 0.3 fields name the JSON-RPC URL, which answers 0.3 too.
    expect(card.skills.map((s: any) => s.tags)).to.deep.equal([['chat'], ['tool', 'structured']]);
    const jsonRpc = `${svc.url}/agents/${agent}/a2a`;
    expect(card).to.deep.include({ url: jsonRpc, protocolVersion: '0.3', preferredTransport: 'JSONRPC' });
    expect(card.additionalInterfaces).to.deep.equal([{ url: jsonRpc, transport: 'JSONRPC' }]);
    expect(Object.keys(card.securitySchemes)).to.have.members(['bearer', 'agentKey']);

    const off = await newAgent('Hidden', { a2a: false });
    expect((await fetch(`${svc.url}/agents/${off.id}/.well-known/agent-card.json`)).status).to.equal(404);
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    describe(`over ${binding}`, () => {
      it('SendMessage returns a completed task whose artifact is the answer', async () => {
        svc.fake.enqueue({ text: 'We open at nine.' });
        const client = await clientFor(agent, key, binding);
        const result = (await client.sendMessage({
          tenant: '',
          message: message([text('When do you open?')]),
          configuration: undefined,
          metadata: {},
        })) as Task;
        expect(result.status?.state).to.equal(TaskState.TASK_STATE_COMPLETED);
        expect(answerText(result)).to.equal('We open at nine.');
        // Any instance reads it back from the database.
        const again = await client.getTask({ tenant: '', id: result.id, historyLength: undefined });
        expect(again.status?.state).to.equal(TaskState.TASK_STATE_COMPLETED);
      });

      it('SendStreamingMessage yields status updates and artifact chunks in order, ending completed', async () => {
        svc.fake.enqueue({ text: 'One two three four five' });
        const client = await clientFor(agent, key, binding);
        const kinds: string[] = [];
        const states: TaskState[] = [];
        let chunks = '';
        for await (const ev of client.sendMessageStream({
          tenant: '',
          message: message([text('Count')]),
          configuration: undefined,
          metadata: {},
        })) {
          const p = ev.payload!;
          kinds.push(p.$case);
          if (p.$case === 'statusUpdate') states.push(p.value.status!.state);
          if (p.$case === 'artifactUpdate' && !p.value.lastChunk)
            chunks += p.value.artifact!.parts.map((x) => (x.content?.$case === 'text' ? x.content.value : '')).join('');
        }
        expect(kinds[0]).to.equal('task');
        expect(states[0]).to.equal(TaskState.TASK_STATE_WORKING);
        expect(states[states.length - 1]).to.equal(TaskState.TASK_STATE_COMPLETED);
        expect(chunks).to.equal('One two three four five');
        expect(kinds.filter((k) => k === 'artifactUpdate').length).to.be.greaterThan(2);
      });

      it('a skill call with a data part runs that MCP tool and returns its structured output', async () => {
        const client = await clientFor(agent, key, binding);
        const result = (await client.sendMessage({
          tenant: '',
          message: message([data({ a: 2, b: 40 })], { metadata: { skillId: 'add' } }),
          configuration: undefined,
          metadata: {},
        })) as Task;
        expect(result.status?.state).to.equal(TaskState.TASK_STATE_COMPLETED);
        const structured = result.artifacts.flatMap((a) => a.parts).find((p) => p.content?.$case === 'data');
        expect(structured?.content?.value).to.deep.equal({ sum: 42 });
      });
    });
  }

  it('a task started on one instance: GetTask, ListTasks and SubscribeToTask on another see it, and CancelTask there stops its run', async () => {
    // Two instances on PostgreSQL; on the embedded database (one process) both calls go to the one instance.
    const other = process.env.TEST_DATABASE_URL ? await svc.another() : null;
    const b = other?.url ?? svc.url;
    svc.fake.enqueue({ text: 'one two three four five six seven eight nine ten eleven twelve', chunkDelayMs: 150 });
    const onA = await clientFor(agent, key);
    const onB = await clientFor(agent, key, 'JSONRPC', b);
    const stream = onA
      .sendMessageStream({
        tenant: '',
        message: message([text('Count slowly')]),
        configuration: undefined,
        metadata: {},
      })
      [Symbol.asyncIterator]();
    const first = (await stream.next()).value!.payload!;
    expect(first.$case).to.equal('task');
    const taskId = (first.value as Task).id;
    // Wait until the run's first words are stored, so B sees a working task.
    const deadline = Date.now() + 10_000;
    let seen = await onB.getTask({ tenant: '', id: taskId, historyLength: undefined });
    while (seen.status?.state !== TaskState.TASK_STATE_WORKING && Date.now() < deadline)
      seen = await onB.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(seen.status?.state).to.equal(TaskState.TASK_STATE_WORKING);
    const listed = await onB.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 10,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks.map((t) => t.id)).to.include(taskId);

    const followed = onB.resubscribeTask({ tenant: '', id: taskId })[Symbol.asyncIterator]();
    expect((await followed.next()).value!.payload!.$case).to.equal('task');
    const canceled = await onB.cancelTask({ tenant: '', id: taskId, metadata: {} });
    expect(canceled.status?.state).to.equal(TaskState.TASK_STATE_CANCELED);

    // A's stream and B's subscription both end canceled, before the model's answer would have.
    const lastState = async (it: AsyncIterator<any>) => {
      let state: TaskState | undefined;
      for (let n = await it.next(); !n.done; n = await it.next())
        if (n.value.payload?.$case === 'statusUpdate') state = n.value.payload.value.status.state;
      return state;
    };
    expect(await lastState(stream)).to.equal(TaskState.TASK_STATE_CANCELED);
    expect(await lastState(followed)).to.equal(TaskState.TASK_STATE_CANCELED);
    await svc.fake.idle();
    expect(svc.fake.requests[0]!.aborted).to.equal(true);
    expect((await onA.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state).to.equal(
      TaskState.TASK_STATE_CANCELED,
    );
    // Another agent's key does not see the task.
    const stranger = await newAgent('Stranger');
    const hidden = await (
      await clientFor(stranger.id, stranger.key)
    )
      .getTask({ tenant: '', id: taskId, historyLength: undefined })
      .catch((e: unknown) => e);
    expect(String(hidden)).to.match(/not found/i);
  });

  it('answers a client speaking 0.3 (no A2A-Version header) in 0.3, and refuses a version it does not speak', async () => {
    svc.fake.enqueue({ text: 'Hello from 1.0' });
    const legacy = await fetch(`${svc.url}/agents/${agent}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: 'm-legacy', role: 'user', parts: [{ kind: 'text', text: 'Hi' }] },
        },
      }),
    });
    const body = (await legacy.json()) as any;
    expect(body.id).to.equal(7);
    expect(body.result.kind).to.equal('task');
    expect(body.result.status.state).to.equal('completed');
    expect(JSON.stringify(body.result.artifacts)).to.include('Hello from 1.0');

    // The SDK's own 0.3 transport gets a working answer too.
    svc.fake.enqueue({ text: 'Hello, 0.3 client' });
    const old = new LegacyJsonRpcTransport({ endpoint: `${svc.url}/agents/${agent}/a2a`, fetchImpl: withKey(key) });
    const viaSdk = (await old.sendMessage({
      tenant: '',
      message: message([text('Hi')]),
      configuration: undefined,
      metadata: {},
    })) as Task;
    expect(viaSdk.status?.state).to.equal(TaskState.TASK_STATE_COMPLETED);
    expect(answerText(viaSdk)).to.equal('Hello, 0.3 client');

    const future = await fetch(`${svc.url}/agents/${agent}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'a2a-version': '2.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'GetTask', params: { id: 'x' } }),
    });
    const refused = (await future.json()) as any;
    expect(refused.error.code).to.equal(-32009);
  });

  it('writes an activity entry per method call with the method as its entry, and no key', async () => {
    const own = await newAgent('Logged');
    svc.fake.enqueue({ text: 'logged' });
    const client = await clientFor(own.id, own.key);
    const task = (await client.sendMessage({
      tenant: '',
      message: message([text('log me')]),
      configuration: undefined,
      metadata: {},
    })) as Task;
    await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    await svc.service.services.activityLog.flush();
    const d = await gql(
      'query($a: ID!) { agent(id: $a) { activity(first: 20) { nodes { surface kind entry status credits runId requestHeaders requestBody response } } } }',
      { a: own.id },
    );
    const entries = d.agent.activity.nodes as any[];
    // Each call is one entry: the run writes none of its own.
    expect(entries.every((e) => e.kind === 'REQUEST')).to.equal(true);
    expect(entries.map((e) => [e.surface, e.entry]).sort()).to.deep.equal([
      ['A2A', 'GetTask'],
      ['A2A', 'SendMessage'],
    ]);
    expect(entries.find((e) => e.entry === 'SendMessage').runId).to.match(/^run_/);
    expect(JSON.stringify(entries)).to.not.include(own.key);
  });

  it('refuses a message it cannot run before any task exists: an unknown skill, no text, data that is no object, arguments against the schema', async () => {
    const rpc = (params: unknown) =>
      fetch(`${svc.url}/agents/${agent}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${key}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params }),
      }).then((r) => r.json() as Promise<any>);
    const msg = (parts: unknown[], metadata?: unknown) => ({
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...(metadata ? { metadata } : {}) },
    });
    const cases: [unknown, RegExp][] = [
      [msg([{ text: 'hi' }], { skillId: 'nope' }), /no skill 'nope'/],
      [msg([{ text: '   ' }]), /has no text/],
      [msg([{ data: [1, 2] }], { skillId: 'add' }), /must be a JSON object/],
      [msg([{ data: 'text' }], { skillId: 'add' }), /must be a JSON object/],
      [msg([{ data: { a: 'x', b: 1 } }], { skillId: 'add' }), /Invalid arguments for tool 'add'/],
    ];
    for (const [params, why] of cases) {
      const body = await rpc(params);
      expect(body.error?.code, String(why)).to.equal(-32602);
      expect(body.error.message).to.match(why);
    }
    const listed = await (
      await clientFor(agent, key)
    ).listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 100,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks.every((t) => t.status?.state !== TaskState.TASK_STATE_FAILED)).to.equal(true);
    expect(svc.fake.requests).to.have.length(0);
  });

  it('runs a skill of the default schema with the message text, names the chat skill by the agent, and hides the card of a private agent', async () => {
    const echo = await newAgent('Echo', { instructions: '' });
    await gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: echo.id,
      i: { name: 'shout', description: 'Shouts', handler: { script: 'return input.input.toUpperCase();' } },
    });
    const card = (await (await fetch(`${svc.url}/agents/${echo.id}/.well-known/agent-card.json`)).json()) as any;
    // No instructions: no chat skill; the tool's skill answers text only.
    expect(card.skills.map((s: any) => [s.id, s.outputModes])).to.deep.equal([['shout', ['text/plain']]]);
    expect(card.description).to.equal('Echo agent');
    const task = (await (
      await clientFor(echo.id, echo.key)
    ).sendMessage({
      tenant: '',
      message: message([text('quiet please')], { metadata: { skillId: 'shout' } }),
      configuration: undefined,
      metadata: {},
    })) as Task;
    expect(answerText(task)).to.equal('QUIET PLEASE');

    const shop = (await (await fetch(`${svc.url}/agents/${agent}/.well-known/agent-card.json`)).json()) as any;
    expect(shop.skills[0]).to.deep.include({ id: 'chat', name: 'Shop', description: 'Shop agent' });
    expect(shop.skills[1].outputModes).to.deep.equal(['text/plain', 'application/json']);

    const hidden = await newAgent('Private');
    await gql('mutation($a: ID!) { updateAgent(id: $a, input: { visibility: PRIVATE }) { id } }', { a: hidden.id });
    expect((await fetch(`${svc.url}/agents/${hidden.id}/.well-known/agent-card.json`)).status).to.equal(404);
  });

  it('continues a conversation by its context id', async () => {
    const client = await clientFor(agent, key);
    svc.fake.enqueue({ text: 'Hello Ada.' }, { text: 'Your name is Ada.' });
    const first = (await client.sendMessage({
      tenant: '',
      message: message([text('I am Ada.')]),
      configuration: undefined,
      metadata: {},
    })) as Task;
    await client.sendMessage({
      tenant: '',
      message: message([text('Who am I?')], { contextId: first.contextId }),
      configuration: undefined,
      metadata: {},
    });
    const sent = JSON.stringify(svc.fake.requests[1]!.body.messages);
    // The turns in the order they were said.
    expect(sent.indexOf('I am Ada.')).to.be.greaterThan(-1);
    expect(sent.indexOf('Hello Ada.')).to.be.greaterThan(sent.indexOf('I am Ada.'));
    expect(sent.indexOf('Who am I?')).to.be.greaterThan(sent.indexOf('Hello Ada.'));
    // A run that failed leaves nothing in the conversation.
    svc.fake.enqueue({ status: 500 }, { status: 500 }, { text: 'Still Ada.' });
    const failed = (await client.sendMessage({
      tenant: '',
      message: message([text('Forget this')], { contextId: first.contextId }),
      configuration: undefined,
      metadata: {},
    })) as Task;
    expect(failed.status?.state).to.equal(TaskState.TASK_STATE_FAILED);
    await client.sendMessage({
      tenant: '',
      message: message([text('And now?')], { contextId: first.contextId }),
      configuration: undefined,
      metadata: {},
    });
    expect(JSON.stringify(svc.fake.requests[svc.fake.requests.length - 1]!.body.messages)).to.not.include(
      'Forget this',
    );
  });

  it('refuses: no key and another agent’s key 401, surface off 403, a daily limit of 0 the limit error with its retry time', async () => {
    const call = (agentId: string, headers: Record<string, string>) =>
      fetch(`${svc.url}/agents/${agentId}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
        }),
      });
    expect((await call(agent, {})).status).to.equal(401);
    const other = await newAgent('Other');
    expect((await call(agent, { authorization: `Bearer ${other.key}` })).status).to.equal(401);
    const off = await newAgent('Off', { a2a: false });
    expect((await call(off.id, { authorization: `Bearer ${off.key}` })).status).to.equal(403);
    expect(svc.fake.requests).to.have.length(0);

    const limited = await newAgent('Limited');
    await gql('mutation($a: ID!) { setAgentLimits(agentId: $a, dailyCreditLimit: 0) { id } }', { a: limited.id });
    const r = await call(limited.id, { authorization: `Bearer ${limited.key}` });
    const body = (await r.json()) as any;
    expect(body.error.code).to.equal(-32000);
    expect(body.error.data[0]).to.deep.include({ reason: 'daily_credit_limit' });
    expect(Number(body.error.data[0].metadata.retryAfterSeconds)).to.be.greaterThan(0);
    expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0);
    const rest = await fetch(`${svc.url}/agents/${limited.id}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${limited.key}` },
      body: JSON.stringify({ message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    });
    expect(rest.status).to.equal(429);
    expect(Number(rest.headers.get('retry-after'))).to.be.greaterThan(0);
  });
});
