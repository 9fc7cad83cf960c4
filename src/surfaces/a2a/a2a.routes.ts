import Router from '@koa/router';
import { agentHere, publicBaseUrl } from '../../rest/tenant.middleware.js';
import type Koa from 'koa';
import { ListTasksRequest, SendMessageRequest, StreamResponse, Task, Message, type Part } from '@a2a-js/sdk';
import { A2AError, restStatusFor, toRestErrorBody, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError, Invalid, NotFound } from '../../domain/errors.js';
import type { Json } from '../../domain/json.js';
import type { Services } from '../../domain/services.js';
import type { A2aMessage } from '../../domain/surfaces/a2a.service.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import type { Logger } from '../../infra/logger.js';
import { encodeA2aJsonRpcError } from './a2a.errors.js';
import { agentRouteFrame, type SurfaceState } from '../shared/activity.middleware.js';
import { A2A_VERSION, agentCard, agentCardJson } from './agent-card.js';
import { CANCEL_KEY, PipelineExecutor, RUN_KEY } from './executor.js';
import { DatabaseTaskStore, SCOPE_KEY, SharedEventBusManager } from './task-store.js';
import { lazyAbortOnClose, readJson, runHeaders } from '../shared/http-io.js';
import { agentSurface, callerOf } from '../shared/surface.middleware.js';

/** The version a request without `A2A-Version` speaks (the specification's rule). */
const VERSION_WITHOUT_HEADER = '0.3';

/** The text and the first data part of a message, and the skill and context it names. */
function messageOf(request: SendMessageRequest): A2aMessage {
  const m = request.message;
  if (!m) throw new Invalid('params.message is required', 'message');
  const parts: Part[] = m.parts ?? [];
  const text = parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
  const data = parts.find((p) => p.content?.$case === 'data')?.content?.value as Json | undefined;
  const skill = m.metadata?.skillId ?? request.metadata?.skillId;
  return {
    text,
    ...(data !== undefined ? { data } : {}),
    ...(typeof skill === 'string' ? { skillId: skill } : {}),
    contextId: m.contextId ?? '',
  };
}

