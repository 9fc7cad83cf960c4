import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  deleteBody,
  deleteResponse,
  documentResponse,
  insertBody,
  insertResponse,
  queryBodyDoc,
  queryResponse,
  readQuery,
  updateBody,
  updateResponse,
  writeDocumentBody,
} from '../../domain/documents/document-api.schemas.js';
import { OPERATOR_DOCS } from '../../domain/documents/record-filter.js';
import { chat, mcpServer, webhookReceiver } from './surfaces-inbound.openapi.js';
import {
  agentId,
  capitalized,
  documentParams,
  errorBody,
  errors,
  json,
  runResponse,
  security,
} from './surfaces-shared.openapi.js';

// OpenAPI 3.1 of the HTTP API and the Document API, generated from the zod schemas that validate
// the requests (src/domain/documents/document-api.schemas.ts), so the description cannot drift.

function httpApi(registry: OpenAPIRegistry) {
  for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
    registry.registerPath({
      method,
      path: '/agents/{agentId}/api/{path}',
      operationId: `callEndpoint${capitalized(method)}`,
      tags: ['HTTP API'],
      summary: `${method.toUpperCase()} an endpoint of the agent`,
      description:
        'Calls one of the endpoints defined for the agent (`path` may span several segments and capture `{name}` parameters; ' +
        'an encoded slash `%2F` separates segments too, so `orders%2F42%2Fsummary` reaches `orders/{id}/summary`). ' +
        'Each endpoint is described as its own operation in `/agents/{agentId}/openapi.json`. ' +
        'The handler sees `{method, path, params, query, headers, body}`. With `Accept: text/event-stream` a prompt handler streams ' +
        'server-sent events: `delta` `{text}`… then `done` `{output, runId, credits}` or `error` `{error}`.',
      security,
      request: {
        params: z.object({ agentId, path: z.string().describe('The endpoint path, e.g. orders/42/summary') }),
        ...(method === 'get'
          ? {}
          : {
              body: {
                required: false,
                content: { 'application/json': { schema: z.unknown().describe('Any JSON value') } },
              },
            }),
      },
      responses: {
        200: {
          description: 'The run result (or an event stream when asked for one)',
          content: { 'application/json': { schema: runResponse }, 'text/event-stream': { schema: z.string() } },
        },
        ...errors,
        405: json(errorBody, 'The path exists for other methods (see the Allow header)'),
        500: json(errorBody, 'The handler failed (script error or limit, model error, missing model configuration)'),
      },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/agents/{agentId}/openapi.json',
    operationId: 'getAgentOpenApiDocument',
    tags: ['HTTP API'],
    summary: "The OpenAPI 3.1 document of the agent's own endpoints",
    description:
      'One path per endpoint (relative to the server URL `{base_url}/agents/{agentId}/api`), one operation per method named ' +
      'from the method and path (`GET orders/{id}/summary` → `getOrdersByIdSummary`), with its path parameters and, where the ' +
      'endpoint declares them, its input and output schemas. Same key and answers as the HTTP API. The docs page shows it at `/docs?agent={agentId}`.',
    security,
    request: { params: z.object({ agentId }) },
    responses: {
      200: json(z.record(z.string(), z.unknown()), 'The OpenAPI 3.1 document'),
      401: errors[401],
      403: json(errorBody, 'The HTTP API is turned off for this agent'),
      404: json(errorBody, 'Unknown agent'),
    },
  });
}

/** One example per filter operator, and one of sort with a cursor. */
const queryExamples = {
  ...Object.fromEntries(
    Object.entries(OPERATOR_DOCS).map(([op, d]) => [
      op,
      { summary: `${op}: ${d.description}`, value: { filter: d.example } },
    ]),
  ),
  combined: {
    summary: 'several operators on one field, and several fields',
    value: { filter: { score: { gte: 3, lt: 8 }, status: ['open', 'waiting'], title: { contains: 'invoice' } } },
  },
  sorted: {
    summary: 'sorted, second page by cursor',
    value: {
      filter: { status: 'open' },
      sort: [
        { field: 'due', direction: 'asc' },
        { field: 'score', direction: 'desc' },
      ],
      limit: 50,
      cursor: '<nextCursor of the first page>',
    },
  },
};

function documentApi(registry: OpenAPIRegistry) {
  const tags = ['Document API'];
  registry.registerPath({
    method: 'get',
    path: '/agents/{agentId}/documents/{documentId}',
    operationId: 'readDocument',
    tags,
    summary: 'Read a document (with `data` for a database)',
    security,
    request: { params: documentParams, query: readQuery },
    responses: { 200: json(documentResponse.meta({ id: 'Document' }), 'The document'), ...errors },
  });
  registry.registerPath({
    method: 'put',
    path: '/agents/{agentId}/documents/{documentId}',
    operationId: 'writeDocument',
    tags,
    summary: 'Replace content, name or description',
    security,
    request: { params: documentParams, body: { content: { 'application/json': { schema: writeDocumentBody } } } },
    responses: { 200: json(documentResponse, 'The document'), ...errors },
  });
  const ops = [
    ['query', queryBodyDoc, queryResponse, 'Find records by field values and comparisons, sorted, a page at a time'],
    ['insert', insertBody, insertResponse, 'Insert records (validated against the field schema; all or nothing)'],
    ['update', updateBody, updateResponse, 'Set fields on matching records (empty filter needs all: true)'],
    ['delete', deleteBody, deleteResponse, 'Delete matching records (empty filter needs all: true)'],
  ] as const;
  for (const [op, body, response, summary] of ops) {
    registry.registerPath({
      method: 'post',
      path: `/agents/{agentId}/documents/{documentId}/data/${op}`,
      operationId: `${op}Records`,
      tags,
      summary,
      security,
      request: {
        params: documentParams,
        body: {
          content: { 'application/json': { schema: body, ...(op === 'query' ? { examples: queryExamples } : {}) } },
        },
      },
      responses: { 200: json(response, 'Result'), ...errors },
    });
  }
}

/** The OpenAPI 3.1 document of the agent surfaces, for `/openapi.json`. */
export function surfacesOpenApi(baseUrl: string): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'agentKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Agent-Access-Key',
  });
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  httpApi(registry);
  documentApi(registry);
  mcpServer(registry);
  webhookReceiver(registry);
  chat(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent Exposure Service — agent surfaces',
      version: '1.0.0',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description:
        'HTTP API, Document API, MCP server, chat endpoints and webhook receiver of the agents hosted by this service. Errors are `{"error": "..."}`; a 429 adds `reason` and `Retry-After`.',
    },
    servers: [{ url: baseUrl }],
  }) as unknown as Record<string, unknown>;
}
