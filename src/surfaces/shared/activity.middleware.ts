import type Koa from 'koa';
import type { ActivityRecord } from '../../domain/activity/activity-log.js';
import type { Agent } from '../../domain/core/agent.entities.js';
import { DomainError, RunFailed } from '../../domain/errors.js';
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
 * The one writer of a surface request's activity entry, mounted first on every agent route and
 * outside that route's error mapper, so it reads the status and body that were answered. Once the
 * URL's agent is known, every request gets exactly one entry: how it ended, plus what the domain
 * reported on the caller's facts (entry, request body, run).
 */
export function activityEntry(services: Services): Koa.Middleware {
  return async (ctx, next) => {
    const started = Date.now();
    await next();
    const state = ctx.state as SurfaceState;
    if (state.agent) services.activityLog.record(state.agent, entryOf(ctx, state, Date.now() - started));
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

function entryOf(ctx: Koa.Context, state: SurfaceState, durationMs: number): ActivityRecord {
  const facts = state.caller?.facts ?? state.facts ?? {};
  const run = facts.run?.facts;
  const failure = state.failure;
  // A streamed answer sent its status line before its run ended: the status stays what the client
  // got (Koa keeps it once the headers are out), and the run's own end says how it went — a model
  // that failed mid-stream, a handler that threw after the first event — never a success.
  const streamed = ctx.respond === false && ctx.res.headersSent;
  const unexpected = failure !== undefined && !(failure instanceof DomainError);
  const failed =
    failure === undefined
      ? null
      : !unexpected
        ? (failure as DomainError).message
        : streamed
          ? 'The run failed'
          : 'Internal server error';
  // A failed run keeps its detail (a provider's own text, credentials removed).
  const error =
    streamed || failure === undefined || failure instanceof RunFailed
      ? (run?.errorDetail ?? run?.error ?? failed)
      : failed;
  let response: unknown;
  if (failed !== null && !streamed) response = { error: failed };
  else if (state.answer !== undefined) response = state.answer;
  else if (!streamed) response = ctx.body;
  else
    response =
      error !== null
        ? { error: unexpected ? 'The run failed' : (run?.error ?? error) }
        : { output: run?.output ?? null };
  const principal = state.caller?.principal;
  const oauth = principal?.kind === 'oauthGrant' ? principal : null;
  return {
    surface: state.surface,
    entry: facts.entry ?? run?.entry ?? null,
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    requestHeaders: ctx.headers,
    requestBody: facts.requestBody,
    response,
    error,
    credits: run?.credits ?? 0,
    durationMs,
    keyId: state.caller?.keyId ?? null,
    // An OAuth call names its client and the member whose approval it used (no key).
    oauthClientId: oauth?.clientId ?? null,
    grantedBy: oauth?.memberId ?? null,
    runId: run?.runId ?? null,
    requestId: (ctx.state.requestId as string | undefined) ?? null,
    logs: run?.logs ?? null,
  };
}
