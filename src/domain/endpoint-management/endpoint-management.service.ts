import { z } from 'zod';
import type { Agent } from '../core/agent.entities.js';
import type { Principal } from '../principal.js';
import type { ToolDefinition } from '../models/language-model.ports.js';
import {
  ENDPOINT_OPERATIONS,
  TOOL_DESCRIPTIONS,
  type EndpointOperation,
  type EndpointOperationName,
  type EndpointServices,
} from './endpoint-management.operations.js';

type Operations = typeof ENDPOINT_OPERATIONS;
type ArgsOf<K extends EndpointOperationName> =
  Operations[K] extends EndpointOperation<infer S>
    ? { [A in keyof S]: A extends 'input' ? unknown : z.input<S[A]> }
    : never;
type ResultOf<K extends EndpointOperationName> =
  Operations[K] extends EndpointOperation<z.ZodRawShape, infer R> ? R : never;

/** JSON Schema keywords zod writes that only restate the type for the model (records' key type, any value). */
const NOISE = new Set(['$schema', 'propertyNames']);

/**
 * A JSON Schema as the model is shown it: a nullable value is its non-null type (leaving it out is
 * how the model says nothing), and an object of any keys is just an object.
 */
function forModel(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forModel);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  const alternatives = Array.isArray(s.anyOf)
    ? (s.anyOf as Record<string, unknown>[]).filter((a) => a.type !== 'null')
    : undefined;
  if (alternatives?.length === 1) {
    const { anyOf: _anyOf, ...rest } = s;
    return forModel({ ...alternatives[0], ...rest });
  }
  const out: Record<string, unknown> = {};
  if (Array.isArray(s.type) && s.type.includes('null')) {
    const types = s.type.filter((t) => t !== 'null');
    return forModel({ ...s, type: types.length === 1 ? types[0] : types });
  }
  for (const [k, v] of Object.entries(s)) {
    if (NOISE.has(k) || (k === 'additionalProperties' && v && typeof v === 'object' && !Object.keys(v).length))
      continue;
    out[k] =
      k === 'properties'
        ? Object.fromEntries(Object.entries(v as object).map(([p, ps]) => [p, forModel(ps)]))
        : forModel(v);
  }
  return out;
}

/** The JSON Schema of a tool's arguments: the operation's, without `agentId` (the running agent). */
export function toolArgumentsSchema(op: EndpointOperation): Record<string, unknown> {
  const own = 'agentId' in op.args.shape ? op.args.omit({ agentId: true } as never) : op.args;
  const schema = forModel(
    z.toJSONSchema(own, { io: 'input', unrepresentable: 'any', metadata: TOOL_DESCRIPTIONS }),
  ) as Record<string, unknown>;
  return { ...schema, properties: schema.properties ?? {} };
}

/**
 * The Endpoint Management capability: the operations of ENDPOINT_OPERATIONS, run by a member over
 * GraphQL or by the agent itself through its tools. Who may run what on which agent is the
 * services' policy; the tools only bind `agentId` to the running agent.
 */
export class EndpointManagementService {
  private readonly schemas = new Map<EndpointOperation, Record<string, unknown>>();

  constructor(private readonly services: EndpointServices) {}

  /** Runs one operation as `p`; throws what its service throws (NotFound, Forbidden, Invalid, Conflict). */
  call<K extends EndpointOperationName>(p: Principal, name: K, args: ArgsOf<K>): Promise<ResultOf<K>> {
    const op = ENDPOINT_OPERATIONS[name] as unknown as EndpointOperation<z.ZodRawShape, ResultOf<K>>;
    return op.call(this.services, p, args);
  }

  /** The capability's tools for one agent, acting as that agent (the AgentSelf principal). */
  toolsFor(agent: Agent): ToolDefinition[] {
    const self: Principal = { kind: 'agentSelf', workspaceId: agent.workspaceId, agentId: agent.id };
    return Object.values(ENDPOINT_OPERATIONS).map((o) => {
      const op = o as unknown as EndpointOperation;
      const names = Object.keys(op.args.shape).filter((n) => n !== 'agentId');
      const bound = 'agentId' in op.args.shape;
      return {
        name: op.tool,
        description: op.description,
        inputSchema: this.schemaOf(op),
        execute: async (args) => {
          // Only the operation's own arguments: an `agentId` the model names is ignored.
          const given: Record<string, unknown> = Object.fromEntries(
            names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]),
          );
          if (bound) given.agentId = agent.id;
          return op.answer(await op.call(this.services, self, given));
        },
      };
    });
  }

  private schemaOf(op: EndpointOperation): Record<string, unknown> {
    let schema = this.schemas.get(op);
    if (!schema) this.schemas.set(op, (schema = toolArgumentsSchema(op)));
    return schema;
  }
}
