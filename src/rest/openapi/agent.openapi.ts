import { createHash } from 'node:crypto';
import type { Agent } from '../../domain/core/agent.entities.js';
import type { HttpEndpoint, HttpMethod } from '../../domain/entries/entry.entities.js';

// The OpenAPI 3.1 document of one agent's own HTTP API (`GET /agents/{agentId}/openapi.json`): one
// path per endpoint, one operation per method, named so that a generated client calls each endpoint
// by name. The server URL carries the agent's API prefix, so the paths are the endpoint paths as the
// member wrote them (`/orders/{id}/summary`). Built as plain JSON: the declared schemas already are
// JSON Schema 2020-12, which OpenAPI 3.1 takes as it is.

type Json = Record<string, unknown>;

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

const error = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: error } } });

const ERRORS = {
  400: errorResponse(
    'Malformed JSON, a body that does not match the endpoint’s input schema, or input refused by the agent guardrails',
  ),
  401: errorResponse('Missing or invalid API key (a key of another agent is invalid here)'),
  403: errorResponse('The HTTP API is turned off for this agent'),
  404: errorResponse('Unknown agent or path'),
  429: {
    description: 'A limit was hit; retry after Retry-After seconds',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/LimitExceeded' } } },
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' } },
  },
  500: errorResponse('The handler failed (script error or limit, model error, missing model configuration)'),
};
const BODY_ERRORS = {
  413: errorResponse('Body larger than 1 MiB'),
  415: errorResponse('Body not sent as application/json'),
};

/** A path segment or parameter name as a word of a camelCase identifier: `order-items` → `OrderItems`. */
function words(segment: string): string {
  return segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/**
 * The operation name an endpoint method gets from its meaning, the method and the path:
 * `GET orders/{id}/summary` → `getOrdersByIdSummary`. Always a valid identifier in the usual client
 * languages (starts with the lowercase method, then letters and digits only).
 */
export function baseOperationId(method: HttpMethod, path: string): string {
  const rest = path.split('/').map((s) => {
    const p = PARAM.exec(s);
    return p ? `By${words(p[1]!)}` : words(s);
  });
  return method.toLowerCase() + rest.join('');
}

/**
 * The operationId of every endpoint method, unique within the agent. Paths that differ only in case
 * or punctuation (`order-items`, `order_items`) derive the same name: the endpoint created first
 * keeps it and a later one adds a suffix hashed from its own method and path, so adding an endpoint
 * never renames an existing operation.
 */
export function operationIds(endpoints: HttpEndpoint[]): Map<string, string> {
  const byAge = [...endpoints].sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id),
  );
  const taken = new Set<string>();
  const ids = new Map<string, string>();
  for (const endpoint of byAge) {
    for (const method of endpoint.methods) {
      let id = baseOperationId(method, endpoint.path);
      if (taken.has(id))
        id += `_${createHash('sha256').update(`${method} ${endpoint.path}`).digest('hex').slice(0, 8)}`;
      taken.add(id);
      ids.set(`${method} ${endpoint.path}`, id);
    }
  }
  return ids;
}

function pathParameters(path: string): Json[] {
  return path.split('/').flatMap((s) => {
    const p = PARAM.exec(s);
    return p
      ? [
          {
            name: p[1]!,
            in: 'path',
            required: true,
            description: 'One path segment (never `.` or `..`)',
            schema: { type: 'string' },
          },
        ]
      : [];
  });
}

function operation(endpoint: HttpEndpoint, method: HttpMethod, operationId: string): Json {
  const output =
    endpoint.outputSchema ??
    (endpoint.handler.kind === 'prompt'
      ? { type: 'string', description: 'The agent’s answer' }
      : { description: 'Any JSON value the script returns' });
  const result = {
    type: 'object',
    required: ['output', 'runId', 'credits'],
    properties: { output, runId: { type: 'string' }, credits: { type: 'number' } },
  };
  const content: Json = { 'application/json': { schema: result } };
  // Only a prompt handler streams (DESIGN §6): `delta` {text}… then `done` or `error`.
  if (endpoint.handler.kind === 'prompt')
    content['text/event-stream'] = {
      schema: {
        type: 'string',
        description: 'Server-sent events: delta {text}…, then done {output, runId, credits} or error {error}',
      },
    };
  const hasBody = method !== 'GET';
  return {
    operationId,
    summary: endpoint.description || `${method} ${endpoint.path}`,
    tags: ['Endpoints'],
    ...(hasBody
      ? {
          requestBody: {
            required: endpoint.inputSchema !== null,
            description: endpoint.inputSchema
              ? 'Checked against the endpoint’s input schema (400 when it does not match)'
              : 'Any JSON value; the handler sees it as its input',
            content: { 'application/json': { schema: endpoint.inputSchema ?? {} } },
          },
        }
      : {}),
    responses: {
      200: {
        description: 'The run result (an event stream when one is asked for and the handler is a prompt)',
        content,
        headers: { 'X-Run-Id': { schema: { type: 'string' }, description: 'The run id' } },
      },
      ...ERRORS,
      ...(hasBody ? BODY_ERRORS : {}),
    },
  };
}

/** The OpenAPI 3.1 document of the agent's HTTP API endpoints. */
export function agentOpenApi(agent: Agent, endpoints: HttpEndpoint[], baseUrl: string): Json {
  const ids = operationIds(endpoints);
  const paths: Json = {};
  for (const endpoint of [...endpoints].sort((a, b) => a.path.localeCompare(b.path))) {
    const params = pathParameters(endpoint.path);
    const item: Json = params.length ? { parameters: params } : {};
    for (const method of endpoint.methods)
      item[method.toLowerCase()] = operation(endpoint, method, ids.get(`${method} ${endpoint.path}`)!);
    paths[`/${endpoint.path}`] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${agent.name} — HTTP API`,
      version: '1.0.0',
      description:
        `The HTTP API endpoints of agent ${agent.id}. Paths are relative to the server URL (the agent’s API prefix). ` +
        'Authenticate with the agent key in `X-Agent-Access-Key` (or `Authorization: Bearer`). Errors are `{"error": "..."}`; a 429 adds `reason` and `Retry-After`.',
    },
    servers: [
      {
        url: `${baseUrl.replace(/\/+$/, '')}/agents/${encodeURIComponent(agent.id)}/api`,
        description: `Agent ${agent.name}`,
      },
    ],
    security: [{ agentKey: [] }, { bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        agentKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Agent-Access-Key',
          description: 'An agent key (ak_) of this agent, or a workspace key when the agent allows them',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same key as `Authorization: Bearer <key>`' },
      },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
        LimitExceeded: {
          type: 'object',
          required: ['error', 'reason'],
          properties: {
            error: { type: 'string' },
            reason: {
              type: 'string',
              enum: ['daily_credit_limit', 'team_credit_limit', 'workspace_credit_limit', 'concurrency_limit'],
            },
          },
        },
      },
    },
  };
}
