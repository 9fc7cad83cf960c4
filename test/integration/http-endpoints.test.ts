import { expect } from 'chai';
import {
  createAgent,
  errorCode,
  gql,
  gqlOk,
  newWorkspace,
  type GqlResult,
  type TestWorkspace,
} from '../helpers/harness.js';

const HANDLER = 'handler { kind prompt script }';
const EP_FIELDS = `id agentId path methods description modelOverride ${HANDLER}`;
const TOOL_FIELDS = `id agentId name description modelOverride inputSchema ${HANDLER}`;
const WH_FIELDS = `id agentId integration modelOverride signature { scheme secretName } ${HANDLER}`;

const ADD_EP = `mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { ${EP_FIELDS} } }`;
const UPDATE_EP = `mutation($id: ID!, $i: UpdateHttpEndpointInput!) { updateHttpEndpoint(id: $id, input: $i) { ${EP_FIELDS} } }`;
const REMOVE_EP = `mutation($id: ID!) { removeHttpEndpoint(id: $id) }`;
const ADD_TOOL = `mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { ${TOOL_FIELDS} } }`;
const UPDATE_TOOL = `mutation($id: ID!, $i: UpdateMcpToolInput!) { updateMcpTool(id: $id, input: $i) { ${TOOL_FIELDS} } }`;
const REMOVE_TOOL = `mutation($id: ID!) { removeMcpTool(id: $id) }`;
const ADD_WH = `mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { ${WH_FIELDS} } }`;
const UPDATE_WH = `mutation($id: ID!, $i: UpdateWebhookInput!) { updateWebhook(id: $id, input: $i) { ${WH_FIELDS} } }`;
const REMOVE_WH = `mutation($id: ID!) { removeWebhook(id: $id) }`;
const ENTRIES = `query($id: ID!) { agent(id: $id) { httpEndpoints { ${EP_FIELDS} } mcpTools { ${TOOL_FIELDS} } webhooks { ${WH_FIELDS} } } }`;

const DEFAULT_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string', description: 'What to do or ask' } },
  required: ['input'],
};

/** The agent's entries as read back through `agent(id)`. */
async function entries(token: string, agentId: string) {
  return (await gqlOk(token, ENTRIES, { id: agentId })).agent as {
    httpEndpoints: any[];
    mcpTools: any[];
    webhooks: any[];
  };
}

/** Asserts a refusal with the given code (and field, when given). */
function expectRefused(r: GqlResult, code: string, field?: string, label?: string): void {
  expect(r.errors, `${label ?? ''} should be refused`).to.be.an('array').that.is.not.empty;
  expect(errorCode(r), label).to.equal(code);
  if (field !== undefined) expect(r.errors![0]!.extensions!.field, label).to.equal(field);
}

/** Configures models of these names, so that entries and agents may name them (references are checked when saved). */
async function configureModels(token: string, names: string[]): Promise<void> {
  for (const name of names) {
    await gqlOk(token, 'mutation($i: ConfigureModelInput!) { configureModel(input: $i) { name } }', {
      i: { name, provider: 'OPENAI_COMPATIBLE', model: name, baseUrl: 'http://127.0.0.1:9/v1' },
    });
  }
}

