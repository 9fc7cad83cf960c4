import { expect } from 'chai';
import {
  getNamedType,
  isInputObjectType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import {
  ENDPOINT_OPERATIONS,
  type EndpointOperation,
} from '../../src/domain/endpoint-management/endpoint-management.operations.js';
import { toolArgumentsSchema } from '../../src/domain/endpoint-management/endpoint-management.service.js';
import type { Principal } from '../../src/domain/principal.js';
import { buildGraphqlSchema } from '../../src/graphql/schema.js';
import { createAgent, gqlOk, h, newWorkspace, type TestWorkspace } from '../helpers/harness.js';
import { loadAgent } from '../helpers/runtime.js';

// The agent's Endpoint Management tools and the GraphQL mutations are one table of domain
// operations (src/domain/endpoint-management): every operation has a tool and (but list_surfaces, a
// read) a mutation taking the same arguments; "only its own agent" is the services' policy.

type JsonSchema = {
  type?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  items?: JsonSchema;
};

const operations = Object.values(ENDPOINT_OPERATIONS) as unknown as EndpointOperation[];

/** A GraphQL input's fields as the tool schema must show them: names, required ones, descriptions. */
function expectAgrees(where: string, type: GraphQLInputType, schema: JsonSchema): void {
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return;
  const fields = Object.values(named.getFields());
  const object = schema.type === 'array' ? schema.items! : schema;
  expect(Object.keys(object.properties ?? {}).sort(), `${where}: fields`).to.deep.equal(
    fields.map((f) => f.name).sort(),
  );
  const required = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name);
  expect([...(object.required ?? [])].sort(), `${where}: required fields`).to.deep.equal(required.sort());
  for (const f of fields) {
    if (f.description)
      expect(object.properties![f.name]!.description, `${where}.${f.name}: description`).to.equal(f.description);
    expectAgrees(`${where}.${f.name}`, f.type, object.properties![f.name]!);
  }
}

function requiredArgs(args: readonly GraphQLArgument[]): string[] {
  return args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined).map((a) => a.name);
}

