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

// OpenAPI 3.1 of the HTTP API and the Document API, generated from the zod schemas that validate
// the requests (src/domain/documents/document-api.schemas.ts), so the description cannot drift.

const errorBody = z.object({ error: z.string() }).meta({ id: 'Error' });
const limitBody = z
  .object({
    error: z.string(),
    reason: z.enum(['daily_credit_limit', 'team_credit_limit', 'workspace_credit_limit', 'concurrency_limit']),
  })
  .meta({ id: 'LimitExceeded' });
const runResponse = z
  .object({
    output: z.unknown().describe('The handler output: text (prompt) or any JSON (script)'),
    runId: z.string(),
    credits: z.number(),
  })
  .meta({ id: 'RunResult' });

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = {
  400: json(
    errorBody,
    'Malformed JSON, JSON nested more than 64 levels deep, invalid input, or input refused by the agent guardrails',
  ),
  401: json(
    errorBody,
    "The key was refused; `error` says which case: no key sent, key not recognised, key revoked, key of another agent, or a workspace key while the agent's allowWorkspaceKeys is off (updateAgent input.allowWorkspaceKeys turns it on)",
  ),
  403: json(errorBody, 'The surface is turned off for this agent, or the document lacks the permission'),
  404: json(errorBody, 'Unknown agent, path, or document not exposed'),
  413: json(errorBody, 'Body larger than 1 MiB'),
  415: json(errorBody, 'Body not sent as application/json'),
  429: {
    ...json(limitBody, 'A limit was hit; retry after Retry-After seconds'),
    headers: { 'Retry-After': { schema: { type: 'integer' as const }, description: 'Seconds to wait' } },
  },
};

const agentId = z.string().describe('Agent id');
const documentParams = z.object({ agentId, documentId: z.string().describe('Document id') });
const security: Record<string, string[]>[] = [{ agentKey: [] }, { bearer: [] }];

/** `post` → `Post`: operationIds are camelCase, the method last where one operation exists per method. */
const capitalized = (method: string) => method[0]!.toUpperCase() + method.slice(1);

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

/**
 * The MCP server's one endpoint. Its messages are JSON-RPC (the Model Context Protocol), described
 * by the protocol itself: this entry gives the URL, the credentials and the plain HTTP answers.
 */
function mcpServer(registry: OpenAPIRegistry) {
  const message = z
    .record(z.string(), z.unknown())
    .describe('A JSON-RPC request or notification of the Model Context Protocol');
  registry.registerPath({
    method: 'post',
    path: '/agents/{agentId}/mcp',
    operationId: 'callMcpServer',
    tags: ['MCP server'],
    summary: 'The agent as an MCP server (its MCP tool entries are the tools)',
    description:
      'Model Context Protocol over Streamable HTTP, stateless (any instance answers, no session id). Protocol 2025-11-25 ' +
      '(`initialize`, then `tools/list`, `tools/call`) and 2026-07-28 (`server/discover`, a `_meta` envelope on every request) ' +
      'on this one URL. Send `Accept: application/json, text/event-stream`; an answer is JSON, or an event stream when a tool ' +
      'reports progress. Point an MCP client at this URL with the key in `X-Agent-Access-Key` (see the README). Authentication, ' +
      'the surface switch, a browser Origin the agent does not allow (403) and the limits of a `tools/call` (429) are answered ' +
      'as plain HTTP before any JSON-RPC; everything else is a JSON-RPC answer. GET and DELETE answer 405.',
    security,
    request: { params: z.object({ agentId }), body: { content: { 'application/json': { schema: message } } } },
    responses: {
      200: {
        description:
          'A JSON-RPC response (application/json) or an event stream of JSON-RPC messages (text/event-stream)',
      },
      202: { description: 'A notification was accepted' },
      400: errors[400],
      401: errors[401],
      403: json(errorBody, 'The MCP server is turned off for this agent, or the browser Origin is not allowed'),
      404: json(errorBody, 'Unknown agent'),
      405: json(errorBody, 'Only POST is served (no session streams)'),
      413: errors[413],
      429: errors[429],
    },
  });
}