/** A 0.3 message (`kind` parts) read the same way. */
function legacyMessageOf(params: Record<string, any> | undefined): A2aMessage {
  const m = params?.message;
  if (!m || typeof m !== 'object') throw new Invalid('params.message is required', 'message');
  const parts: any[] = Array.isArray(m.parts) ? m.parts : [];
  const text = parts
    .filter((p) => p?.kind === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
  const data = parts.find((p) => p?.kind === 'data')?.data as Json | undefined;
  const skill = m.metadata?.skillId ?? params?.metadata?.skillId;
  return {
    text,
    ...(data !== undefined ? { data } : {}),
    ...(typeof skill === 'string' ? { skillId: skill } : {}),
    contextId: typeof m.contextId === 'string' ? m.contextId : '',
  };
}

/**
 * The A2A server (DESIGN §8, docs/decisions.md §27), the A2A surface, on `@a2a-js/sdk`'s request
 * handler with tasks in the database:
 * - `GET /agents/{a}/.well-known/agent-card.json`: public for a workspace-visible agent with the
 *   surface on, 404 otherwise;
 * - `POST /agents/{a}/a2a`: JSON-RPC (1.0 with `A2A-Version: 1.0`; without the header, 0.3);
 * - `/agents/{a}/a2a/rest/…`: the HTTP+JSON binding.
 * Both bindings are behind the surface preamble (agent 404 → key 401 → surface 403). A message is
 * admitted (guardrails, limits) before the SDK sees it, so a refusal is an error answer and never a
 * task.
 */
export function a2aRoutes(
  services: Services,
  platformOrigins: string[],
  baseUrl: string,
  logger: Logger,
): Koa.Middleware {
  const router = new Router();
  const surface = agentSurface(services, 'A2A', platformOrigins, logger);
  const tasks = new DatabaseTaskStore(services.a2a);
  const buses = new SharedEventBusManager(tasks);

  // A base URL on port 0 is one whose port the service chose when it started: the card then names
  // the origin the request came to. A tenant host's card names that host.
  const origin = (ctx: Koa.Context) => {
    const base = publicBaseUrl(ctx, baseUrl);
    return /:0$/.test(new URL(base).host) ? `${ctx.protocol}://${ctx.host}` : base;
  };
  const cardOf = async (ctx: Koa.Context, caller: Pick<SurfaceCaller, 'agent'>) =>
    agentCard(caller.agent, await services.a2a.skills(caller.agent), origin(ctx));
  const handlerFor = async (ctx: Koa.Context, caller: SurfaceCaller) =>
    new DefaultRequestHandler(
      await cardOf(ctx, caller),
      tasks,
      new PipelineExecutor(services.a2a, tasks, services.calls.cancels, services.a2a.scopeOf(caller)),
      buses,
    );
  const contextFor = (ctx: Koa.Context, caller: SurfaceCaller, version: string) =>
    new ServerCallContext({
      requestedVersion: version,
      state: new Map<string, unknown>([[SCOPE_KEY, services.a2a.scopeOf(caller)]]),
    });

  /** Admits a message's run and leaves it in the call context for the executor. */
  const admit = async (ctx: Koa.Context, caller: SurfaceCaller, context: ServerCallContext, message: A2aMessage) => {
    const cancel = new AbortController();
    const lazy = lazyAbortOnClose(ctx);
    const pending = await services.a2a.begin(caller, message, {
      headers: runHeaders(ctx),
      signal: () => AbortSignal.any([lazy(), cancel.signal]),
    });
    context.state.set(RUN_KEY, pending);
    context.state.set(CANCEL_KEY, cancel);
    return pending;
  };

  const sse = async (ctx: Koa.Context, events: AsyncIterable<unknown>, onError: (err: unknown) => unknown) => {
    ctx.status = 200;
    ctx.respond = false;
    ctx.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    try {
      for await (const ev of events) ctx.res.write(`data: ${JSON.stringify(ev)}\n\n`);
    } catch (err) {
      ctx.res.write(`data: ${JSON.stringify(onError(err))}\n\n`);
      if (!(err instanceof A2AError)) throw err;
    } finally {
      ctx.res.end();
    }
  };

  // The agent card: public by the agent's own settings, so no key; nothing is logged for it.
  const frame = agentRouteFrame(services, 'A2A', logger);
  router.get('/agents/:agentId/.well-known/agent-card.json', (ctx) =>
    frame(ctx, async () => {
      const agent = agentHere(ctx, await services.surfaces.findAgent(ctx.params.agentId!));
      if (!agent || !services.a2a.cardIsPublic(agent)) throw new NotFound('Agent card');
      ctx.set('Cache-Control', 'public, max-age=60');
      ctx.body = agentCardJson(await cardOf(ctx, { agent }));
    }),
  );

  router.post('/agents/:agentId/a2a', surface, async (ctx) => {
    const caller = callerOf(ctx);
    const body = await readJson(ctx);
    const rpc = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, any>;
    caller.facts.entry = typeof rpc.method === 'string' ? rpc.method.slice(0, 100) : 'a2a';
    caller.facts.requestBody = body;
    const version = ctx.get('a2a-version').trim() || VERSION_WITHOUT_HEADER;
    const legacy = version === VERSION_WITHOUT_HEADER;
    const context = contextFor(ctx, caller, version);
    const requestHandler = await handlerFor(ctx, caller);
    let admitted: Awaited<ReturnType<typeof admit>> | undefined;
    try {
      if (!legacy) validateVersion(version, await requestHandler.getAgentCard(), 'JSONRPC');
      if (!legacy && (rpc.method === 'SendMessage' || rpc.method === 'SendStreamingMessage'))
        admitted = await admit(ctx, caller, context, messageOf(SendMessageRequest.fromJSON(rpc.params ?? {})));
      if (legacy && (rpc.method === 'message/send' || rpc.method === 'message/stream'))
        admitted = await admit(ctx, caller, context, legacyMessageOf(rpc.params));
      const transport = legacy
        ? new LegacyJsonRpcTransportHandler(requestHandler)
        : new JsonRpcTransportHandler(requestHandler);
      const out = await transport.handle(rpc, context);
      if (out && typeof (out as AsyncGenerator)[Symbol.asyncIterator] === 'function') {
        await sse(ctx, out as AsyncGenerator<unknown>, (err) => ({
          jsonrpc: '2.0',
          id: rpc.id ?? null,
          error: JsonRpcTransportHandler.mapToJSONRPCError(err),
        }));
      } else ctx.body = out;
    } catch (err) {
      const id = rpc.id ?? null;
      if (err instanceof VersionNotSupportedError || err instanceof A2AError) {
        ctx.body = { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) };
        return;
      }
      if (!(err instanceof DomainError)) throw err;
      (ctx.state as SurfaceState).failure = err;
      const refusal = refusalOf(err);
      const { error, headers } = encodeA2aJsonRpcError(refusal);
      if (refusal.reason) ctx.state.refusal = refusal.reason;
      ctx.set(headers);
      ctx.body = { jsonrpc: '2.0', id, error };
    } finally {
      // A run admitted for a call the SDK then refused gives its slot and reservation back.
      await admitted?.run.cancel();
    }
  });

  router.all('/agents/:agentId/a2a/rest{/*rest}', surface, async (ctx) => {
    const caller = callerOf(ctx);
    const path = '/' + ((ctx.params as { rest?: string }).rest ?? '');
    const context = contextFor(ctx, caller, ctx.get('a2a-version').trim() || A2A_VERSION);
    const requestHandler = await handlerFor(ctx, caller);
    const task = /^\/tasks\/([^/:]+)(?::(cancel|subscribe))?$/.exec(path);
    let admitted: Awaited<ReturnType<typeof admit>> | undefined;
    try {
      if (ctx.method === 'POST' && (path === '/message:send' || path === '/message:stream')) {
        caller.facts.entry = path === '/message:send' ? 'SendMessage' : 'SendStreamingMessage';
        const body = await readJson(ctx);
        caller.facts.requestBody = body;
        const request = SendMessageRequest.fromJSON(body ?? {});
        admitted = await admit(ctx, caller, context, messageOf(request));
        if (path === '/message:send') {
          const result = await requestHandler.sendMessage(request, context);
          ctx.body =
            'messageId' in result
              ? { message: Message.toJSON(result as Message) }
              : { task: Task.toJSON(result as Task) };
        } else await sse(ctx, mapStream(requestHandler.sendMessageStream(request, context)), (err) => restError(err));
      } else if (ctx.method === 'GET' && path === '/tasks') {
        caller.facts.entry = 'ListTasks';
        const r = await requestHandler.listTasks(ListTasksRequest.fromJSON(ctx.query), context);
        ctx.body = {
          tasks: r.tasks.map((t) => Task.toJSON(t)),
          nextPageToken: r.nextPageToken,
          pageSize: r.pageSize,
          totalSize: r.totalSize,
        };
      } else if (task && ctx.method === 'GET' && !task[2]) {
        caller.facts.entry = 'GetTask';
        ctx.body = Task.toJSON(
          await requestHandler.getTask(
            { tenant: '', id: task[1]!, historyLength: numberOr(ctx.query.historyLength) },
            context,
          ),
        );
      } else if (task && ctx.method === 'POST' && task[2] === 'cancel') {
        caller.facts.entry = 'CancelTask';
        ctx.body = Task.toJSON(await requestHandler.cancelTask({ tenant: '', id: task[1]!, metadata: {} }, context));
      } else if (task && task[2] === 'subscribe' && (ctx.method === 'GET' || ctx.method === 'POST')) {
        caller.facts.entry = 'SubscribeToTask';
        // The first event decides: a task that is not there is an error answer, not a stream.
        const events = mapStream(requestHandler.resubscribe({ tenant: '', id: task[1]! }, context));
        const first = await events.next();
        await sse(ctx, prepend(first, events), (err) => restError(err));
      } else throw new NotFound('A2A operation', `${ctx.method} ${path}`);
    } catch (err) {
      if (!(err instanceof A2AError)) throw err;
      ctx.status = restStatusFor(err);
      ctx.body = toRestErrorBody(err, ctx.status);
    } finally {
      await admitted?.run.cancel();
    }
  });

  return router.routes() as Koa.Middleware;
}

function numberOr(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

function restError(err: unknown): unknown {
  return err instanceof A2AError
    ? toRestErrorBody(err, restStatusFor(err))
    : { error: { code: 500, status: 'INTERNAL', message: 'The run failed' } };
}

async function* mapStream(events: AsyncGenerator<StreamResponse>): AsyncGenerator<unknown> {
  for await (const ev of events) yield StreamResponse.toJSON(ev);
}

async function* prepend<T>(first: IteratorResult<T>, rest: AsyncGenerator<T>): AsyncGenerator<T> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}
