import type Koa from 'koa';
import { DomainError, RunFailed } from '../../domain/errors.js';
import { presentedAgentKey } from '../../domain/keys/credentials.js';
import type { Agent } from '../../domain/agents/agent.entities.js';
import type { Surface } from '../../domain/surfaces/surface.entities.js';
import type { RequestActivity } from '../../domain/runtime/run.types.js';
import type { Services } from '../../domain/services.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import { agentCors } from '../cors.js';
import { statusOf } from '../errors.js';
import { canNameEntity, printableParam } from './http-io.js';

/** The request's activity entry: the route adds the entry and body, the pipeline the run. */
export interface SurfaceActivity extends RequestActivity {
  entry?: string;
  requestBody?: unknown;
  /** What the request answered, when the route says it (else the response body or the streamed run). */
  response?: unknown;
}

/** What the surface middleware leaves in `ctx.state` for the route behind it. */
export interface SurfaceState {
  caller: SurfaceCaller;
  activity: SurfaceActivity;
}

/** The authenticated caller of a surface route (set by {@link agentSurface}). */
export function callerOf(ctx: Koa.Context): SurfaceCaller {
  return (ctx.state as SurfaceState).caller;
}

/** The request's activity entry (set by {@link agentSurface}). */
export function activityOf(ctx: Koa.Context): SurfaceActivity {
  return (ctx.state as SurfaceState).activity;
}

/**
 * The one preamble of every key-authenticated agent surface, mounted in front of each of its routes
 * (`/agents/:agentId/...`): agent lookup → CORS for that agent (a preflight is answered here, before
 * any key check: browsers send none) → agent exists (404) → key valid for it (401) → surface on
 * (403) → `ctx.state.caller`. Whatever happens next, the request gets one activity entry once the
 * caller's agent is known: what the request was and how it ended, plus the run's fields that the
 * pipeline reported.
 */
export function agentSurface(services: Services, surface: Surface, platformOrigins: string[]): Koa.Middleware {
  const lookup = (ctx: Koa.Context): Promise<Agent | null> =>
    (ctx.state.agentLookup ??= canNameEntity(ctx.params.agentId!) ? services.surfaces.findAgent(ctx.params.agentId!) : Promise.resolve(null));
  const cors = agentCors(lookup, platformOrigins);

  return async (ctx, next) => {
    const started = Date.now();
    ctx.state.surface = surface;
    const activity: SurfaceActivity = {};
    ctx.state.activity = activity;
    let agent: Agent | null = null;
    let keyId: string | null = null;
    let failure: unknown;
    try {
      await cors(ctx, async () => {
        agent = await lookup(ctx);
        const caller = await services.surfaces.enter(agent, printableParam(ctx.params.agentId!), surface, presentedAgentKey((h) => ctx.get(h)));
        keyId = caller.keyId;
        ctx.state.caller = caller;
        await next();
      });
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      if (agent) record(services, agent, surface, ctx, activity, keyId, failure, Date.now() - started);
    }
  };
}

function record(services: Services, agent: Agent, surface: Surface, ctx: Koa.Context, activity: SurfaceActivity, keyId: string | null, failure: unknown, durationMs: number): void {
  const run = activity.run;
  if (ctx.respond === false && ctx.res.headersSent) return recordStreamed(services, agent, surface, ctx, activity, keyId, failure, durationMs);
  const failed = failure !== undefined;
  const message = failure instanceof DomainError ? failure.message : 'Internal server error';
  services.activityLog.record(agent, {
    ...requestOf(surface, ctx, activity, keyId, durationMs),
    status: failed ? statusOf(failure) : ctx.status,
    response: failed ? { error: message } : activity.response !== undefined ? activity.response : ctx.body,
    // A failed run's entry keeps the failure's detail (a provider's own text, credentials removed).
    error: failed ? (failure instanceof RunFailed ? (run?.errorDetail ?? message) : message) : run?.errorDetail ?? run?.error ?? null,
  });
}

/**
 * A streamed answer sent its status line before its run ended: the entry keeps that status (what
 * the client got), and the run's real outcome in `error` and `response` — a model that failed
 * mid-stream, a handler that threw after the first event — never a 500 nobody answered, nor a
 * success.
 */
function recordStreamed(services: Services, agent: Agent, surface: Surface, ctx: Koa.Context, activity: SurfaceActivity, keyId: string | null, failure: unknown, durationMs: number): void {
  const run = activity.run;
  const unexpected = failure !== undefined && !(failure instanceof DomainError);
  const error = run?.errorDetail ?? run?.error ?? (failure === undefined ? null : failure instanceof DomainError ? failure.message : 'The run failed');
  services.activityLog.record(agent, {
    ...requestOf(surface, ctx, activity, keyId, durationMs),
    status: ctx.res.statusCode,
    response: activity.response !== undefined ? activity.response : error !== null ? { error: unexpected ? 'The run failed' : run?.error ?? error } : { output: run?.output ?? null },
    error,
  });
}

/** The fields of an activity entry that describe the request and its run, whatever the outcome. */
function requestOf(surface: Surface, ctx: Koa.Context, activity: SurfaceActivity, keyId: string | null, durationMs: number) {
  const run = activity.run;
  return {
    surface,
    entry: activity.entry ?? run?.entry ?? null,
    method: ctx.method,
    path: ctx.path,
    requestHeaders: ctx.headers,
    requestBody: activity.requestBody,
    credits: run?.credits ?? 0,
    durationMs,
    keyId,
    runId: run?.runId ?? null,
    requestId: (ctx.state.requestId as string | undefined) ?? null,
    logs: run?.logs ?? null,
  };
}
