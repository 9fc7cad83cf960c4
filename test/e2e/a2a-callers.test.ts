import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import {
  A2AClient as A2AClient03,
  ClientFactory as ClientFactory03,
  ClientFactoryOptions as ClientFactoryOptions03,
  JsonRpcTransportFactory as JsonRpcTransportFactory03,
} from 'a2a-sdk-03/client';
import { expect } from 'chai';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// A2A tasks and conversations belong to the caller that made them (issue 49, item 4): another key
// of the same agent — a second partner's agent key, or a workspace key — finds none of them and
// starts a conversation of its own with the same context id, on both bindings, with `@a2a-js/sdk`
// as the client. The public card never shows the agent's instructions (item 11). And the callers
// still on A2A 0.3: `@a2a-js/sdk` 0.3.14's client reads the same card and talks 0.3 (issue 51).

const ADMIN_TOKEN = 'a2a-callers-e2e-admin-token-0123456789';
const SECRET = 'my account password is swordfish-4711';

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: {},
  filename: '',
  mediaType: 'text/plain',
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

const listAll = {
  tenant: '',
  contextId: '',
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageSize: 100,
  pageToken: '',
  historyLength: undefined,
  statusTimestampAfter: undefined,
  includeArtifacts: false,
};

describe('e2e: A2A tasks and contexts belong to the key that made them', function () {
  this.timeout(120_000);
  let svc: E2eService;
  let agent: string;
  let key1: string;
  let key2: string;
  let wsKey: string;
  const gql = (query: string, variables?: Record<string, unknown>) => svc.gql(query, variables);

  const withKey =
    (k: string): typeof fetch =>
    (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${k}` },
      });

  async function clientFor(k: string, binding: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl: withKey(k) }),
        new RestTransportFactory({ fetchImpl: withKey(k) }),
      ],
      preferredTransports: [binding],
    });
    return new ClientFactory(options).createFromUrl(`${svc.url}/agents/${agent}/`);
  }

  const newKey = async () =>
    (await gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "partner") { key } }', { a: agent }))
      .createAgentApiKey.key as string;
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => 'no error',
      (e: unknown) => String(e),
    );
  const modelSaw = (i: number) => JSON.stringify(svc.fake.requests[i]!.body);

  before(async () => {
    svc = await startE2eService('a2a_callers_e2e', { adminToken: ADMIN_TOKEN });
    agent = (
      await gql('mutation($i: CreateAgentInput!) { createAgent(input: $i) { id } }', {
        i: {
          name: 'Bank',
          description: '',
          instructions: 'INTERNAL: refunds need code 99-RED. Be brief.',
          defaultModel: 'fake-model',
          allowWorkspaceKeys: true,
        },
      })
    ).createAgent.id;
    await gql('mutation($a: ID!) { setSurface(agentId: $a, surface: A2A, enabled: true) { id } }', { a: agent });
    key1 = await newKey();
    key2 = await newKey();
    wsKey = (await gql('mutation { createWorkspaceApiKey(name: "partners") { key } }')).createWorkspaceApiKey.key;
  });

  after(async () => {
    await svc?.stop();
  });

  beforeEach(() => svc.fake.reset());

  it('the public card describes the chat by the agent’s name, never by its instructions', async () => {
    const card = (await (await fetch(`${svc.url}/agents/${agent}/.well-known/agent-card.json`)).json()) as any;
    expect(JSON.stringify(card)).to.not.include('99-RED');
    expect(JSON.stringify(card)).to.not.include('INTERNAL');
    expect(card.skills[0]).to.deep.include({ id: 'chat', name: 'Bank', description: 'Chat with Bank' });
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`over ${binding}: another key of the agent gets not-found, an empty list and a fresh conversation; the first key keeps its own`, async () => {
      const first = await clientFor(key1, binding);
      svc.fake.enqueue({ text: 'Noted, I will keep it safe.' });
      const task = (await first.sendMessage({
        tenant: '',
        message: message([text(SECRET)]),
        configuration: undefined,
        metadata: {},
      })) as Task;
      expect(task.status?.state).to.equal(TaskState.TASK_STATE_COMPLETED);
      expect((await first.listTasks(listAll)).tasks.map((t) => t.id)).to.include(task.id);

      for (const k of [key2, wsKey]) {
        const other = await clientFor(k, binding);
        expect(await failure(other.getTask({ tenant: '', id: task.id, historyLength: undefined }))).to.match(
          /not found/i,
        );
        const listed = await other.listTasks(listAll);
        expect(listed.tasks.map((t) => t.id)).to.not.include(task.id);
        expect(JSON.stringify(listed)).to.not.include('swordfish');
        expect(await failure(other.listTasks({ ...listAll, contextId: task.contextId }))).to.equal('no error');
        expect((await other.listTasks({ ...listAll, contextId: task.contextId })).tasks).to.deep.equal([]);
        expect(await failure(other.cancelTask({ tenant: '', id: task.id, metadata: {} }))).to.match(/not found/i);
        expect(
          await failure(
            (async () => {
              for await (const _ of other.resubscribeTask({ tenant: '', id: task.id })) void _;
            })(),
          ),
        ).to.match(/not found/i);
        // Continuing the first key's task by its id is refused the same way, before any run.
        expect(
          await failure(
            other.sendMessage({
              tenant: '',
              message: message([text('And the password?')], { taskId: task.id, contextId: task.contextId }),
              configuration: undefined,
              metadata: {},
            }),
          ),
        ).to.match(/not found/i);

        // The same context id starts a conversation of this key's own: the model sees none of the first key's turns.
        svc.fake.reset();
        svc.fake.enqueue({ text: 'I do not know any password.' });
        const fresh = (await other.sendMessage({
          tenant: '',
          message: message([text('What is my password?')], { contextId: task.contextId }),
          configuration: undefined,
          metadata: {},
        })) as Task;
        expect(fresh.status?.state).to.equal(TaskState.TASK_STATE_COMPLETED);
        expect(svc.fake.requests).to.have.length(1);
        expect(modelSaw(0)).to.include('What is my password?');
        expect(modelSaw(0)).to.not.include('swordfish');
        expect(modelSaw(0)).to.not.include('keep it safe');
        // The first key does not see the other key's task either.
        expect((await first.listTasks(listAll)).tasks.map((t) => t.id)).to.not.include(fresh.id);
      }

      // The first key still reads its task and continues its conversation, the model seeing its earlier turns
      // and none of the other keys'.
      expect((await first.getTask({ tenant: '', id: task.id, historyLength: undefined })).status?.state).to.equal(
        TaskState.TASK_STATE_COMPLETED,
      );
      svc.fake.reset();
      svc.fake.enqueue({ text: 'It is swordfish-4711.' });
      await first.sendMessage({
        tenant: '',
        message: message([text('What is my password?')], { contextId: task.contextId }),
        configuration: undefined,
        metadata: {},
      });
      expect(modelSaw(0)).to.include('swordfish-4711');
      expect(modelSaw(0)).to.not.include('I do not know any password');
    });
  }

  it('a 0.3 client (@a2a-js/sdk 0.3.14) reads the card, sends a message and streams the answer', async () => {
    // The client that refused the 1.0-only card ("Agent Card does not contain a valid 'url'").
    const legacy = await A2AClient03.fromCardUrl(`${svc.url}/agents/${agent}/.well-known/agent-card.json`);
    expect((await legacy.getAgentCard()).url).to.equal(`${svc.url}/agents/${agent}/a2a`);

    const options = ClientFactoryOptions03.createFrom(ClientFactoryOptions03.default, {
      transports: [new JsonRpcTransportFactory03({ fetchImpl: withKey(key1) })],
    });
    const client = await new ClientFactory03(options).createFromUrl(`${svc.url}/agents/${agent}/`);
    const send = (words: string) => ({
      message: {
        kind: 'message' as const,
        messageId: randomUUID(),
        role: 'user' as const,
        parts: [{ kind: 'text' as const, text: words }],
      },
    });
    svc.fake.enqueue({ text: 'Hello, 0.3 caller.' });
    const task = await client.sendMessage(send('Hi'));
    expect(task.kind).to.equal('task');
    expect(task.kind === 'task' && task.status.state).to.equal('completed');
    expect(JSON.stringify(task)).to.include('Hello, 0.3 caller.');

    svc.fake.enqueue({ text: 'one two three' });
    const kinds: string[] = [];
    let last = '';
    for await (const ev of client.sendMessageStream(send('Count'))) {
      kinds.push(ev.kind === 'status-update' ? `status:${ev.status.state}` : ev.kind);
      if (ev.kind === 'artifact-update')
        last = ev.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    }
    expect(kinds[0]).to.equal('task');
    expect(kinds).to.include('artifact-update');
    expect(kinds.at(-1)).to.equal('status:completed');
    // The last artifact update holds the whole answer (append: false; README, "A2A").
    expect(last).to.equal('one two three');
  });
});
