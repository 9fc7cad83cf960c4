import Router from '@koa/router';
import type Koa from 'koa';
import { MethodNotAllowed, NotFound } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import { agentCors } from '../cors.js';
import { surfaceActivity, type ActivityState } from './activity.middleware.js';
import { canNameEntity, presentedKey, printableParam, readJson } from './http-io.js';

type Op = (c: SurfaceCaller, documentId: string, body: unknown) => Promise<unknown>;

/**
 * `/agents/{agentId}/documents/{documentId}[/data/query|insert|update|delete]`, key-authenticated,
 * in the same order of checks as the HTTP API: agent (404) → key (401) → surface on (403) → body
 * (415/413/400) → document exposed (404) / permitted (403) → records and filters against the field
 * schema (400) → guardrails (400) → admission (429).
 */
export function documentApiRoutes(services: Services, platformOrigins: string[]): Koa.Middleware {
  const router = new Router();
  const api = services.documentApi;
  const loadAgent = async (ctx: Koa.Context) =>
    (ctx.state.agentLookup ??= canNameEntity(ctx.params.agentId!) ? services.surfaces.findAgent(ctx.params.agentId!) : Promise.resolve(null));

  const route =
    (op: Op, withBody: boolean): Koa.Middleware =>
    async (ctx) => {
      const activity = ctx.state.activity as ActivityState;
      activity.agent = (await loadAgent(ctx)) ?? undefined;
      const caller = await services.surfaces.enter(activity.agent ?? null, printableParam(ctx.params.agentId!), 'DOCUMENT_API', presentedKey(ctx));
      activity.keyId = caller.keyId;
      const documentId = ctx.params.documentId!;
      activity.entry = printableParam(documentId);
      const body = withBody ? ((await readJson(ctx)) ?? {}) : ctx.query;
      if (withBody) activity.requestBody = body;
      if (!canNameEntity(documentId)) throw new NotFound('Document', printableParam(documentId));
      ctx.body = await op(caller, documentId, body);
    };

  const base = '/agents/:agentId/documents/:documentId';
  router.use(base, surfaceActivity(services, 'DOCUMENT_API'), agentCors(loadAgent, platformOrigins));
  router.get(base, route((c, d, q) => api.read(c, d, q), false));
  router.put(base, route((c, d, b) => api.write(c, d, b), true));
  router.post(`${base}/data/query`, route((c, d, b) => api.query(c, d, b), true));
  router.post(`${base}/data/insert`, route((c, d, b) => api.insert(c, d, b), true));
  router.post(`${base}/data/update`, route((c, d, b) => api.update(c, d, b), true));
  router.post(`${base}/data/delete`, route((c, d, b) => api.delete(c, d, b), true));
  // Other methods on these paths: 405 with Allow, after the same agent, key and surface checks.
  const notAllowed = (allowed: string[]): Op => async () => {
    throw new MethodNotAllowed(allowed);
  };
  router.all(base, route(notAllowed(['GET', 'PUT']), false));
  for (const op of ['query', 'insert', 'update', 'delete']) router.all(`${base}/data/${op}`, route(notAllowed(['POST']), false));
  return router.routes() as Koa.Middleware;
}
