import Router from '@koa/router';
import type Koa from 'koa';
import { RunFailed } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RunEntry, RunInput } from '../../domain/runtime/run.types.js';
import type { Services } from '../../domain/services.js';
import { agentOpenApi } from '../openapi/agent.openapi.js';
import { abortOnClose, endpointSegments, readJson, runHeaders, wantsEventStream } from './http-io.js';
import { streamRun } from './sse.js';
import { activityOf, agentSurface, callerOf } from './surface.middleware.js';

/**
 * `/agents/{agentId}/api/{path}`: after the surface preamble (agent 404 → key 401 → surface on 403),
 * endpoint (404/405) → body (415/413/400, then 400 against the input schema it declares) → the
 * pipeline (guardrails 400 → admission 429 → run).
 * A handler that fails ends in RunFailed: 500 with its message and the run id in `X-Run-Id`.
 * With `Accept: text/event-stream` the answer is an event stream whatever the handler (see streamRun).
 */
export function httpApiRoutes(services: Services, platformOrigins: string[], baseUrl: string): Koa.Middleware {
  const router = new Router();
  const surface = agentSurface(services, 'HTTP_API', platformOrigins);
  const handle: Koa.Middleware = async (ctx) => {
    const { agent, principal } = callerOf(ctx);
    const activity = activityOf(ctx);
    // The raw path starts `/agents/<agent id as sent, maybe percent-encoded>/api`.
    const segments = endpointSegments(ctx.path, ctx.path.split('/', 4).join('/'));
    const { endpoint, params } = await services.httpApi.resolve(agent, ctx.method, segments);
    activity.entry = endpoint.path;
    const body = await readJson(ctx);
    activity.requestBody = body;
    services.httpApi.checkBody(endpoint, ctx.method, body ?? null);
    const input: RunInput = { surface: 'HTTP_API', method: ctx.method, path: segments.join('/'), params, query: ctx.query as RunInput['query'], headers: runHeaders(ctx), body: body ?? null };
    const entry: RunEntry = { kind: 'http', id: endpoint.id, name: endpoint.path, handler: endpoint.handler, modelOverride: endpoint.modelOverride };
    const opts = { signal: abortOnClose(ctx), activity };
    if (wantsEventStream(ctx)) {
      // Named before the run starts: the stream's X-Run-Id goes out with its status line.
      const runId = newId('run');
      return streamRun(ctx, runId, services.pipeline.stream(principal, agent, entry, input, { ...opts, runId }));
    }
    const r = await services.pipeline.execute(principal, agent, entry, input, opts);
    if (r.error) throw new RunFailed(r.runId, r.error.kind, r.error.message);
    ctx.set('X-Run-Id', r.runId);
    ctx.body = { output: r.output, runId: r.runId, credits: r.credits };
  };
  router.all('/agents/:agentId/api{/*rest}', surface, handle);
  // The agent's own description: behind the same preamble as its endpoints (404 → 401 → 403), since
  // its paths and descriptions are the agent's business. Answered from the store on every call, so
  // it never lags behind an endpoint change.
  router.get('/agents/:agentId/openapi.json', surface, async (ctx) => {
    const { agent } = callerOf(ctx);
    const doc = agentOpenApi(agent, await services.httpApi.endpoints(agent), baseUrl);
    // The log keeps what was answered, not the whole document (up to 64 KiB of schema per endpoint).
    activityOf(ctx).response = { openapi: doc.openapi, paths: Object.keys(doc.paths as object).length };
    ctx.body = doc;
  });
  return router.routes() as Koa.Middleware;
}