describe('GraphQL: HTTP endpoints', () => {
  let ws: TestWorkspace;
  let other: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
    await configureModels(ws.adminToken, ['gpt-4o-mini', 'gpt-4o', 'm', 'm1', 'm2']);
    other = await newWorkspace();
  });

  it('addHttpEndpoint normalises the path, defaults methods to [POST] and stores the handler and model override', async () => {
    const agentId = await createAgent(ws.adminToken);
    const a = (
      await gqlOk(ws.adminToken, ADD_EP, {
        a: agentId,
        i: { path: '  /orders/{id}/ ', handler: { prompt: 'Look the order up' }, modelOverride: 'gpt-4o-mini' },
      })
    ).addHttpEndpoint;
    expect(a).to.deep.include({
      agentId,
      path: 'orders/{id}',
      methods: ['POST'],
      description: '',
      modelOverride: 'gpt-4o-mini',
      handler: { kind: 'PROMPT', prompt: 'Look the order up', script: null },
    });
    expect(a.id).to.be.a('string').and.not.empty;

    const b = (
      await gqlOk(ws.adminToken, ADD_EP, {
        a: agentId,
        i: {
          path: '//reports//',
          methods: ['GET', 'PUT', 'GET'],
          handler: { script: 'return input.query;' },
          description: 'Reports',
        },
      })
    ).addHttpEndpoint;
    expect(b).to.deep.include({
      path: 'reports',
      methods: ['GET', 'PUT'],
      description: 'Reports',
      modelOverride: null,
      handler: { kind: 'SCRIPT', prompt: null, script: 'return input.query;' },
    });

    const listed = (await entries(ws.adminToken, agentId)).httpEndpoints;
    expect(listed).to.have.length(2);
    expect(listed.find((e) => e.id === a.id)).to.deep.equal(a);
    expect(listed.find((e) => e.id === b.id)).to.deep.equal(b);
  });

  it('refuses a duplicate path, also with other slashes or other parameter names, with CONFLICT on field path', async () => {
    const agentId = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'orders/{id}', handler: { prompt: 'p' } } });
    for (const path of ['orders/{id}', '/orders/{id}/', 'orders/{orderId}']) {
      const r = await gql(ws.adminToken, ADD_EP, {
        a: agentId,
        i: { path, methods: ['GET'], handler: { prompt: 'p' } },
      });
      expectRefused(r, 'CONFLICT', 'path', path);
    }
    // Other shapes, and the same path on another agent, are fine.
    await gqlOk(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'orders/{id}/items', handler: { prompt: 'p' } } });
    await gqlOk(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'orders/latest', handler: { prompt: 'p' } } });
    const second = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, ADD_EP, { a: second, i: { path: 'orders/{orderId}', handler: { prompt: 'p' } } });

    const paths = (await entries(ws.adminToken, agentId)).httpEndpoints.map((e) => e.path).sort();
    expect(paths).to.deep.equal(['orders/latest', 'orders/{id}', 'orders/{id}/items']);
  });

  it('refuses bad path syntax with BAD_USER_INPUT on input.path and stores nothing', async () => {
    const agentId = await createAgent(ws.adminToken);
    const bad = [
      'a//b',
      '../x',
      'a/../b',
      './x',
      'a b',
      '{1x}',
      'x/{id}/y/{id}',
      '{a-b}',
      'a/{id',
      'a?b',
      '',
      '/',
      `${'a/'.repeat(20)}a`,
      'x'.repeat(501),
    ];
    for (const path of bad) {
      const r = await gql(ws.adminToken, ADD_EP, { a: agentId, i: { path, handler: { prompt: 'p' } } });
      expectRefused(r, 'BAD_USER_INPUT', 'input.path', JSON.stringify(path));
    }
    expect((await entries(ws.adminToken, agentId)).httpEndpoints).to.deep.equal([]);
  });

  it('refuses a handler with both, neither or an empty body', async () => {
    const agentId = await createAgent(ws.adminToken);
    const cases: [string, Record<string, unknown>, string][] = [
      ['both', { prompt: 'p', script: 'return 1' }, 'input.handler'],
      ['neither', {}, 'input.handler'],
      ['both null', { prompt: null, script: null }, 'input.handler'],
      ['empty prompt', { prompt: '' }, 'input.handler.prompt'],
      ['blank prompt', { prompt: '   \n' }, 'input.handler.prompt'],
      ['empty script', { script: ' ' }, 'input.handler.script'],
    ];
    for (const [label, handler, field] of cases) {
      const r = await gql(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'x', handler } });
      expectRefused(r, 'BAD_USER_INPUT', field, label);
    }
    expect((await entries(ws.adminToken, agentId)).httpEndpoints).to.deep.equal([]);
  });

  it('refuses a model override on a script handler, an empty methods list and a malformed model reference', async () => {
    const agentId = await createAgent(ws.adminToken);
    const r1 = await gql(ws.adminToken, ADD_EP, {
      a: agentId,
      i: { path: 'x', handler: { script: 'return 1' }, modelOverride: 'gpt-4o' },
    });
    expectRefused(r1, 'BAD_USER_INPUT', 'modelOverride');
    const r2 = await gql(ws.adminToken, ADD_EP, {
      a: agentId,
      i: { path: 'x', methods: [], handler: { prompt: 'p' } },
    });
    expectRefused(r2, 'BAD_USER_INPUT', 'input.methods');
    const r3 = await gql(ws.adminToken, ADD_EP, {
      a: agentId,
      i: { path: 'x', handler: { prompt: 'p' }, modelOverride: 'has space' },
    });
    expectRefused(r3, 'BAD_USER_INPUT', 'input.modelOverride');
    // A script with no override is fine.
    const ok = (
      await gqlOk(ws.adminToken, ADD_EP, {
        a: agentId,
        i: { path: 'x', handler: { script: 'return 1' }, modelOverride: null },
      })
    ).addHttpEndpoint;
    expect(ok.modelOverride).to.equal(null);
    expect((await entries(ws.adminToken, agentId)).httpEndpoints.map((e) => e.id)).to.deep.equal([ok.id]);
  });

  it("refuses an unknown agent, another workspace's agent and a private agent the member cannot see with NOT_FOUND", async () => {
    expectRefused(
      await gql(ws.adminToken, ADD_EP, { a: 'agt_missing', i: { path: 'x', handler: { prompt: 'p' } } }),
      'NOT_FOUND',
    );
    const foreign = await createAgent(other.adminToken);
    expectRefused(
      await gql(ws.adminToken, ADD_EP, { a: foreign, i: { path: 'x', handler: { prompt: 'p' } } }),
      'NOT_FOUND',
    );
    expect((await entries(other.adminToken, foreign)).httpEndpoints).to.deep.equal([]);

    const alice = await ws.addMember();
    const bob = await ws.addMember();
    const priv = await createAgent(alice.token, { visibility: 'PRIVATE' });
    expectRefused(await gql(bob.token, ADD_EP, { a: priv, i: { path: 'x', handler: { prompt: 'p' } } }), 'NOT_FOUND');
    const ep = (await gqlOk(alice.token, ADD_EP, { a: priv, i: { path: 'x', handler: { prompt: 'p' } } }))
      .addHttpEndpoint;
    expectRefused(await gql(bob.token, UPDATE_EP, { id: ep.id, i: { methods: ['GET'] } }), 'NOT_FOUND');
    expectRefused(await gql(bob.token, REMOVE_EP, { id: ep.id }), 'NOT_FOUND');
    expect((await entries(alice.token, priv)).httpEndpoints.map((e) => e.methods)).to.deep.equal([['POST']]);
  });

  it('updateHttpEndpoint changes only the given fields and keeps its own path', async () => {
    const agentId = await createAgent(ws.adminToken);
    const ep = (
      await gqlOk(ws.adminToken, ADD_EP, {
        a: agentId,
        i: { path: 'items/{id}', handler: { prompt: 'Old' }, modelOverride: 'm1', description: 'd' },
      })
    ).addHttpEndpoint;

    const u1 = (
      await gqlOk(ws.adminToken, UPDATE_EP, {
        id: ep.id,
        i: { methods: ['GET', 'DELETE'], handler: { prompt: 'New' } },
      })
    ).updateHttpEndpoint;
    expect(u1).to.deep.equal({
      ...ep,
      methods: ['GET', 'DELETE'],
      handler: { kind: 'PROMPT', prompt: 'New', script: null },
    });

    // Keeping its own path (also written differently, or with renamed parameters) is not a conflict.
    const u2 = (await gqlOk(ws.adminToken, UPDATE_EP, { id: ep.id, i: { path: '/items/{id}/' } })).updateHttpEndpoint;
    expect(u2.path).to.equal('items/{id}');
    const u3 = (await gqlOk(ws.adminToken, UPDATE_EP, { id: ep.id, i: { path: 'items/{itemId}' } })).updateHttpEndpoint;
    expect(u3.path).to.equal('items/{itemId}');

    // Script handler: the override must go at the same time.
    expectRefused(
      await gql(ws.adminToken, UPDATE_EP, { id: ep.id, i: { handler: { script: 'return 1' } } }),
      'BAD_USER_INPUT',
      'modelOverride',
    );
    const u4 = (
      await gqlOk(ws.adminToken, UPDATE_EP, { id: ep.id, i: { handler: { script: 'return 1' }, modelOverride: null } })
    ).updateHttpEndpoint;
    expect(u4).to.deep.include({
      modelOverride: null,
      handler: { kind: 'SCRIPT', prompt: null, script: 'return 1' },
      methods: ['GET', 'DELETE'],
      description: 'd',
    });
    expectRefused(
      await gql(ws.adminToken, UPDATE_EP, { id: ep.id, i: { modelOverride: 'm2' } }),
      'BAD_USER_INPUT',
      'modelOverride',
    );

    // Bad input in a patch is refused like on add.
    expectRefused(
      await gql(ws.adminToken, UPDATE_EP, { id: ep.id, i: { path: 'a//b' } }),
      'BAD_USER_INPUT',
      'input.path',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_EP, { id: ep.id, i: { methods: [] } }),
      'BAD_USER_INPUT',
      'input.methods',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_EP, { id: ep.id, i: { handler: { prompt: 'a', script: 'b' } } }),
      'BAD_USER_INPUT',
      'input.handler',
    );

    const [stored] = (await entries(ws.adminToken, agentId)).httpEndpoints;
    expect(stored).to.deep.equal(u4);
  });

  it('updateHttpEndpoint refuses a path another endpoint of the agent already uses (CONFLICT)', async () => {
    const agentId = await createAgent(ws.adminToken);
    const a = (await gqlOk(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'a/{x}', handler: { prompt: 'p' } } }))
      .addHttpEndpoint;
    const b = (await gqlOk(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'b', handler: { prompt: 'p' } } }))
      .addHttpEndpoint;
    expectRefused(
      await gql(ws.adminToken, UPDATE_EP, { id: b.id, i: { path: 'a/{x}' } }),
      'CONFLICT',
      'path',
      'same path',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_EP, { id: b.id, i: { path: 'a/{y}' } }),
      'CONFLICT',
      'path',
      'same shape',
    );
    const listed = (await entries(ws.adminToken, agentId)).httpEndpoints;
    expect(listed.find((e) => e.id === a.id).path).to.equal('a/{x}');
    expect(listed.find((e) => e.id === b.id).path).to.equal('b');
    // Once the path is free it can be taken.
    await gqlOk(ws.adminToken, UPDATE_EP, { id: a.id, i: { path: 'c' } });
    expect(
      (await gqlOk(ws.adminToken, UPDATE_EP, { id: b.id, i: { path: 'a/{y}' } })).updateHttpEndpoint.path,
    ).to.equal('a/{y}');
  });

  it("update and remove of another workspace's endpoint are NOT_FOUND; removing twice is NOT_FOUND the second time", async () => {
    const foreignAgent = await createAgent(other.adminToken);
    const foreign = (
      await gqlOk(other.adminToken, ADD_EP, { a: foreignAgent, i: { path: 'x', handler: { prompt: 'p' } } })
    ).addHttpEndpoint;
    expectRefused(await gql(ws.adminToken, UPDATE_EP, { id: foreign.id, i: { path: 'y' } }), 'NOT_FOUND');
    expectRefused(await gql(ws.adminToken, REMOVE_EP, { id: foreign.id }), 'NOT_FOUND');
    expect((await entries(other.adminToken, foreignAgent)).httpEndpoints).to.deep.equal([foreign]);
    expectRefused(await gql(ws.adminToken, UPDATE_EP, { id: 'ep_missing', i: { path: 'y' } }), 'NOT_FOUND');

    const agentId = await createAgent(ws.adminToken);
    const ep = (await gqlOk(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'x', handler: { prompt: 'p' } } }))
      .addHttpEndpoint;
    expect((await gqlOk(ws.adminToken, REMOVE_EP, { id: ep.id })).removeHttpEndpoint).to.equal(true);
    expect((await entries(ws.adminToken, agentId)).httpEndpoints).to.deep.equal([]);
    expectRefused(await gql(ws.adminToken, REMOVE_EP, { id: ep.id }), 'NOT_FOUND');
    expectRefused(await gql(ws.adminToken, UPDATE_EP, { id: ep.id, i: { path: 'y' } }), 'NOT_FOUND');
    // The path is free again.
    await gqlOk(ws.adminToken, ADD_EP, { a: agentId, i: { path: 'x', handler: { prompt: 'p' } } });
  });
});