describe('Endpoint Management: one table of operations for the tools and the GraphQL mutations', function () {
  this.timeout(30_000);
  let schema: GraphQLSchema;
  let ws: TestWorkspace;

  before(async () => {
    schema = await buildGraphqlSchema();
    ws = await newWorkspace();
  });

  it('gives every operation a tool, in the order of the table, and nothing else', async () => {
    const id = await createAgent(ws.adminToken);
    const tools = h().service.services.endpointManagement.toolsFor(await loadAgent(id));
    expect(tools.map((t) => t.name)).to.deep.equal(operations.map((o) => o.tool));
    expect(tools.map((t) => t.description)).to.deep.equal(operations.map((o) => o.description));
  });

  it('gives every operation but the list_surfaces read a mutation with the same arguments, and the tool the same schema less agentId', () => {
    const mutations = schema.getMutationType()!.getFields();
    for (const op of operations) {
      const tool = toolArgumentsSchema(op) as JsonSchema;
      if (op.mutation === null) {
        expect(op.tool).to.equal('list_surfaces');
        expect(Object.keys(op.args.shape)).to.deep.equal(['agentId']);
        expect(tool.properties).to.deep.equal({});
        continue;
      }
      const field = mutations[op.mutation];
      expect(field, `mutation ${op.mutation}`).to.not.equal(undefined);
      const args = field!.args;
      expect(Object.keys(op.args.shape).sort(), `${op.tool}: arguments`).to.deep.equal(args.map((a) => a.name).sort());
      const own = args.filter((a) => a.name !== 'agentId');
      expect(Object.keys(tool.properties ?? {}).sort(), `${op.tool}: tool arguments`).to.deep.equal(
        own.map((a) => a.name).sort(),
      );
      expect([...(tool.required ?? [])].sort(), `${op.tool}: required`).to.deep.equal(requiredArgs(own).sort());
      for (const a of own) expectAgrees(`${op.tool}.${a.name}`, a.type, tool.properties![a.name]!);
    }
  });

  it('names no mutation twice, and covers every Endpoint Management mutation the schema has', () => {
    const named = operations.map((o) => o.mutation).filter((m): m is string => m !== null);
    expect(new Set(named).size).to.equal(named.length);
    const mutations = Object.keys(schema.getMutationType()!.getFields());
    for (const m of ['addHttpEndpoint', 'updateWebhook', 'exposeDocument', 'setSurface', 'setCors'])
      expect(mutations).to.include(m);
  });

  describe('called directly in the domain as the AgentSelf principal', () => {
    let own: string;
    let other: string;
    let otherEndpoint: string;
    let self: Principal;
    const s = () => h().service.services;

    before(async () => {
      own = await createAgent(ws.adminToken);
      other = await createAgent(ws.adminToken);
      await gqlOk(
        ws.adminToken,
        'mutation($id: ID!) { setCapabilities(agentId: $id, input: {endpointManagement: true}) { id } }',
        { id: own },
      );
      const ep = await gqlOk(
        ws.adminToken,
        'mutation($id: ID!) { addHttpEndpoint(agentId: $id, input: {path: "theirs", handler: {prompt: "p"}}) { id } }',
        { id: other },
      );
      otherEndpoint = ep.addHttpEndpoint.id;
      self = { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId: own };
    });

    it('cannot touch another agent through any operation that names it, nor its entries by id', async () => {
      const input = { path: 'hijack', handler: { prompt: 'p' } };
      const refusals: [string, () => Promise<unknown>][] = [
        ['listSurfaces', () => s().endpointManagement.call(self, 'listSurfaces', { agentId: other })],
        ['addHttpEndpoint', () => s().endpointManagement.call(self, 'addHttpEndpoint', { agentId: other, input })],
        [
          'updateHttpEndpoint',
          () =>
            s().endpointManagement.call(self, 'updateHttpEndpoint', { id: otherEndpoint, input: { path: 'moved' } }),
        ],
        ['removeHttpEndpoint', () => s().endpointManagement.call(self, 'removeHttpEndpoint', { id: otherEndpoint })],
        [
          'setSurface',
          () =>
            s().endpointManagement.call(self, 'setSurface', {
              agentId: other,
              surface: 'MCP',
              enabled: false,
              activityLogging: undefined,
            }),
        ],
        [
          'setCors',
          () =>
            s().endpointManagement.call(self, 'setCors', {
              agentId: other,
              allowPlatformApps: false,
              customOrigins: [],
            }),
        ],
        // The table's entry itself, without the service in front of it.
        [
          'table entry',
          () =>
            ENDPOINT_OPERATIONS.addMcpTool.call(s(), self, {
              agentId: other,
              input: { name: 't', description: 'd', handler: { prompt: 'p' } },
            }),
        ],
      ];
      for (const [name, call] of refusals) {
        const err = await call().then(
          () => null,
          (e: { code?: string }) => e,
        );
        expect(err, name).to.not.equal(null);
        expect(['FORBIDDEN', 'NOT_FOUND'], name).to.include(err!.code);
      }
      const d = await gqlOk(
        ws.adminToken,
        'query($id: ID!) { agent(id: $id) { surfaces { surface enabled } cors { allowPlatformApps } httpEndpoints { path } mcpTools { name } } }',
        { id: other },
      );
      expect(d.agent.httpEndpoints).to.deep.equal([{ path: 'theirs' }]);
      expect(d.agent.mcpTools).to.deep.equal([]);
      expect(d.agent.cors.allowPlatformApps).to.equal(true);
      // As a new agent has them: every surface on but the OpenAI-compatible API, A2A, email, SMS and schedules.
      expect(d.agent.surfaces.map((x: { surface: string; enabled: boolean }) => x.enabled)).to.deep.equal([
        true,
        true,
        true,
        true,
        true,
        false,
        false,
        false,
        false,
        false,
      ]);
    });

    it('runs on its own agent, and the tool answers what the mutation returns', async () => {
      const ep = await s().endpointManagement.call(self, 'addHttpEndpoint', {
        agentId: own,
        input: { path: 'mine', handler: { prompt: 'p' } },
      });
      expect(ep.agentId).to.equal(own);
      expect(ENDPOINT_OPERATIONS.addHttpEndpoint.answer(ep)).to.deep.include({
        path: 'mine',
        methods: ['POST'],
        handler: { kind: 'PROMPT', prompt: 'p', script: null },
      });
    });

    it("manages its own schedules, never another agent's", async () => {
      const sch = await s().endpointManagement.call(self, 'addSchedule', {
        agentId: own,
        input: { name: 'hourly', cron: '0 * * * *', handler: { prompt: 'Check in.' } },
      });
      expect(ENDPOINT_OPERATIONS.addSchedule.answer(sch)).to.deep.include({
        name: 'hourly',
        cron: '0 * * * *',
        timeZone: 'UTC',
        intervalSeconds: null,
        overlap: 'SKIP',
      });
      const moved = await s().endpointManagement.call(self, 'updateSchedule', {
        id: sch.id,
        input: { intervalSeconds: 600 },
      });
      expect(moved.timing).to.deep.equal({ intervalSeconds: 600 });
      const err = await s()
        .endpointManagement.call(self, 'addSchedule', {
          agentId: other,
          input: { name: 'x', intervalSeconds: 60, handler: { prompt: 'p' } },
        })
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      expect(await s().endpointManagement.call(self, 'removeSchedule', { id: sch.id })).to.equal(true);
    });

    it('checks the arguments beside input: a surface that does not exist is refused naming it', async () => {
      const err = await s()
        .endpointManagement.call(self, 'setSurface', {
          agentId: own,
          surface: 'NOPE' as never,
          enabled: true,
          activityLogging: undefined,
        })
        .then(
          () => null,
          (e: { code?: string; message: string }) => e,
        );
      expect(err!.code).to.equal('INVALID');
      expect(err!.message).to.match(/^surface: /);
    });
    it('refuses a missing input in words a model can act on, before any service runs', async () => {
      for (const name of ['addHttpEndpoint', 'updateMcpTool'] as const) {
        const args = name === 'addHttpEndpoint' ? { agentId: own } : { id: 'tool_missing' };
        const err = await s()
          .endpointManagement.call(self, name, args as never)
          .then(
            () => null,
            (e: { code?: string; message: string }) => e,
          );
        expect(err!.code, name).to.equal('INVALID');
        expect(err!.message, name).to.equal('input: required: pass the fields as an object');
      }
    });
  });

  describe("the GraphQL loaders' reads", () => {
    it('leave out the children of agents the principal may not read, whatever ids it asks for', async () => {
      const a = await createAgent(ws.adminToken);
      const b = await createAgent(ws.adminToken);
      await gqlOk(
        ws.adminToken,
        'mutation($id: ID!) { addHttpEndpoint(agentId: $id, input: {path: "b-only", handler: {prompt: "p"}}) { id } }',
        { id: b },
      );
      await gqlOk(ws.adminToken, 'mutation($id: ID!) { createAgentApiKey(agentId: $id, name: "k") { key } }', {
        id: b,
      });
      const s = h().service.services;
      const selfA: Principal = { kind: 'agentSelf', workspaceId: ws.workspaceId, agentId: a };
      expect(await s.entries.listForAgents(selfA, 'httpEndpoints', [a, b])).to.deep.equal([]);
      expect(await s.keys.listForAgents(selfA, [b])).to.deep.equal([]);
      expect(await s.documents.exposuresForAgents(selfA, [b])).to.deep.equal([]);
      // Background work for agent b reads b's children, never another agent's.
      const admin: Principal = { kind: 'system', name: 'webhook-delivery', workspaceId: ws.workspaceId, agentId: b };
      expect((await s.entries.listForAgents(admin, 'httpEndpoints', [a, b])).map((e) => e.path)).to.deep.equal([
        'b-only',
      ]);
      expect(await s.keys.listForAgents(admin, [b])).to.have.length(1);
      const stranger: Principal = { kind: 'system', name: 'webhook-delivery', workspaceId: 'ws_elsewhere', agentId: b };
      expect(await s.entries.listForAgents(stranger, 'httpEndpoints', [b])).to.deep.equal([]);
    });
  });
});
