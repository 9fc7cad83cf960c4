import {
  execute,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  parse,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { DomainError } from '../domain/errors.js';
import type { Agent } from '../domain/agents/agent.entities.js';
import type { Principal } from '../domain/principal.js';
import type { Json } from '../domain/json.js';
import type { ToolDefinition } from '../domain/runtime/language-model.ports.js';
import type { SelfManagementTools } from '../domain/runtime/run.service.js';
import type { Services } from '../domain/services.js';
import { createLoaders } from './context.js';

// The Endpoint Management capability: each tool runs the same GraphQL operation a member would,
// in-process, as the AgentSelf principal. Argument schemas are generated from the GraphQL schema,
// so they cannot drift from the mutations. `agentId` is always bound to the running agent.

const ENTRY = 'id agentId createdAt updatedAt';
const HANDLER = 'handler { kind prompt script } modelOverride';
const SURFACES = 'surfaces { surface enabled activityLogging } cors { allowPlatformApps customOrigins }';

interface ToolSpec {
  description: string;
  /** The Query or Mutation field the tool runs. */
  field: string;
  operation: 'query' | 'mutation';
  selection: string;
}

const SPECS: Record<string, ToolSpec> = {
  list_surfaces: {
    description: "List this agent's surfaces (enabled, activity logging), CORS, HTTP endpoints, MCP tools, webhooks and exposed documents.",
    field: 'agent',
    operation: 'query',
    selection: `{ id ${SURFACES} httpEndpoints { ${ENTRY} path methods description inputSchema outputSchema ${HANDLER} } mcpTools { ${ENTRY} name description inputSchema outputSchema ${HANDLER} }
      webhooks { ${ENTRY} integration signature { scheme secretName } maxBodyBytes ${HANDLER} } documentExposures { documentId read write } documents { id name kind } }`,
  },
  add_http_endpoint: { description: 'Add an HTTP API endpoint to this agent.', field: 'addHttpEndpoint', operation: 'mutation', selection: `{ ${ENTRY} path methods inputSchema outputSchema ${HANDLER} }` },
  update_http_endpoint: { description: "Update one of this agent's HTTP API endpoints.", field: 'updateHttpEndpoint', operation: 'mutation', selection: `{ ${ENTRY} path methods inputSchema outputSchema ${HANDLER} }` },
  remove_http_endpoint: { description: "Remove one of this agent's HTTP API endpoints.", field: 'removeHttpEndpoint', operation: 'mutation', selection: '' },
  expose_document: { description: "Expose one of this agent's documents on the Document API with read and/or write permission.", field: 'exposeDocument', operation: 'mutation', selection: '{ documentId read write }' },
  unexpose_document: { description: 'Remove a document from the Document API.', field: 'unexposeDocument', operation: 'mutation', selection: '' },
  add_mcp_tool: { description: 'Add an MCP tool to this agent.', field: 'addMcpTool', operation: 'mutation', selection: `{ ${ENTRY} name description inputSchema outputSchema ${HANDLER} }` },
  update_mcp_tool: { description: "Update one of this agent's MCP tools.", field: 'updateMcpTool', operation: 'mutation', selection: `{ ${ENTRY} name description inputSchema outputSchema ${HANDLER} }` },
  remove_mcp_tool: { description: "Remove one of this agent's MCP tools.", field: 'removeMcpTool', operation: 'mutation', selection: '' },
  add_webhook: { description: 'Add a webhook integration to this agent.', field: 'addWebhook', operation: 'mutation', selection: `{ ${ENTRY} integration signature { scheme secretName } maxBodyBytes ${HANDLER} }` },
  update_webhook: { description: "Update one of this agent's webhook integrations.", field: 'updateWebhook', operation: 'mutation', selection: `{ ${ENTRY} integration signature { scheme secretName } maxBodyBytes ${HANDLER} }` },
  remove_webhook: { description: "Remove one of this agent's webhook integrations.", field: 'removeWebhook', operation: 'mutation', selection: '' },
  set_surface: { description: "Turn one of this agent's surfaces on or off, or its activity logging.", field: 'setSurface', operation: 'mutation', selection: `{ id ${SURFACES} }` },
  set_cors: { description: "Set this agent's HTTP API CORS settings.", field: 'setCors', operation: 'mutation', selection: `{ id ${SURFACES} }` },
};

/** The tool names of the capability, in a stable order. */
export const SELF_MANAGEMENT_TOOL_NAMES = Object.keys(SPECS);

/** JSON Schema of a GraphQL input type (arguments mirror the GraphQL inputs exactly). */
function inputSchema(type: GraphQLInputType): Record<string, unknown> {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) return { type: 'array', items: inputSchema(t.ofType) };
  if (isEnumType(t)) return { type: 'string', enum: t.getValues().map((v) => v.name) };
  if (isInputObjectType(t)) {
    const fields = Object.values(t.getFields());
    const schema: Record<string, unknown> = { type: 'object', properties: Object.fromEntries(fields.map((f) => [f.name, describe(inputSchema(f.type), f.description)])) };
    const required = fields.filter((f) => isNonNullType(f.type)).map((f) => f.name);
    if (required.length) schema.required = required;
    if (t.description) schema.description = t.description;
    return schema;
  }
  if (isScalarType(t)) {
    switch (t.name) {
      case 'Int':
        return { type: 'integer' };
      case 'Float':
        return { type: 'number' };
      case 'Boolean':
        return { type: 'boolean' };
      case 'JSONObject':
        return { type: 'object' };
      case 'JSON':
        return {};
      default:
        return { type: 'string' };
    }
  }
  return {};
}

