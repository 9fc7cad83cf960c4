import type Koa from 'koa';
import type { Agent } from '../../domain/core/agent.entities.js';
import type { CallEnding } from '../../domain/calls/call-entry.js';
import type { CallOpening } from '../../domain/calls/call-lifecycle.js';
import { parseTraceparent } from '../../domain/tracing/trace-context.js';
import type { CallSpan } from '../../domain/calls/call-span.js';
import type { Services } from '../../domain/services.js';
import type { Surface } from '../../domain/core/surface.entities.js';
import type { CallFacts, SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import type { Logger } from '../../infra/logger.js';
import { errorMapper } from '../../rest/errors.js';

/** What an agent route leaves in `ctx.state` for its activity entry. */
export interface SurfaceState {
  surface: Surface;
  /** The agent the URL names, once found (also when its key is then refused). */
  agent?: Agent;
  /** The caller, once its key and the surface passed; its `facts` are what the domain reported. */
  caller?: SurfaceCaller;
  /** What the domain reported on a keyless route (webhooks), which has no caller. */
  facts?: CallFacts;
  /** The call's server span, for the caller's facts (`CallFacts.span`), a receipt's traceparent and an opening refined from the body. */
  call?: CallSpan;
  /** The error the error mapper answered (set by `errorMapper`). */
  failure?: unknown;
  /** What the log keeps as the answer when it is not the response body (see `logAnswerAs`). */
  answer?: unknown;
}

/**
 * Says what the activity entry keeps as the request's answer, when that is not the response body:
 * a summary of a large document, the tool result inside a JSON-RPC answer.
 */
export function logAnswerAs(ctx: Koa.Context, answer: unknown): void {
  (ctx.state as SurfaceState).answer = answer;
}

/**
 * A surface request's call lifecycle (src/domain/calls), mounted first on every agent route and
 * outside that route's error mapper, so the entry the lifecycle writes reads the status and body
 * that were answered. Once the URL's agent is known, every request gets exactly one entry: how it
 * ended, plus what the domain reported on the caller's facts (entry, request body, run).
 */
export function activityEntry(services: Services): Koa.Middleware {
  return (ctx, next) =>
    services.calls.run({
      handle: (call) => {
        (ctx.state as SurfaceState).call = call;
        return next();
      },
      ending: () => endingOf(ctx, ctx.state as SurfaceState),
      opening: openingOf(ctx),
    });
}

/**
 * The call's server span as the HTTP semantic conventions name it (`{method} {route}`, the route
 * template), the child of the caller's span when it sent a W3C `traceparent`.
 */
function openingOf(ctx: Koa.Context): CallOpening {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  const template = typeof route === 'string' ? route : undefined;
  return {
    name: template ? `${ctx.method} ${template}` : ctx.method,
    parent: parseTraceparent(ctx.get('traceparent') || undefined, ctx.get('tracestate') || undefined),
    attributes: {
      'http.request.method': ctx.method,
      'http.route': template,
      'url.path': ctx.path,
      'url.scheme': ctx.protocol,
      'server.address': ctx.hostname,
      'aes.surface': (ctx.state as SurfaceState).surface,
      'aes.request.id': (ctx.state.requestId as string | undefined) ?? undefined,
    },
  };
}

/**
 * How a surface words its error answers when it speaks another protocol's dialect (the
 * OpenAI-compatible API): called after the error mapper answered, to rewrite `ctx.body`.
 */
export type ErrorShape = (ctx: Koa.Context) => void;

/**
 * The frame of every agent route: its activity entry (outermost), then the one error mapper (and
 * the surface's error shape, if it has one), then the route's own middleware.
 */
export function agentRouteFrame(
  services: Services,
  surface: Surface,
  logger: Logger,
  shape?: ErrorShape,
): Koa.Middleware {
  const activity = activityEntry(services);
  const errors = errorMapper(logger);
  const mapped: Koa.Middleware = shape
    ? async (ctx, next) => {
        await errors(ctx, next);
        if ((ctx.state as SurfaceState).failure !== undefined && !ctx.res.headersSent) shape(ctx);
      }
    : errors;
  return (ctx, next) => {
    (ctx.state as SurfaceState).surface = surface;
    return activity(ctx, () => mapped(ctx, next));
  };
}

/** How the call ended on the wire, for the lifecycle's entry (none before the URL's agent is known). */
function endingOf(ctx: Koa.Context, state: SurfaceState): CallEnding | null {
  if (!state.agent) return null;
  // A streamed answer sent its status line before its run ended (Koa keeps the status once the headers are out).
  const streamed = ctx.respond === false && ctx.res.headersSent;
  return {
    surface: state.surface,
    agent: state.agent,
    caller: state.caller,
    facts: state.facts,
    failure: state.failure,
    answer: state.answer,
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    requestHeaders: ctx.headers,
    body: streamed ? undefined : ctx.body,
    streamed,
    requestId: (ctx.state.requestId as string | undefined) ?? null,
  };
}
