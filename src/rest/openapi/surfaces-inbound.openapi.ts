import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { agentId, capitalized, errorBody, errors, json, security } from './surfaces-shared.openapi.js';

// The surfaces a client talks to by protocol or that receive calls: the MCP server, the webhook
// receiver and the widget's chat endpoints.

/**
 * The MCP server's one endpoint. Its messages are JSON-RPC (the Model Context Protocol), described
 * by the protocol itself: this entry gives the URL, the credentials and the plain HTTP answers.
 */
export function mcpServer(registry: OpenAPIRegistry) {
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
export function webhookReceiver(registry: OpenAPIRegistry) {
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
      // Keyless: the URL routes the call (and a signature, when the integration checks one).
      security: [],
      request:
        method === 'get'
          ? { params }
          : { params, body: { content: { '*/*': { schema: z.string().describe('Any payload') } } } },
      responses,
    });
  }
}

/** The chat endpoints the widget's proxy forwards to. */
export function chat(registry: OpenAPIRegistry) {
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