/** The webhook receiver: keyless, any content type, answered once the delivery is stored. */
function webhookReceiver(registry: OpenAPIRegistry) {
  const received = z
    .object({
      received: z.literal(true),
      deliveryId: z.string(),
      duplicate: z
        .literal(true)
        .optional()
        .describe('Set when the sender id was seen in the last 24 hours: nothing new was stored'),
    })
    .meta({ id: 'WebhookReceived' });
  const params = z.object({ agentId, integration: z.string().describe('The integration name of a webhook entry') });
  const description =
    'Receives a callback for the integration and answers once it is durably stored; the agent runs it afterwards from a ' +
    'queue (at least once, retried with backoff, de-duplicated by the sender delivery id). No key: the URL routes the call. ' +
    'Any content type; the body is kept byte-exact. When the integration checks signatures (HMAC_SHA256 `X-Signature-256`, ' +
    'GitHub, Stripe, Slack, Standard Webhooks) a missing, wrong or stale signature is 401. A sender never gets 429 or 500.';
  const responses = {
    200: json(
      received,
      'Stored (or already stored under the same sender id); Slack url_verification answers {"challenge"}',
    ),
    401: json(errorBody, 'The integration checks signatures and this one is missing, does not match or is stale'),
    403: json(errorBody, 'The webhook receiver is turned off for this agent'),
    404: json(errorBody, 'Unknown agent or integration'),
    405: json(errorBody, 'Only POST, PUT, PATCH and GET are served'),
    413: json(
      errorBody,
      'Body larger than the integration accepts: its maxBodyBytes, else 64 KiB without a signature check and 1 MiB with one',
    ),
    503: {
      ...json(errorBody, 'The delivery could not be stored; send it again after Retry-After seconds'),
      headers: { 'Retry-After': { schema: { type: 'integer' as const }, description: 'Seconds to wait' } },
    },
  };
  for (const method of ['post', 'put', 'patch', 'get'] as const) {
    registry.registerPath({
      method,
      path: '/agents/{agentId}/webhook/{integration}',
      operationId: `receiveWebhook${capitalized(method)}`,
      tags: ['Webhooks'],
      summary: 'Receive a webhook delivery',
      description,
      request:
        method === 'get'
          ? { params }
          : { params, body: { content: { '*/*': { schema: z.string().describe('Any payload') } } } },
      responses,
    });
  }
}

/** The chat endpoints the widget's proxy forwards to. */
function chat(registry: OpenAPIRegistry) {
  const request = z
    .object({
      message: z.string().min(1).max(16_000),
      conversationId: z.string().optional().describe('Continue this conversation; omit to start one'),
    })
    .meta({ id: 'ChatRequest' });
  const answer = z
    .object({ conversationId: z.string(), runId: z.string(), output: z.string(), credits: z.number() })
    .meta({ id: 'ChatAnswer' });
  const visitor = z.object({
    'x-visitor-id': z
      .string()
      .max(200)
      .optional()
      .describe("The visitor, as the customer's proxy knows them; a conversation started with one is theirs alone"),
  });
  registry.registerPath({
    method: 'post',
    path: '/agents/{agentId}/chat',
    operationId: 'sendChatMessage',
    tags: ['Chat'],
    summary: 'Send a chat message to the agent',
    description:
      'Answers with `text/event-stream`: `start` {conversationId, runId}, `delta` {text}…, then `done` {output, credits} or ' +
      '`error` {error}; with `Accept: application/json`, one ChatAnswer. Refusals (400, 401, 403, 404, 429) are JSON answers ' +
      'sent before any stream opens. Switched by the WIDGET surface.',
    security,
    request: {
      params: z.object({ agentId }),
      headers: visitor,
      body: { content: { 'application/json': { schema: request } } },
    },
    responses: {
      200: {
        description: 'The answer as an event stream, or one ChatAnswer',
        content: { 'text/event-stream': { schema: z.string() }, 'application/json': { schema: answer } },
      },
      400: errors[400],
      401: errors[401],
      403: json(errorBody, 'The chat widget surface is turned off for this agent'),
      404: json(errorBody, "Unknown agent, or a conversation that is unknown, another agent's or another visitor's"),
      413: errors[413],
      415: errors[415],
      429: errors[429],
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/agents/{agentId}/chat/{conversationId}',
    operationId: 'getChatConversation',
    tags: ['Chat'],
    summary: 'The messages of a conversation, oldest first',
    security,
    request: { params: z.object({ agentId, conversationId: z.string() }), headers: visitor },
    responses: {
      200: json(
        z.object({
          messages: z.array(
            z.object({ role: z.enum(['user', 'assistant']), content: z.string(), createdAt: z.string() }),
          ),
        }),
        'The conversation',
      ),
      401: errors[401],
      403: json(errorBody, 'The chat widget surface is turned off for this agent'),
      404: json(errorBody, "Unknown agent, or a conversation that is unknown, another agent's or another visitor's"),
    },
  });
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
      description:
        'HTTP API, Document API, MCP server, chat endpoints and webhook receiver of the agents hosted by this service. Errors are `{"error": "..."}`; a 429 adds `reason` and `Retry-After`.',
    },
    servers: [{ url: baseUrl }],
  }) as unknown as Record<string, unknown>;
}
