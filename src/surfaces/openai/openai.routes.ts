import Router from '@koa/router';
import type Koa from 'koa';
import { presentedAgentKey } from '../../domain/core/credentials.js';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError, NotFound, RunFailed } from '../../domain/errors.js';
import type { Principal } from '../../domain/principal.js';
import { completed } from '../../domain/runtime/pipeline.js';
import type { RunEvent } from '../../domain/runtime/run.types.js';
import type { Services } from '../../domain/services.js';
import type { OpenAiRequest } from '../../domain/surfaces/openai.service.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import type { Logger } from '../../infra/logger.js';
import { encodeRunEvent } from '../shared/run-events.js';
import { agentRouteFrame, type SurfaceState } from '../shared/activity.middleware.js';
import { lazyAbortOnClose, printableParam, readJson, runHeaders } from '../shared/http-io.js';
import { openEventStream, writeFrames, type EventStream } from '../shared/sse.js';
import { agentSurface, callerOf } from '../shared/surface.middleware.js';
import { completionObject } from './chat-completion-object.js';
import { OpenAiApi, type ChatCompletionAnswer, type ResponseAnswer } from './openai-api.js';
import { encodeOpenAiError, openAiErrorOfStatus } from './openai.errors.js';
import { chatCompletionChunks, responseEvents } from './openai.events.js';
import { outputItems, responseObject, statusOf } from './response-object.js';
import { assertTenantCredential } from '../../rest/tenant.middleware.js';

/** A comment line on an idle stream, so that proxies do not close it. */
const KEEP_ALIVE_MS = 15_000;
/**
 * Rewrites an error answer into OpenAI's shape, `{"error": {"message", "type", "code", "param"}}`,
 * keeping its status and headers (see `encodeOpenAiError`).
 */
export function openAiErrorShape(ctx: Koa.Context): void {
  const failure = (ctx.state as SurfaceState).failure;
  const sent = ctx.body as { error?: unknown } | undefined;
  if (!sent || typeof sent.error !== 'string') return;
  if (failure instanceof DomainError) {
    const { error, headers } = encodeOpenAiError(refusalOf(failure));
    ctx.set(headers);
    ctx.body = { error };
  } else ctx.body = { error: openAiErrorOfStatus(ctx.status, sent.error) };
}

function request(ctx: Koa.Context, body: OpenAiRequest['body']): OpenAiRequest {
  return { headers: runHeaders(ctx), signal: lazyAbortOnClose(ctx), body };
}

/**
 * The run's first event, before anything is answered: a run that fails before its first text (a
 * model that cannot be reached) is still an ordinary 500 JSON answer naming the run.
 */
async function firstEvent(events: AsyncGenerator<RunEvent>): Promise<IteratorResult<RunEvent>> {
  const first = await events.next();
  if (!first.done && first.value.type === 'done' && first.value.result.error) {
    const r = first.value.result;
    await events.return(undefined);
    throw new RunFailed(r.runId, r.error!.kind, r.error!.message);
  }
  return first;
}

