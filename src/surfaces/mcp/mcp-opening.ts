import type { CallOpening } from '../../domain/calls/call-lifecycle.js';
import { parseTraceparent } from '../../domain/tracing/trace-context.js';
import type { SpanContextRef } from '../../domain/tracing/span.types.js';

/** The longest method name taken as one (MCP's are short); a longer one keeps the HTTP opening. */
const MAX_METHOD = 64;
/** The longest tool or prompt name, request id or session id kept on the span (MCP tool names are at most 128). */
const MAX_NAME = 128;
/** The longest resource URI kept on the span. */
const MAX_URI = 1024;

/**
 * The requests a client sends an MCP server (both protocol eras): only these name the span, so that
 * a caller's made-up methods cannot multiply span names (they keep the HTTP name).
 */
const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/cancel',
]);

/** What the request's headers say of the MCP exchange. */
export interface McpHeaders {
  sessionId?: string;
  protocolVersion?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bounded(v: unknown, max: number): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined;
}

function sameSpan(a: SpanContextRef, b: SpanContextRef): boolean {
  return a.traceId === b.traceId && a.spanId === b.spanId;
}

/**
 * The server span of one MCP request as the OpenTelemetry MCP conventions name it, from the
 * JSON-RPC body: `{mcp.method.name} {target}` (the tool's or prompt's name), the MCP attributes next
 * to the HTTP ones, and as parent the `traceparent`/`tracestate` of `params._meta` (SEP-414) — which
 * wins over the HTTP header's, then only linked: `_meta` names the MCP operation's own caller. A
 * malformed or oversized `_meta` value is ignored as the header's is. Anything but one request with
 * an id (a notification, a batch, a body that is not JSON-RPC) keeps the HTTP opening.
 */
export function mcpOpening(http: CallOpening, body: unknown, headers: McpHeaders = {}): CallOpening {
  if (!isObject(body)) return http;
  const method = bounded(body.method, MAX_METHOD);
  const id = body.id;
  const requestId = typeof id === 'number' && Number.isFinite(id) ? String(id) : bounded(id, MAX_NAME);
  if (!method || requestId === undefined) return http;
  const params = isObject(body.params) ? body.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const tool = method === 'tools/call' ? bounded(params.name, MAX_NAME) : undefined;
  const prompt = method === 'prompts/get' ? bounded(params.name, MAX_NAME) : undefined;
  const target = tool ?? prompt;
  const caller = parseTraceparent(meta.traceparent, meta.tracestate);
  const links =
    caller && http.parent && !sameSpan(caller, http.parent) ? [...(http.links ?? []), http.parent] : http.links;
  return {
    name: !KNOWN_METHODS.has(method) ? http.name : target ? `${method} ${target}` : method,
    parent: caller ?? http.parent,
    ...(links ? { links } : {}),
    attributes: {
      ...http.attributes,
      'mcp.method.name': method,
      'jsonrpc.request.id': requestId,
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': method === 'tools/call' ? 'execute_tool' : undefined,
      'gen_ai.prompt.name': prompt,
      'mcp.resource.uri': method === 'resources/read' ? bounded(params.uri, MAX_URI) : undefined,
      'mcp.session.id': bounded(headers.sessionId, MAX_NAME),
      'mcp.protocol.version': bounded(
        headers.protocolVersion ?? (method === 'initialize' ? params.protocolVersion : undefined),
        MAX_METHOD,
      ),
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    },
  };
}
