import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import { manifestJsonSchema } from '../domain/manifests/manifest.schemas.js';

// `GET /schemas/agent-manifest.v1.json`: the JSON Schema of agent manifests, public and cacheable,
// for editors (docs/agents-as-code.md). The same text as schemas/agent-manifest.v1.json in the
// repository (`npm run schema` writes it, `npm run schema:check` fails when it is stale).

/** The schema file's text, exactly as the repository holds it. */
export const manifestSchemaText = () => JSON.stringify(manifestJsonSchema(), null, 2) + '\n';

export function schemaRoutes(): Koa.Middleware {
  const body = manifestSchemaText();
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const router = new Router();
  router.get('/schemas/agent-manifest.v1.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('ETag', etag);
    ctx.set('Access-Control-Allow-Origin', '*');
    if (ctx.get('If-None-Match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/schema+json';
    ctx.body = body;
  });
  return router.routes() as Koa.Middleware;
}
