import Router from '@koa/router';
import type Koa from 'koa';
import { CHAT_ENTRY, MAX_VISITOR_ID_LENGTH } from '../../domain/chat/chat.service.js';
import { Invalid, RunFailed } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { Services } from '../../domain/services.js';
import { abortOnClose, readJson, runHeaders } from './http-io.js';
import { openEventStream } from './sse.js';
import { activityOf, agentSurface, callerOf } from './surface.middleware.js';

/** A comment line on an idle stream, so that proxies do not close it. */
export const KEEP_ALIVE_MS = 15_000;

/** The visitor the customer's proxy names in `X-Visitor-Id`, if any. */
function visitorOf(ctx: Koa.Context): string | null {
  const v = ctx.get('x-visitor-id').trim();
  if (!v) return null;
  if (v.length > MAX_VISITOR_ID_LENGTH) throw new Invalid(`X-Visitor-Id: must be at most ${MAX_VISITOR_ID_LENGTH} characters`, 'X-Visitor-Id');
  return v;
}

/** Whether the caller asked for one JSON answer rather than the event stream. */
function wantsJson(ctx: Koa.Context): boolean {
  const accept = ctx.get('accept');
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/event-stream\b/i.test(accept);
}

/**
 * The chat endpoints the customer's proxy forwards to (DESIGN §6 "Chat"), behind the surface
 * preamble of the WIDGET surface (agent 404 → key 401 → surface 403):
 * - `POST /agents/{a}/chat` `{message, conversationId?}`: body (400/413/415) → conversation (404)
 *   → the pipeline's checks and admission (400/429, answered as JSON before any stream opens) →
 *   `text/event-stream`: `start` {conversationId, runId}, `delta` {text}…, `done` {output, credits}
 *   or `error` {error}; with `Accept: application/json`, one `{conversationId, runId, output, credits}`.
 * - `GET /agents/{a}/chat/{conversationId}`: `{messages: [{role, content, createdAt}]}`.
 */
export function chatRoutes(services: Services, platformOrigins: string[], keepAliveMs = KEEP_ALIVE_MS): Koa.Middleware {
  const router = new Router();
  const surface = agentSurface(services, 'WIDGET', platformOrigins);

  router.post('/agents/:agentId/chat', surface, async (ctx) => {
    const { agent, principal } = callerOf(ctx);
    const activity = activityOf(ctx);
    activity.entry = 'chat';
    const body = await readJson(ctx);
    activity.requestBody = body;
    const { message, conversationId } = services.chat.parseRequest(body);
    const thread = await services.chat.thread(agent, conversationId, visitorOf(ctx));
    const runId = newId('run');
    const signal = abortOnClose(ctx);
    const run = await services.pipeline.begin(principal, agent, CHAT_ENTRY, services.chat.input(message, runHeaders(ctx)), {
      signal,
      activity,
      history: thread.history,
      runId,
    });
    try {
      await services.chat.start(agent, thread);
    } catch (err) {
      await run.cancel();
      throw err;
    }
    const finished = async (r: RunResult) => {
      if (!r.error) await services.chat.record(thread, message, r);
    };

    if (wantsJson(ctx)) {
      let result: RunResult | undefined;
      for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
      if (!result) throw new Error('the chat run ended without a result');
      await finished(result);
      if (result.error) throw new RunFailed(result.runId, result.error.kind, result.error.message);
      ctx.set('X-Run-Id', result.runId);
      ctx.body = { conversationId: thread.id, runId: result.runId, output: result.output, credits: result.credits };
      return;
    }

    const stream = openEventStream(ctx, runId);
    const keepAlive = setInterval(() => ctx.res.write(': keep-alive\n\n'), keepAliveMs);
    keepAlive.unref();
    try {
      stream.send('start', { conversationId: thread.id, runId });
      for await (const ev of run.events()) {
        if (ev.type === 'delta') {
          stream.send('delta', { text: ev.text });
          continue;
        }
        await finished(ev.result);
        if (ev.result.error) stream.send('error', { error: ev.result.error.message });
        else stream.send('done', { output: ev.result.output, credits: ev.result.credits });
      }
    } catch (err) {
      stream.send('error', { error: 'The run failed' });
      throw err;
    } finally {
      clearInterval(keepAlive);
      stream.end();
    }
  });

  router.get('/agents/:agentId/chat/:conversationId', surface, async (ctx) => {
    const { agent } = callerOf(ctx);
    activityOf(ctx).entry = 'chat';
    ctx.body = { messages: await services.chat.messages(agent, ctx.params.conversationId!, visitorOf(ctx)) };
  });

  return router.routes() as Koa.Middleware;
}