/** Opens the stream with a keep-alive comment while the run is quiet; `end` stops both. */
function openStream(ctx: Koa.Context, runId: string): { stream: EventStream; end(): void } {
  const stream = openEventStream(ctx, runId);
  const keepAlive = setInterval(() => ctx.res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  return {
    stream,
    end: () => {
      clearInterval(keepAlive);
      stream.end();
    },
  };
}

/** Answers a chat completion: one `chat.completion`, or its chunks as `data:` records ending in `[DONE]`. */
async function answerChatCompletion(ctx: Koa.Context, c: ChatCompletionAnswer): Promise<void> {
  const { run, ids, call } = c;
  if (!call.stream) {
    const r = await completed(run.events());
    ctx.set('X-Run-Id', r.runId);
    ctx.body = completionObject(ids, r);
    return;
  }
  const events = run.events();
  let next = await firstEvent(events);
  const encoder = chatCompletionChunks(ids, call.includeUsage, run.runId);
  const { stream, end } = openStream(ctx, run.runId);
  try {
    writeFrames(stream, encoder.start!());
    for (; !next.done; next = await events.next()) writeFrames(stream, encodeRunEvent(encoder, next.value));
  } catch (err) {
    writeFrames(stream, encoder.error());
    throw err;
  } finally {
    end();
  }
}

/** Answers a response: the response object, or its semantic events (`event:` + `data:` records). */
async function answerResponse(ctx: Koa.Context, c: ResponseAnswer): Promise<void> {
  const { run, state } = c;
  if (!c.stream) {
    const r = await completed(run.events());
    state.output = outputItems(r);
    state.result = r;
    state.status = statusOf(r);
    await c.save(r);
    ctx.set('X-Run-Id', r.runId);
    ctx.body = responseObject(state);
    return;
  }
  const events = run.events();
  let next = await firstEvent(events);
  const encoder = responseEvents(state);
  const { stream, end } = openStream(ctx, run.runId);
  try {
    writeFrames(stream, encoder.start!());
    for (; !next.done; next = await events.next()) {
      const ev = next.value;
      const frames = encodeRunEvent(encoder, ev);
      // Stored before `response.completed` goes out: a client that continues at once finds it.
      if (ev.type === 'done') await c.save(ev.result);
      writeFrames(stream, frames);
    }
  } catch (err) {
    writeFrames(stream, encoder.error());
    throw err;
  } finally {
    end();
  }
}

/**
 * The OpenAI-compatible API (DESIGN §8, docs/decisions.md §26), the OPENAI surface:
 * - `/agents/{a}/v1/…`: one agent, behind the surface preamble (agent 404 → key 401 → surface 403),
 *   with an agent key or a workspace key the agent takes;
 * - `/v1/…`: a workspace key (401) → the agent the body's `model` names, one this key may use
 *   (404) → surface on (403).
 * Both answer `GET models`, `POST chat/completions`, `POST responses`, `GET` and `DELETE
 * responses/{id}`; every error in OpenAI's shape (see `openAiErrorShape`).
 */
export function openAiRoutes(services: Services, platformOrigins: string[], logger: Logger): Koa.Middleware {
  const router = new Router();
  const openai = new OpenAiApi(services.openai);
  const surface = agentSurface(services, 'OPENAI', platformOrigins, logger, openAiErrorShape);

  const chatCompletions = async (ctx: Koa.Context, caller: SurfaceCaller, body: OpenAiRequest['body']) =>
    answerChatCompletion(ctx, await openai.chatCompletion(caller, request(ctx, body)));
  const responses = async (ctx: Koa.Context, caller: SurfaceCaller, body: OpenAiRequest['body']) =>
    answerResponse(ctx, await openai.createResponse(caller, request(ctx, body)));

  router.get('/agents/:agentId/v1/models', surface, (ctx) => {
    ctx.body = openai.agentModels(callerOf(ctx));
  });
  router.post('/agents/:agentId/v1/chat/completions', surface, async (ctx) =>
    chatCompletions(ctx, callerOf(ctx), await readJson(ctx)),
  );
  router.post('/agents/:agentId/v1/responses', surface, async (ctx) =>
    responses(ctx, callerOf(ctx), await readJson(ctx)),
  );
  router.get('/agents/:agentId/v1/responses/:responseId', surface, async (ctx) => {
    ctx.body = await openai.getResponse(callerOf(ctx), ctx.params.responseId!);
  });
  router.delete('/agents/:agentId/v1/responses/:responseId', surface, async (ctx) => {
    ctx.body = await openai.deleteResponse(callerOf(ctx), ctx.params.responseId!);
  });
  router.all('/agents/:agentId/v1{/*rest}', surface, (ctx) => {
    throw noRoute(ctx, `/agents/${ctx.params.agentId}/v1`);
  });

  // The workspace-wide URL: the agent is known only from the body (`model`) or the stored response.
  const frame = agentRouteFrame(services, 'OPENAI', logger, openAiErrorShape);
  type WorkspaceKey = Principal & { kind: 'workspaceKey' };
  const workspace =
    (handle: (ctx: Koa.Context, principal: WorkspaceKey) => Promise<void>): Koa.Middleware =>
    (ctx) =>
      frame(ctx, async () =>
        // A tenant host takes only its own workspace's keys.
        handle(
          ctx,
          assertTenantCredential(
            ctx,
            await services.keys.authenticateWorkspaceKey(presentedAgentKey((h) => ctx.get(h))),
          ),
        ),
      );
  /** The caller for the agent `agentId`, once found in the key's workspace (its activity entry is then written). */
  const enter = (
    ctx: Koa.Context,
    principal: WorkspaceKey,
    agent: Awaited<ReturnType<Services['surfaces']['findAgent']>>,
    agentId: string,
  ): SurfaceCaller => {
    const state = ctx.state as SurfaceState;
    if (agent && agent.workspaceId === principal.workspaceId) state.agent = agent;
    state.caller = services.surfaces.enterAs(agent, printableParam(agentId), 'OPENAI', principal);
    state.caller.facts.span = state.call;
    return state.caller;
  };
  const byModel = (answer: typeof chatCompletions) =>
    workspace(async (ctx, principal) => {
      const body = await readJson(ctx);
      const { agent, id } = await openai.agentNamed(body);
      await answer(ctx, enter(ctx, principal, agent, id), body);
    });
  const byResponse = (answer: (caller: SurfaceCaller, id: string) => Promise<unknown>) =>
    workspace(async (ctx, principal) => {
      const id = ctx.params.responseId!;
      const agent = await openai.agentOfResponse(id);
      // A response of an agent this key may not use is one it cannot see: the same 404 as none.
      if (!agent) throw new NotFound('Response', id);
      let caller: SurfaceCaller;
      try {
        caller = enter(ctx, principal, agent, agent.id);
      } catch (err) {
        if (err instanceof NotFound) throw new NotFound('Response', id);
        throw err;
      }
      ctx.body = await answer(caller, id);
    });

  router.get(
    '/v1/models',
    workspace(async (ctx, principal) => {
      ctx.body = await openai.workspaceModels(principal);
    }),
  );
  router.post('/v1/chat/completions', byModel(chatCompletions));
  router.post('/v1/responses', byModel(responses));
  router.get(
    '/v1/responses/:responseId',
    byResponse((caller, id) => openai.getResponse(caller, id)),
  );
  router.delete(
    '/v1/responses/:responseId',
    byResponse((caller, id) => openai.deleteResponse(caller, id)),
  );
  router.all(
    '/v1{/*rest}',
    workspace(async (ctx) => {
      throw noRoute(ctx, '/v1');
    }),
  );
  return router.routes() as Koa.Middleware;
}

/** A path under a base URL that this API does not serve. */
function noRoute(ctx: Koa.Context, base: string): NotFound {
  return new NotFound(
    'Route',
    `${ctx.method} ${ctx.path}`,
    `: this OpenAI-compatible API serves GET ${base}/models, POST ${base}/chat/completions, POST ${base}/responses, GET and DELETE ${base}/responses/{id}`,
  );
}
