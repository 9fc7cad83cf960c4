import Router from '@koa/router';
import type Koa from 'koa';
import { DomainError } from '../../domain/errors.js';
import { presentedBearer, type Presented } from '../../domain/core/credentials.js';
import type { Principal } from '../../domain/principal.js';
import type { Services } from '../../domain/services.js';
import { workspaceApiDocument } from './workspace-api.openapi.js';
import { assertTenantCredential, publicBaseUrl } from '../tenant.middleware.js';

const PREFIX = '/workspaceapi';

/** What the Workspace API routes need beyond the domain services. */
export interface WorkspaceApiOptions {
  /** The service's public BASE_URL: the first server of the OpenAPI description. */
  baseUrl: string;
}

/** The presented bearer value; another scheme is a missing key, a bare value a missing `Bearer `. */
function bearerKey(ctx: Koa.Context): Presented {
  return presentedBearer(ctx.get('authorization'));
}

/**
 * The read-only Workspace API under /workspaceapi. Checks run in this order: endpoint known and a
 * GET (404) → key (401) → scope (403) → agent exists in the key's workspace (404) → agent not
 * private (403) → query parameters (400). Every failure leaves through the app's one error mapper
 * as `{"error": message}`; unknown paths and methods under the prefix are answered here with 404.
 */
export function workspaceApiRoutes(services: Services, options: WorkspaceApiOptions): Koa.Middleware {
  const api = services.workspaceApi;
  // One document per public base URL (BASE_URL and the tenant hosts in use), built once each.
  const documents = new Map<string, ReturnType<typeof workspaceApiDocument>>();
  const document = (ctx: Koa.Context) => {
    const base = publicBaseUrl(ctx, options.baseUrl);
    let doc = documents.get(base);
    if (!doc) {
      if (documents.size >= 256) documents.clear();
      doc = workspaceApiDocument(base);
      documents.set(base, doc);
    }
    return doc;
  };
  // A tenant host takes only its own workspace's keys.
  const principal = async (ctx: Koa.Context): Promise<Principal> =>
    assertTenantCredential(ctx, await services.keys.authenticateWorkspaceRead(bearerKey(ctx)));
  // A plain copy: Koa's query object has no prototype, and zod should see an ordinary object.
  const query = (ctx: Koa.Context) => ({ ...ctx.query });

  const router = new Router({ prefix: PREFIX });
  router.get('/openapi.json', (ctx) => {
    ctx.body = document(ctx);
  });
  router.get('/overview', async (ctx) => {
    ctx.body = await api.overview(await principal(ctx), query(ctx));
  });
  router.get('/agents', async (ctx) => {
    ctx.body = await api.listAgents(await principal(ctx), query(ctx));
  });
  router.get('/agents/:agentId', async (ctx) => {
    ctx.body = await api.agent(await principal(ctx), ctx.params.agentId!, query(ctx));
  });
  router.get('/agents/:agentId/messages', async (ctx) => {
    ctx.body = await api.messages(await principal(ctx), ctx.params.agentId!, query(ctx));
  });
  router.get('/agents/:agentId/activity', async (ctx) => {
    ctx.body = await api.activity(await principal(ctx), ctx.params.agentId!, query(ctx));
  });
  router.get('/agents/:agentId/schedules', async (ctx) => {
    ctx.body = await api.schedules(await principal(ctx), ctx.params.agentId!, query(ctx));
  });
  router.get('/agents/:agentId/usage', async (ctx) => {
    ctx.body = await api.usage(await principal(ctx), ctx.params.agentId!, query(ctx));
  });

  const routes = router.routes();
  const unknown = (ctx: Koa.Context) => async () => {
    throw new DomainError(
      'NOT_FOUND',
      `No Workspace API endpoint answers ${ctx.method} ${ctx.path}; every endpoint is a GET, listed in ${PREFIX}/openapi.json`,
    );
  };
  return async (ctx, next) => {
    if (ctx.path !== PREFIX && !ctx.path.startsWith(`${PREFIX}/`)) return next();
    // The router falls through (calls the given next) when no route matches path and method.
    await routes(ctx as Parameters<typeof routes>[0], unknown(ctx));
  };
}