function describe(schema: Record<string, unknown>, description?: string | null) {
  return description ? { ...schema, description } : schema;
}

function argsSchema(args: readonly GraphQLArgument[]): Record<string, unknown> {
  const own = args.filter((a) => a.name !== 'agentId');
  const required = own.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined).map((a) => a.name);
  return { type: 'object', properties: Object.fromEntries(own.map((a) => [a.name, describe(inputSchema(a.type), a.description)])), ...(required.length ? { required } : {}) };
}

function typeRef(type: GraphQLInputType): string {
  if (isNonNullType(type)) return `${typeRef(type.ofType)}!`;
  if (isListType(type)) return `[${typeRef(type.ofType)}]`;
  return getNamedType(type).name;
}

interface BuiltTool {
  name: string;
  spec: ToolSpec;
  schema: Record<string, unknown>;
  document: DocumentNode;
  hasAgentId: boolean;
  argNames: string[];
}

function build(schema: GraphQLSchema): BuiltTool[] {
  return Object.entries(SPECS).map(([name, spec]) => {
    const root = spec.operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
    const field = root.getFields()[spec.field];
    if (!field) throw new Error(`self-management tool ${name}: no ${spec.operation} field ${spec.field}`);
    // `agent(id)` is the one query: its id is the running agent too.
    const args = field.args.map((a) => (spec.field === 'agent' && a.name === 'id' ? Object.assign({}, a, { name: 'agentId' }) : a));
    const vars = args.map((a) => `$${a.name}: ${typeRef(a.type)}`).join(', ');
    const call = field.args.map((a, i) => `${a.name}: $${args[i]!.name}`).join(', ');
    const text = `${spec.operation} ${name}${vars ? `(${vars})` : ''} { result: ${spec.field}${call ? `(${call})` : ''} ${spec.selection} }`;
    return {
      name,
      spec,
      schema: argsSchema(args),
      document: parse(text),
      hasAgentId: args.some((a) => a.name === 'agentId'),
      argNames: args.map((a) => a.name).filter((n) => n !== 'agentId'),
    };
  });
}

/** Builds the capability's tools over an executable schema; `services` is read lazily (composition order). */
export function createSelfManagementTools(schema: GraphQLSchema, services: () => Services): SelfManagementTools {
  const tools = build(schema);
  return {
    toolsFor(agent: Agent): ToolDefinition[] {
      const principal: Principal = { kind: 'agentSelf', workspaceId: agent.workspaceId, agentId: agent.id };
      return tools.map((t) => ({
        name: t.name,
        description: t.spec.description,
        inputSchema: t.schema,
        async execute(args) {
          const variables: Record<string, unknown> = Object.fromEntries(t.argNames.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]));
          if (t.hasAgentId) variables.agentId = agent.id;
          const s = services();
          const res = await execute({ schema, document: t.document, variableValues: variables, contextValue: { principal, services: s, loaders: createLoaders(s) } });
          if (res.errors?.length) {
            const original = res.errors[0]!.originalError;
            if (original instanceof DomainError) throw original;
            throw new DomainError('INVALID', res.errors[0]!.message);
          }
          return (res.data?.result ?? null) as Json;
        },
      }));
    },
  };
}
