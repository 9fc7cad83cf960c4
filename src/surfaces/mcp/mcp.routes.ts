import type { CallCancel } from '../../domain/calls/call-cancel.ports.js';
import { Readable } from 'node:stream';
import { pipeline as pipe } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import Router from '@koa/router';
import { classifyInboundRequest, createMcpHandler, type McpRequestContext } from '@modelcontextprotocol/server';
import type Koa from 'koa';
import { Forbidden, Invalid, MethodNotAllowed, NotFound } from '../../domain/errors.js';
import type { Json } from '../../domain/json.js';
import type { Services } from '../../domain/services.js';
import { callerIdentity } from '../../domain/surfaces/caller-identity.js';
import type { PreparedCall } from '../../domain/surfaces/mcp.service.js';
import type { Logger } from '../../infra/logger.js';
import { originAllowed } from '../../rest/cors.js';
import { MCP_SCOPE } from '../../domain/mcp-oauth/mcp-oauth.service.js';
import { issuerOf, resourceMetadataUrl } from '../oauth/oauth.routes.js';
import { logAnswerAs, type SurfaceState } from '../shared/activity.middleware.js';
import { abortOnClose, MAX_BODY_BYTES, readRaw, runHeaders } from '../shared/http-io.js';
import { mcpServerFor, type McpExchange } from './mcp.server.js';
import { mcpOpening } from './mcp-opening.js';
import { agentSurface, callerOf } from '../shared/surface.middleware.js';
import { platformOriginsHere } from '../../rest/tenant.middleware.js';

/** Request headers the protocol layer reads (the rest stay with Koa). */
const PROTOCOL_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
  'last-event-id',
];

function exchangeOf(ctx: McpRequestContext): McpExchange {
  const exchange = ctx.authInfo?.extra?.exchange as McpExchange | undefined;
  if (!exchange) throw new Error('MCP request without its exchange');
  return exchange;
}

/**
 * DNS-rebinding protection (MCP Streamable HTTP): a browser page may call the MCP server only from
 * an origin the agent's CORS settings allow. Requests without an Origin header (MCP clients, servers)
 * are not affected.
 */
function refuseForeignOrigin(ctx: Koa.Context, platformOrigins: string[]): void {
  const origin = ctx.get('origin');
  if (origin && !originAllowed(callerOf(ctx).agent, origin, platformOriginsHere(ctx, platformOrigins))) {
    throw new Forbidden(`Origin ${origin} may not call this agent's MCP server; add it to the agent's CORS origins`);
  }
}

/**
 * A 401 of the MCP server tells an OAuth client where to start (MCP authorization, RFC 9728 §5.1):
 * the protected-resource metadata of this agent's MCP URL, the scope to ask for, and, when a token
 * was sent, that it is not valid.
 */
function oauthChallenge(baseUrl: string | undefined): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 401 || !baseUrl) return;
    const metadata = resourceMetadataUrl(issuerOf(ctx, baseUrl), ctx.params.agentId!);
    const invalid = /^Bearer\s+\S/i.test(ctx.get('authorization')) ? ', error="invalid_token"' : '';
    ctx.set('WWW-Authenticate', `Bearer resource_metadata="${metadata}", scope="${MCP_SCOPE}"${invalid}`);
  };
}

/** The answer to a JSON array body: a JSON-RPC Invalid Request without an id (JSON-RPC 2.0 §5). */
const BATCH_REFUSED = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32600,
    message:
      'JSON-RPC batches are not supported: send one request per HTTP POST (MCP has no batching since protocol 2025-06-18)',
  },
} as const;

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A `tools/call` is checked and admitted before the protocol layer sees it, because a limit is
 * answered as HTTP 429 with Retry-After (SPEC "Errors"), which a stream already opened as 200 can no
 * longer say. Only a request the protocol layer will serve is prepared; an unknown tool or bad
 * arguments are left to it (a JSON-RPC error), and a prepared run it never runs is given back.
 */
async function prepareBeforeDispatch(
  ctx: Koa.Context,
  services: Services,
  exchange: McpExchange,
  body: Json | undefined,
): Promise<PreparedCall | undefined> {
  if (!isObject(body) || body.method !== 'tools/call' || !isObject(body.params) || typeof body.params.name !== 'string')
    return undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: ctx.get('mcp-protocol-version') || undefined,
    mcpMethodHeader: ctx.get('mcp-method') || undefined,
    mcpNameHeader: ctx.get('mcp-name') || undefined,
    body,
  });
  if (route.kind === 'reject') return undefined;
  const args = isObject(body.params.arguments) ? body.params.arguments : {};
  try {
    return await services.mcp.prepare(exchange.caller, body.params.name, args, exchange);
  } catch (err) {
    if (err instanceof NotFound || err instanceof Invalid) return undefined;
    throw err;
  }
}

function webRequest(ctx: Koa.Context, raw: Buffer, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const name of PROTOCOL_HEADERS) {
    const value = ctx.get(name);
    if (value) headers.set(name, value);
  }
  return new Request(`http://mcp.invalid${ctx.path}`, { method: 'POST', headers, body: new Uint8Array(raw), signal });
}

