import Router from '@koa/router';
import type Koa from 'koa';
import type { Services } from '../../domain/services.js';
import type { ReadInput } from '../../domain/surfaces/document-api.service.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import type { Logger } from '../../infra/logger.js';
import { readJson } from '../shared/http-io.js';
import { agentSurface, callerOf } from '../shared/surface.middleware.js';

type Op = (c: SurfaceCaller, documentId: string, input: ReadInput) => Promise<unknown>;

/**
 * `/agents/{agentId}/documents/{documentId}[/data/query|insert|update|delete]`: after the surface
 * preamble (agent 404 → key 401 → surface on 403), `DocumentApiService`: body (415/413/400) →
 * document exposed (404) / permitted (403) → records and filters against the field schema (400) →
 * guardrails (400) → admission (429).
 */
export function documentApiRoutes(services: Services, platformOrigins: string[], logger: Logger): Koa.Middleware {
  const router = new Router();
  const api = services.documentApi;
  const surface = agentSurface(services, 'DOCUMENT_API', platformOrigins, logger);

  const route =
    (op: Op, withBody: boolean): Koa.Middleware =>
    async (ctx) => {
      ctx.body = await op(
        callerOf(ctx),
        ctx.params.documentId!,
        withBody ? async () => (await readJson(ctx)) ?? {} : async () => ctx.query,
      );
    };

  const base = '/agents/:agentId/documents/:documentId';
  router.get(
    base,
    surface,
    route((c, d, q) => api.read(c, d, q), false),
  );
  router.put(
    base,
    surface,
    route((c, d, b) => api.write(c, d, b), true),
  );
  router.post(
    `${base}/data/query`,
    surface,
    route((c, d, b) => api.query(c, d, b), true),
  );
  router.post(
    `${base}/data/insert`,
    surface,
    route((c, d, b) => api.insert(c, d, b), true),
  );
  router.post(
    `${base}/data/update`,
    surface,
    route((c, d, b) => api.update(c, d, b), true),
  );
  router.post(
    `${base}/data/delete`,
    surface,
    route((c, d, b) => api.delete(c, d, b), true),
  );
  // Other methods on these paths: 405 with Allow, after the same agent, key and surface checks.
  const notAllowed =
    (allowed: string[]): Op =>
    (c, d, q) =>
      api.notAllowed(c, d, q, allowed);
  router.all(base, surface, route(notAllowed(['GET', 'PUT']), false));
  for (const op of ['query', 'insert', 'update', 'delete'])
    router.all(`${base}/data/${op}`, surface, route(notAllowed(['POST']), false));
  return router.routes() as Koa.Middleware;
}
