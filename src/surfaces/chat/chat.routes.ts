import Router from '@koa/router';
import type Koa from 'koa';
import { completed } from '../../domain/runtime/pipeline.js';
import type { Services } from '../../domain/services.js';
import type { Logger } from '../../infra/logger.js';
import { chatEvents } from './chat.events.js';
import { abortOnClose, readJson, runHeaders } from '../shared/http-io.js';
import { streamRun } from '../shared/sse.js';
import { agentSurface, callerOf } from '../shared/surface.middleware.js';

/** A comment line on an idle stream, so that proxies do not close it. */
export const KEEP_ALIVE_MS = 15_000;

/** Whether the caller asked for one JSON answer rather than the event stream. */
function wantsJson(ctx: Koa.Context): boolean {
  const accept = ctx.get('accept');
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/event-stream\b/i.test(accept);
}

/**
 * The chat endpoints the customer's proxy forwards to (DESIGN §6 "Chat"), behind the surface
 * preamble of the WIDGET surface (agent 404 → key 401 → surface 403):
 * - `POST /agents/{a}/chat` `{message, conversationId?}`: `ChatService.send` — body (400/413/415)
 *   → conversation (404) → the pipeline's checks and admission (400/429, answered as JSON before
 *   any stream opens) → `text/event-stream`: `start` {conversationId, runId}, `delta` {text}…,
 *   `done` {output, credits} or `error` {error}; with `Accept: application/json`, one
 *   `{conversationId, runId, output, credits}`.
 * - `GET /agents/{a}/chat/{conversationId}`: `{messages: [{role, content, createdAt}]}`.
 */
export function chatRoutes(
  services: Services,
  platformOrigins: string[],
  logger: Logger,
  keepAliveMs = KEEP_ALIVE_MS,
): Koa.Middleware {
  const router = new Router();
  const surface = agentSurface(services, 'WIDGET', platformOrigins, logger);

  router.post('/agents/:agentId/chat', surface, async (ctx) => {
    const chat = await services.chat.send(callerOf(ctx), {
      body: () => readJson(ctx),
      visitorId: ctx.get('x-visitor-id'),
      headers: runHeaders(ctx),
      signal: abortOnClose(ctx),
    });
    if (wantsJson(ctx)) {
      const r = await completed(chat.events());
      ctx.set('X-Run-Id', r.runId);
      ctx.body = { conversationId: chat.conversationId, runId: r.runId, output: r.output, credits: r.credits };
      return;
    }
    await streamRun(ctx, chat.runId, chat.events(), chatEvents(chat.conversationId, chat.runId), keepAliveMs);
  });

  router.get('/agents/:agentId/chat/:conversationId', surface, async (ctx) => {
    ctx.body = {
      messages: await services.chat.messages(callerOf(ctx), ctx.params.conversationId!, ctx.get('x-visitor-id')),
    };
  });

  return router.routes() as Koa.Middleware;
}