/**
 * Hands the protocol layer's answer to Koa: JSON as the body, an event stream piped as it comes.
 * Returns a JSON answer as a value for the log (its text when it is not JSON).
 */
async function respond(ctx: Koa.Context, response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (response.body && type.startsWith('text/event-stream')) {
    ctx.status = response.status;
    ctx.respond = false;
    const headers: Record<string, string> = {
      ...(ctx.response.headers as Record<string, string>),
      'X-Accel-Buffering': 'no',
    };
    response.headers.forEach((v, k) => void (headers[k] = v));
    ctx.res.writeHead(response.status, headers);
    try {
      await pipe(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), ctx.res);
    } catch {
      // The client went away mid-stream: the run was aborted with it.
    }
    return;
  }
  response.headers.forEach((v, k) => {
    if (k !== 'content-length') ctx.set(k, v);
  });
  ctx.status = response.status;
  const text = await response.text();
  ctx.body = text;
  if (text && type) ctx.type = type;
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * `/agents/{agentId}/mcp`: the agent as an MCP server over Streamable HTTP, stateless, both protocol
 * eras on one URL (2025-11-25 with `initialize`, 2026-07-28 with `server/discover` and the per-request
 * `_meta` envelope). After the surface preamble (agent 404 → key 401 → surface 403), all plain HTTP:
 * a foreign browser origin 403 → POST only (405) → body (413/400) → a `tools/call`'s admission
 * (429) → the JSON-RPC exchange, answered by a server instance built for this request alone.
 */
export function mcpRoutes(
  services: Services,
  platformOrigins: string[],
  logger: Logger,
  baseUrl?: string,
): Koa.Middleware {
  const handler = createMcpHandler((c) => mcpServerFor(services, exchangeOf(c)), {
    legacy: 'stateless',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (err) => logger.debug({ err }, 'MCP request refused'),
  });

  const running = services.calls.cancels;

  const handle: Koa.Middleware = async (ctx) => {
    refuseForeignOrigin(ctx, platformOrigins);
    const caller = callerOf(ctx);
    if (ctx.method !== 'POST') {
      // A client's probe for a server-sent stream (GET) or its session end (DELETE): this stateless
      // server has neither, and the client goes on without them — protocol traffic, not a call.
      if (ctx.method === 'GET' || ctx.method === 'DELETE') caller.facts.protocol = true;
      throw new MethodNotAllowed(['POST']);
    }
    const raw = await readRaw(ctx);
    const body = services.mcp.message(caller, raw.toString('utf8'));
    // The call's span is begun by its first run or guard: named now from the JSON-RPC request.
    (ctx.state as SurfaceState).call?.refine((http) =>
      mcpOpening(http, body, {
        sessionId: ctx.get('mcp-session-id') || undefined,
        protocolVersion: ctx.get('mcp-protocol-version') || undefined,
      }),
    );
    if (Array.isArray(body)) {
      // JSON-RPC batches left MCP in 2025-06-18 and neither era served here has them: refused before
      // anything runs, so one POST is at most one call and one activity entry.
      ctx.status = 400;
      ctx.body = BATCH_REFUSED;
      return;
    }
    const cancelled = new AbortController();
    const disconnected = abortOnClose(ctx);
    const signal = AbortSignal.any([disconnected, cancelled.signal]);
    const call = (requestId: string | number): CallCancel => ({
      surface: 'MCP',
      agentId: caller.agent.id,
      caller: callerIdentity(caller),
      requestId,
    });
    // A cancel for a call on another instance is answered once announced.
    let announced: Promise<void> | undefined;
    const cancel = (id: string | number) => {
      announced = running.cancel(call(id)).then(
        () => undefined,
        (err: unknown) => logger.warn({ err }, 'MCP cancel not announced to the other instances'),
      );
    };
    const exchange: McpExchange = { caller, headers: runHeaders(ctx), signal, cancel };
    const callId = isObject(body) && body.method === 'tools/call' ? body.id : undefined;
    const forget =
      typeof callId === 'string' || typeof callId === 'number' ? running.register(call(callId), cancelled) : undefined;
    try {
      exchange.prepared = await prepareBeforeDispatch(ctx, services, exchange, body);
      const response = await handler.fetch(webRequest(ctx, raw, disconnected), {
        ...(body === undefined ? {} : { parsedBody: body }),
        authInfo: { token: '', clientId: callerIdentity(caller), scopes: [], extra: { exchange } },
      });
      const answer = await respond(ctx, response);
      await announced;
      // The activity entry is written when this returns: it must hold the run's end, even when the
      // client went away before it.
      await exchange.running;
      logAnswerAs(ctx, exchange.result ?? answer);
    } finally {
      forget?.();
      await exchange.prepared?.run?.cancel();
    }
    if (exchange.failure)
      logger.error({ err: exchange.failure, requestId: ctx.state.requestId, path: ctx.path }, 'MCP tool call failed');
  };

  const router = new Router();
  router.all(
    '/agents/:agentId/mcp',
    oauthChallenge(baseUrl),
    agentSurface(services, 'MCP', platformOrigins, logger),
    handle,
  );
  return router.routes() as Koa.Middleware;
}
