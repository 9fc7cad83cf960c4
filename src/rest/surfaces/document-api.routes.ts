import Router from '@koa/router';
import type Koa from 'koa';
import { MethodNotAllowed, NotFound } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import { canNameEntity, printableParam, readJson } from './http-io.js';
import { activityOf, agentSurface, callerOf } from './surface.middleware.js';

type Op = (c: SurfaceCaller, documentId: string, body: unknown) => Promise<unknown>;

/**
 * `/agents/{agentId}/documents/{documentId}[/data/query|insert|update|delete]`: after the surface
 * preamble (agent 404 → key 401 → surface on 403), body (415/413/400) → document exposed (404) /
 * permitted (403) → records and filters against the field schema (400) → guardrails (400) → admission (429).
 */
export function documentApiRoutes(services: Services, platformOrigins: string[]): Koa.Middleware {
  const router = new Router();
  const api = services.documentApi;
  const surface = agentSurface(services, 'DOCUMENT_API', platformOrigins);

  const route =
    (op: Op, withBody: boolean): Koa.Middleware =>
    async (ctx) => {
      const activity = activityOf(ctx);
      const documentId = ctx.params.documentId!;
      activity.entry = printableParam(documentId);
      const body = withBody ? ((await readJson(ctx)) ?? {}) : ctx.query;
      if (withBody) activity.requestBody = body;
      if (!canNameEntity(documentId)) throw new NotFound('Document', printableParam(documentId));
      ctx.body = await op(callerOf(ctx), documentId, body);
    };

  const base = '/agents/:agentId/documents/:documentId';
  router.get(base, surface, route((c, d, q) => api.read(c, d, q), false));
  router.put(base, surface, route((c, d, b) => api.write(c, d, b), true));
  router.post(`${base}/data/query`, surface, route((c, d, b) => api.query(c, d, b), true));
  router.post(`${base}/data/insert`, surface, route((c, d, b) => api.insert(c, d, b), true));
  router.post(`${base}/data/update`, surface, route((c, d, b) => api.update(c, d, b), true));
  router.post(`${base}/data/delete`, surface, route((c, d, b) => api.delete(c, d, b), true));
  // Other methods on these paths: 405 with Allow, after the same agent, key and surface checks.
  const notAllowed = (allowed: string[]): Op => async () => {
    throw new MethodNotAllowed(allowed);
  };
  router.all(base, surface, route(notAllowed(['GET', 'PUT']), false));
  for (const op of ['query', 'insert', 'update', 'delete']) router.all(`${base}/data/${op}`, surface, route(notAllowed(['POST']), false));
  return router.routes() as Koa.Middleware;
}
