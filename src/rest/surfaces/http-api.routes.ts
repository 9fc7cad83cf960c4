import Router from '@koa/router';
import type Koa from 'koa';
import type { RunEntry, RunEvent, RunInput, RunResult } from '../../domain/runtime/run.types.js';
import type { Services } from '../../domain/services.js';
import { agentCors } from '../cors.js';
import type { ActivityState } from './activity.middleware.js';
import { surfaceActivity } from './activity.middleware.js';
import { abortOnClose, canNameEntity, presentedKey, printableParam, readJson, runHeaders, segmentsAfter, wantsEventStream } from './http-io.js';

/**
 * The body of a finished run: 200 with the output, or 500 with the handler's error. The caller gets
 * the error's message; the activity entry its detail when there is one (a provider's own text).
 */
function respond(ctx: Koa.Context, activity: ActivityState, r: RunResult): void {
  Object.assign(activity, { runId: r.runId, credits: r.credits, logs: r.logs });
  ctx.set('X-Run-Id', r.runId);
  if (r.error) {
    activity.error = r.error.detail ?? r.error.message;
    ctx.status = 500;
    ctx.body = { error: r.error.message };
  } else {
    ctx.body = { output: r.output, runId: r.runId, credits: r.credits };
  }
}

/** Streams a prompt run as server-sent events: `delta` {text}… then `done` or `error`. */
async function streamRun(ctx: Koa.Context, activity: ActivityState, events: AsyncGenerator<RunEvent>): Promise<void> {
  // The first step runs admission and guardrails: a refusal is still a normal JSON error.
  let next = await events.next();
  ctx.respond = false;
  ctx.res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  const send = (event: string, data: unknown) => ctx.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  try {
    for (; !next.done; next = await events.next()) {
      const ev = next.value;
      if (ev.type === 'delta') send('delta', { text: ev.text });
      else {
        const r = ev.result;
        Object.assign(activity, { runId: r.runId, credits: r.credits, logs: r.logs, response: r.error ? { error: r.error.message } : { output: r.output } });
        if (r.error) {
          activity.error = r.error.detail ?? r.error.message;
          send('error', { error: r.error.message, runId: r.runId });
        } else send('done', { output: r.output, runId: r.runId, credits: r.credits });
      }
    }
  } catch (err) {
    activity.error = 'The run failed';
    send('error', { error: 'The run failed' });
    throw err;
  } finally {
    ctx.res.end();
  }
}

/**
 * `/agents/{agentId}/api/{path}`: checks in the documented order — agent (404) → key (401) → surface
 * on (403) → endpoint (404/405) → body (415/413/400) → guardrails (400) → admission (429) → run.
 */
export function httpApiRoutes(services: Services, platformOrigins: string[]): Koa.Middleware {
  const router = new Router();
  const loadAgent = async (ctx: Koa.Context) =>
    (ctx.state.agentLookup ??= canNameEntity(ctx.params.agentId!) ? services.surfaces.findAgent(ctx.params.agentId!) : Promise.resolve(null));
  const handle: Koa.Middleware = async (ctx) => {
    const activity = ctx.state.activity as ActivityState;
    const agentId = ctx.params.agentId!;
    activity.agent = (await loadAgent(ctx)) ?? undefined;
    const caller = await services.surfaces.enter(activity.agent ?? null, printableParam(agentId), 'HTTP_API', presentedKey(ctx));
    activity.keyId = caller.keyId;
    // The raw path starts `/agents/<agent id as sent, maybe percent-encoded>/api`.
    const segments = segmentsAfter(ctx.path, ctx.path.split('/', 4).join('/'));
    const { endpoint, params } = await services.httpApi.resolve(caller.agent, ctx.method, segments);
    activity.entry = endpoint.path;
    const body = await readJson(ctx);
    activity.requestBody = body;
    const input: RunInput = { surface: 'HTTP_API', method: ctx.method, path: segments.join('/'), params, query: ctx.query as RunInput['query'], headers: runHeaders(ctx), body: body ?? null };
    const entry: RunEntry = { kind: 'http', id: endpoint.id, name: endpoint.path, handler: endpoint.handler, modelOverride: endpoint.modelOverride };
    const signal = abortOnClose(ctx);
    if (wantsEventStream(ctx) && endpoint.handler.kind === 'prompt') {
      return streamRun(ctx, activity, services.pipeline.stream(caller.principal, caller.agent, entry, input, { signal }));
    }
    respond(ctx, activity, await services.pipeline.execute(caller.principal, caller.agent, entry, input, { signal }));
  };
  const prefix = '/agents/:agentId/api';
  router.use(prefix, surfaceActivity(services, 'HTTP_API'), agentCors(loadAgent, platformOrigins));
  router.all(`${prefix}{/*rest}`, handle);
  return router.routes() as Koa.Middleware;
}
