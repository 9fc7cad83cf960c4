import Router from '@koa/router';
import { publicBaseUrl } from '../../rest/tenant.middleware.js';
import type Koa from 'koa';
import { completed } from '../../domain/runtime/pipeline.js';
import type { Services } from '../../domain/services.js';
import type { Logger } from '../../infra/logger.js';
import { agentOpenApi } from '../../rest/openapi/agent.openapi.js';
import { logAnswerAs } from '../shared/activity.middleware.js';
import { endpointSegments, lazyAbortOnClose, readJson, runHeaders, wantsEventStream } from '../shared/http-io.js';
import { httpApiEvents } from './http-api.events.js';
import { runStatus } from './run-status.js';
import { streamRun } from '../shared/sse.js';
import { agentSurface, callerOf } from '../shared/surface.middleware.js';

/**
 * `/agents/{agentId}/api/{path}`: after the surface preamble (agent 404 → key 401 → surface on 403),
 * `HttpApiService.call`: endpoint (404/405) → body (415/413/400, then 400 against the input schema
 * it declares) → the pipeline (guardrails 400 → admission 429) → the run.
 * A handler that fails ends in RunFailed: 500 with its message and the run id in `X-Run-Id`.
 * With `Accept: text/event-stream` the answer is an event stream whatever the handler (see streamRun).
 */
export function httpApiRoutes(
  services: Services,
  platformOrigins: string[],
  baseUrl: string,
  logger: Logger,
): Koa.Middleware {
  const router = new Router();
  const surface = agentSurface(services, 'HTTP_API', platformOrigins, logger);
  const handle: Koa.Middleware = async (ctx) => {
    const run = await services.httpApi.call(callerOf(ctx), {
      method: ctx.method,
      // The raw path starts `/agents/<agent id as sent, maybe percent-encoded>/api`.
      segments: endpointSegments(ctx.path, ctx.path.split('/', 4).join('/')),
      query: ctx.query as Record<string, string | string[]>,
      headers: runHeaders(ctx),
      signal: lazyAbortOnClose(ctx),
      body: () => readJson(ctx),
    });
    if (wantsEventStream(ctx)) return streamRun(ctx, run.runId, run.events(), httpApiEvents(run.runId));
    const r = await completed(run.events());
    ctx.set('X-Run-Id', r.runId);
    if (r.approval) return paused(ctx, r.runId, r.approval, r.credits);
    ctx.body = { output: r.output, runId: r.runId, credits: r.credits };
  };
  // A run paused for a person's approval (issue 54): where to poll it, and its state there.
  router.get('/agents/:agentId/runs/:runId', surface, async (ctx) => {
    const { agent } = callerOf(ctx);
    const a = await services.approvals.ofRun(agent, String(ctx.params.runId));
    const poll = runStatus(a);
    if (poll.status === 202) ctx.set('Location', runUrl(ctx, poll.body.runId as string));
    ctx.status = poll.status;
    ctx.body = poll.body;
  });
  router.all('/agents/:agentId/api{/*rest}', surface, handle);
  // The agent's own description: behind the same preamble as its endpoints (404 → 401 → 403), since
  // its paths and descriptions are the agent's business. Answered from the store on every call, so
  // it never lags behind an endpoint change.
  router.get('/agents/:agentId/openapi.json', surface, async (ctx) => {
    const { agent } = callerOf(ctx);
    const doc = agentOpenApi(agent, await services.httpApi.endpoints(agent), publicBaseUrl(ctx, baseUrl));
    // The log keeps what was answered, not the whole document (up to 64 KiB of schema per endpoint).
    logAnswerAs(ctx, { openapi: doc.openapi, paths: Object.keys(doc.paths as object).length });
    ctx.body = doc;
  });
  return router.routes() as Koa.Middleware;

  function runUrl(ctx: Koa.Context, runId: string): string {
    return `${publicBaseUrl(ctx, baseUrl)}/agents/${encodeURIComponent(String(ctx.params.agentId))}/runs/${encodeURIComponent(runId)}`;
  }

  /** 202 Accepted: the run waits for a person; the caller polls its URL. */
  function paused(
    ctx: Koa.Context,
    runId: string,
    approval: { id: string; toolName: string; expiresAt: Date },
    credits: number,
  ): void {
    const url = runUrl(ctx, runId);
    ctx.status = 202;
    ctx.set('Location', url);
    ctx.body = {
      state: 'AWAITING_APPROVAL',
      runId,
      credits,
      approval: { id: approval.id, toolName: approval.toolName, expiresAt: approval.expiresAt.toISOString() },
      poll: url,
    };
  }
}