describe('GraphQL: MCP tools', () => {
  let ws: TestWorkspace;
  let other: TestWorkspace;
  before(async () => {
    ws = await newWorkspace();
    await configureModels(ws.adminToken, ['gpt-4o-mini', 'gpt-4o', 'm', 'm1', 'm2']);
    other = await newWorkspace();
  });

  it('addMcpTool stores name, description, handler and override; inputSchema defaults to {input: string}', async () => {
    const agentId = await createAgent(ws.adminToken);
    const t = (
      await gqlOk(ws.adminToken, ADD_TOOL, {
        a: agentId,
        i: {
          name: 'lookup_order',
          description: 'Looks an order up',
          handler: { prompt: 'Find it' },
          modelOverride: 'gpt-4o',
        },
      })
    ).addMcpTool;
    expect(t).to.deep.include({
      agentId,
      name: 'lookup_order',
      description: 'Looks an order up',
      modelOverride: 'gpt-4o',
      handler: { kind: 'PROMPT', prompt: 'Find it', script: null },
      inputSchema: DEFAULT_SCHEMA,
    });

    const schema = {
      type: 'object',
      properties: { orderId: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
      required: ['orderId'],
      additionalProperties: false,
    };
    const name = 'A'.repeat(60) + '.-_9';
    const s = (
      await gqlOk(ws.adminToken, ADD_TOOL, {
        a: agentId,
        i: { name, description: 'Scripted', handler: { script: 'return input.orderId' }, inputSchema: schema },
      })
    ).addMcpTool;
    expect(s).to.deep.include({
      name,
      modelOverride: null,
      inputSchema: schema,
      handler: { kind: 'SCRIPT', prompt: null, script: 'return input.orderId' },
    });

    const listed = (await entries(ws.adminToken, agentId)).mcpTools;
    expect(listed).to.have.length(2);
    expect(listed.find((x) => x.id === t.id)).to.deep.equal(t);
    expect(listed.find((x) => x.id === s.id)).to.deep.equal(s);
  });

  it('refuses tool names outside ^[A-Za-z0-9._-]{1,64}$ with BAD_USER_INPUT on input.name', async () => {
    const agentId = await createAgent(ws.adminToken);
    for (const name of ['has space', 'x'.repeat(65), '', 'slash/name', 'ünïcode', 'tab\tname', 'colon:name']) {
      const r = await gql(ws.adminToken, ADD_TOOL, {
        a: agentId,
        i: { name, description: 'd', handler: { prompt: 'p' } },
      });
      expectRefused(r, 'BAD_USER_INPUT', 'input.name', JSON.stringify(name));
    }
    expect((await entries(ws.adminToken, agentId)).mcpTools).to.deep.equal([]);
  });

  it('refuses a duplicate tool name on the same agent with CONFLICT; another agent may use it', async () => {
    const agentId = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, ADD_TOOL, {
      a: agentId,
      i: { name: 'search', description: 'd', handler: { prompt: 'p' } },
    });
    const r = await gql(ws.adminToken, ADD_TOOL, {
      a: agentId,
      i: { name: 'search', description: 'other', handler: { script: 'return 1' } },
    });
    expectRefused(r, 'CONFLICT', 'name');
    const second = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, ADD_TOOL, {
      a: second,
      i: { name: 'search', description: 'd', handler: { prompt: 'p' } },
    });
    const listed = (await entries(ws.adminToken, agentId)).mcpTools;
    expect(listed.map((t) => [t.name, t.description])).to.deep.equal([['search', 'd']]);
  });

  it('refuses an inputSchema that is not an object schema, an empty description, bad handlers and a script override', async () => {
    const agentId = await createAgent(ws.adminToken);
    const base = { name: 't', description: 'd', handler: { prompt: 'p' } };
    for (const inputSchema of [
      { properties: { a: { type: 'string' } } },
      { type: 'string' },
      { type: ['object'] },
      { type: 'object', properties: ['a'] },
    ]) {
      const r = await gql(ws.adminToken, ADD_TOOL, { a: agentId, i: { ...base, inputSchema } });
      expectRefused(r, 'BAD_USER_INPUT', 'input.inputSchema', JSON.stringify(inputSchema));
    }
    expectRefused(
      await gql(ws.adminToken, ADD_TOOL, { a: agentId, i: { ...base, description: '  ' } }),
      'BAD_USER_INPUT',
      'input.description',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_TOOL, { a: agentId, i: { ...base, handler: { prompt: 'p', script: 's' } } }),
      'BAD_USER_INPUT',
      'input.handler',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_TOOL, { a: agentId, i: { ...base, handler: {} } }),
      'BAD_USER_INPUT',
      'input.handler',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_TOOL, { a: agentId, i: { ...base, handler: { prompt: '' } } }),
      'BAD_USER_INPUT',
      'input.handler.prompt',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_TOOL, {
        a: agentId,
        i: { ...base, handler: { script: 'return 1' }, modelOverride: 'gpt-4o' },
      }),
      'BAD_USER_INPUT',
      'modelOverride',
    );
    expectRefused(await gql(ws.adminToken, ADD_TOOL, { a: 'agt_missing', i: base }), 'NOT_FOUND');
    expect((await entries(ws.adminToken, agentId)).mcpTools).to.deep.equal([]);
  });

  it('updateMcpTool changes the given fields, resets inputSchema with null and refuses a taken name', async () => {
    const agentId = await createAgent(ws.adminToken);
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const t = (
      await gqlOk(ws.adminToken, ADD_TOOL, {
        a: agentId,
        i: { name: 'one', description: 'd1', handler: { prompt: 'p' }, inputSchema: schema, modelOverride: 'm' },
      })
    ).addMcpTool;
    const t2 = (
      await gqlOk(ws.adminToken, ADD_TOOL, {
        a: agentId,
        i: { name: 'two', description: 'd2', handler: { prompt: 'p' } },
      })
    ).addMcpTool;

    const u1 = (await gqlOk(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { description: 'changed' } })).updateMcpTool;
    expect(u1).to.deep.equal({ ...t, description: 'changed' });
    const u2 = (await gqlOk(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { inputSchema: null } })).updateMcpTool;
    expect(u2.inputSchema).to.deep.equal(DEFAULT_SCHEMA);
    const u3 = (await gqlOk(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { name: 'one' } })).updateMcpTool;
    expect(u3.name).to.equal('one');

    expectRefused(await gql(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { name: 'two' } }), 'CONFLICT', 'name');
    expectRefused(
      await gql(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { name: 'has space' } }),
      'BAD_USER_INPUT',
      'input.name',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { inputSchema: { type: 'array' } } }),
      'BAD_USER_INPUT',
      'input.inputSchema',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { handler: { script: 'return 1' } } }),
      'BAD_USER_INPUT',
      'modelOverride',
    );

    const listed = (await entries(ws.adminToken, agentId)).mcpTools;
    expect(listed.find((x) => x.id === t.id)).to.deep.equal(u3);
    expect(listed.find((x) => x.id === t2.id)).to.deep.equal(t2);

    const renamed = (
      await gqlOk(ws.adminToken, UPDATE_TOOL, {
        id: t.id,
        i: { name: 'three', handler: { script: 'return 1' }, modelOverride: null },
      })
    ).updateMcpTool;
    expect(renamed).to.deep.include({
      name: 'three',
      modelOverride: null,
      handler: { kind: 'SCRIPT', prompt: null, script: 'return 1' },
    });
  });

  it("update and remove of another workspace's tool are NOT_FOUND; removing twice is NOT_FOUND the second time", async () => {
    const foreignAgent = await createAgent(other.adminToken);
    const foreign = (
      await gqlOk(other.adminToken, ADD_TOOL, {
        a: foreignAgent,
        i: { name: 'x', description: 'd', handler: { prompt: 'p' } },
      })
    ).addMcpTool;
    expectRefused(
      await gql(ws.adminToken, UPDATE_TOOL, { id: foreign.id, i: { description: 'hijacked' } }),
      'NOT_FOUND',
    );
    expectRefused(await gql(ws.adminToken, REMOVE_TOOL, { id: foreign.id }), 'NOT_FOUND');
    expect((await entries(other.adminToken, foreignAgent)).mcpTools).to.deep.equal([foreign]);

    const agentId = await createAgent(ws.adminToken);
    const t = (
      await gqlOk(ws.adminToken, ADD_TOOL, { a: agentId, i: { name: 'x', description: 'd', handler: { prompt: 'p' } } })
    ).addMcpTool;
    expect((await gqlOk(ws.adminToken, REMOVE_TOOL, { id: t.id })).removeMcpTool).to.equal(true);
    expect((await entries(ws.adminToken, agentId)).mcpTools).to.deep.equal([]);
    expectRefused(await gql(ws.adminToken, REMOVE_TOOL, { id: t.id }), 'NOT_FOUND');
    expectRefused(await gql(ws.adminToken, UPDATE_TOOL, { id: t.id, i: { description: 'x' } }), 'NOT_FOUND');
  });
});

describe('GraphQL: webhooks', () => {
  let ws: TestWorkspace;
  let other: TestWorkspace;
  const CREATE_SECRET = `mutation($n: String!, $k: SecretKind!, $v: String!) { createSecret(name: $n, kind: $k, value: $v) { name kind } }`;
  before(async () => {
    ws = await newWorkspace();
    await configureModels(ws.adminToken, ['gpt-4o-mini', 'gpt-4o', 'm', 'm1', 'm2']);
    other = await newWorkspace();
    await gqlOk(ws.adminToken, CREATE_SECRET, { n: 'gh-signing', k: 'WEBHOOK_SIGNING_SECRET', v: 'shhh' });
    await gqlOk(ws.adminToken, CREATE_SECRET, { n: 'plain', k: 'GENERIC', v: 'not for webhooks' });
    await gqlOk(ws.adminToken, CREATE_SECRET, { n: 'provider-key', k: 'MODEL_API_KEY', v: 'sk-test' });
    // A signing secret that exists only in the other workspace.
    await gqlOk(other.adminToken, CREATE_SECRET, { n: 'elsewhere', k: 'WEBHOOK_SIGNING_SECRET', v: 'x' });
  });

  it('addWebhook stores integration, handler and override; no signature unless given', async () => {
    const agentId = await createAgent(ws.adminToken);
    const w = (
      await gqlOk(ws.adminToken, ADD_WH, {
        a: agentId,
        i: { integration: 'shopify', handler: { prompt: 'Handle the order' }, modelOverride: 'gpt-4o-mini' },
      })
    ).addWebhook;
    expect(w).to.deep.include({
      agentId,
      integration: 'shopify',
      modelOverride: 'gpt-4o-mini',
      signature: null,
      handler: { kind: 'PROMPT', prompt: 'Handle the order', script: null },
    });
    const s = (
      await gqlOk(ws.adminToken, ADD_WH, {
        a: agentId,
        i: { integration: 'my_hook.v2~x-y', handler: { script: 'return input.body' } },
      })
    ).addWebhook;
    expect(s).to.deep.include({
      integration: 'my_hook.v2~x-y',
      modelOverride: null,
      signature: null,
      handler: { kind: 'SCRIPT', prompt: null, script: 'return input.body' },
    });

    const listed = (await entries(ws.adminToken, agentId)).webhooks;
    expect(listed).to.have.length(2);
    expect(listed.find((x) => x.id === w.id)).to.deep.equal(w);
    expect(listed.find((x) => x.id === s.id)).to.deep.equal(s);
  });

  it('refuses integration names that are not URL-safe with BAD_USER_INPUT on input.integration', async () => {
    const agentId = await createAgent(ws.adminToken);
    for (const integration of ['a/b', '..', '.', 'sp ace', '', 'q?x', 'per%20cent', 'x'.repeat(101)]) {
      const r = await gql(ws.adminToken, ADD_WH, { a: agentId, i: { integration, handler: { prompt: 'p' } } });
      expectRefused(r, 'BAD_USER_INPUT', 'input.integration', JSON.stringify(integration));
    }
    expect((await entries(ws.adminToken, agentId)).webhooks).to.deep.equal([]);
  });

  it('refuses a duplicate integration on the same agent with CONFLICT; another agent may use it', async () => {
    const agentId = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'stripe', handler: { prompt: 'p' } } });
    expectRefused(
      await gql(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'stripe', handler: { script: 'return 1' } } }),
      'CONFLICT',
      'integration',
    );
    const second = await createAgent(ws.adminToken);
    await gqlOk(ws.adminToken, ADD_WH, { a: second, i: { integration: 'stripe', handler: { prompt: 'p' } } });
    expect((await entries(ws.adminToken, agentId)).webhooks.map((w) => w.handler.kind)).to.deep.equal(['PROMPT']);
  });

  it('a signature must name a WEBHOOK_SIGNING_SECRET of this workspace; the scheme defaults to HMAC_SHA256', async () => {
    const agentId = await createAgent(ws.adminToken);
    for (const secretName of ['missing', 'plain', 'provider-key', 'elsewhere']) {
      const r = await gql(ws.adminToken, ADD_WH, {
        a: agentId,
        i: { integration: 'signed', handler: { prompt: 'p' }, signature: { secretName } },
      });
      expectRefused(r, 'BAD_USER_INPUT', 'signature.secretName', secretName);
    }
    expect((await entries(ws.adminToken, agentId)).webhooks).to.deep.equal([]);

    const w = (
      await gqlOk(ws.adminToken, ADD_WH, {
        a: agentId,
        i: { integration: 'signed', handler: { prompt: 'p' }, signature: { secretName: 'gh-signing' } },
      })
    ).addWebhook;
    expect(w.signature).to.deep.equal({ scheme: 'HMAC_SHA256', secretName: 'gh-signing' });
    const g = (
      await gqlOk(ws.adminToken, ADD_WH, {
        a: agentId,
        i: {
          integration: 'github',
          handler: { prompt: 'p' },
          signature: { scheme: 'GITHUB', secretName: 'gh-signing' },
        },
      })
    ).addWebhook;
    expect(g.signature).to.deep.equal({ scheme: 'GITHUB', secretName: 'gh-signing' });
    const listed = (await entries(ws.adminToken, agentId)).webhooks;
    expect(listed.find((x) => x.id === w.id).signature).to.deep.equal({
      scheme: 'HMAC_SHA256',
      secretName: 'gh-signing',
    });
    expect(listed.find((x) => x.id === g.id).signature).to.deep.equal({ scheme: 'GITHUB', secretName: 'gh-signing' });
  });

  it('refuses bad handlers, a script override and an unknown agent', async () => {
    const agentId = await createAgent(ws.adminToken);
    expectRefused(
      await gql(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'x', handler: { prompt: 'p', script: 's' } } }),
      'BAD_USER_INPUT',
      'input.handler',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'x', handler: {} } }),
      'BAD_USER_INPUT',
      'input.handler',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'x', handler: { prompt: ' ' } } }),
      'BAD_USER_INPUT',
      'input.handler.prompt',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_WH, {
        a: agentId,
        i: { integration: 'x', handler: { script: 'return 1' }, modelOverride: 'm' },
      }),
      'BAD_USER_INPUT',
      'modelOverride',
    );
    expectRefused(
      await gql(ws.adminToken, ADD_WH, { a: 'agt_missing', i: { integration: 'x', handler: { prompt: 'p' } } }),
      'NOT_FOUND',
    );
    expect((await entries(ws.adminToken, agentId)).webhooks).to.deep.equal([]);
  });

  it('updateWebhook changes the given fields, checks a new signature and refuses a taken integration', async () => {
    const agentId = await createAgent(ws.adminToken);
    const w = (await gqlOk(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'one', handler: { prompt: 'p' } } }))
      .addWebhook;
    await gqlOk(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'two', handler: { prompt: 'p' } } });

    const u1 = (
      await gqlOk(ws.adminToken, UPDATE_WH, {
        id: w.id,
        i: { signature: { scheme: 'STRIPE', secretName: 'gh-signing' } },
      })
    ).updateWebhook;
    expect(u1).to.deep.equal({ ...w, signature: { scheme: 'STRIPE', secretName: 'gh-signing' } });
    expectRefused(
      await gql(ws.adminToken, UPDATE_WH, { id: w.id, i: { signature: { secretName: 'plain' } } }),
      'BAD_USER_INPUT',
      'signature.secretName',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_WH, { id: w.id, i: { signature: { secretName: 'missing' } } }),
      'BAD_USER_INPUT',
      'signature.secretName',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_WH, { id: w.id, i: { integration: 'two' } }),
      'CONFLICT',
      'integration',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_WH, { id: w.id, i: { integration: 'a/b' } }),
      'BAD_USER_INPUT',
      'input.integration',
    );
    expectRefused(
      await gql(ws.adminToken, UPDATE_WH, { id: w.id, i: { modelOverride: 'm', handler: { script: 'return 1' } } }),
      'BAD_USER_INPUT',
      'modelOverride',
    );
    expect((await entries(ws.adminToken, agentId)).webhooks.find((x) => x.id === w.id)).to.deep.equal(u1);

    const u2 = (
      await gqlOk(ws.adminToken, UPDATE_WH, { id: w.id, i: { integration: 'one', handler: { script: 'return 2' } } })
    ).updateWebhook;
    expect(u2).to.deep.include({
      integration: 'one',
      handler: { kind: 'SCRIPT', prompt: null, script: 'return 2' },
      signature: { scheme: 'STRIPE', secretName: 'gh-signing' },
    });
    const u3 = (await gqlOk(ws.adminToken, UPDATE_WH, { id: w.id, i: { signature: null, integration: 'three' } }))
      .updateWebhook;
    expect(u3).to.deep.include({ integration: 'three', signature: null });
    expect((await entries(ws.adminToken, agentId)).webhooks.find((x) => x.id === w.id)).to.deep.equal(u3);
  });

  it("update and remove of another workspace's webhook are NOT_FOUND; removing twice is NOT_FOUND the second time", async () => {
    const foreignAgent = await createAgent(other.adminToken);
    const foreign = (
      await gqlOk(other.adminToken, ADD_WH, { a: foreignAgent, i: { integration: 'x', handler: { prompt: 'p' } } })
    ).addWebhook;
    expectRefused(await gql(ws.adminToken, UPDATE_WH, { id: foreign.id, i: { integration: 'y' } }), 'NOT_FOUND');
    expectRefused(await gql(ws.adminToken, REMOVE_WH, { id: foreign.id }), 'NOT_FOUND');
    expect((await entries(other.adminToken, foreignAgent)).webhooks).to.deep.equal([foreign]);

    const agentId = await createAgent(ws.adminToken);
    const w = (await gqlOk(ws.adminToken, ADD_WH, { a: agentId, i: { integration: 'x', handler: { prompt: 'p' } } }))
      .addWebhook;
    expect((await gqlOk(ws.adminToken, REMOVE_WH, { id: w.id })).removeWebhook).to.equal(true);
    expect((await entries(ws.adminToken, agentId)).webhooks).to.deep.equal([]);
    expectRefused(await gql(ws.adminToken, REMOVE_WH, { id: w.id }), 'NOT_FOUND');
    expectRefused(await gql(ws.adminToken, UPDATE_WH, { id: w.id, i: { integration: 'y' } }), 'NOT_FOUND');
  });
});
