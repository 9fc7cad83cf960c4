import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import { manifestJsonSchema } from '../domain/manifests/manifest.schemas.js';
import { eventsJsonSchema } from '../domain/events/event-schemas.js';

// `GET /schemas/agent-manifest.v1.json`: the JSON Schema of agent manifests, public and cacheable,
// for editors (docs/agents-as-code.md); `GET /schemas/events.v1.json`: the JSON Schemas of the
// outbound events' bodies (README "Get events from the service"). The same texts as schemas/*.v1.json
// in the repository (`npm run schema` writes them, `npm run schema:check` fails when one is stale).

/** The manifest schema file's text, exactly as the repository holds it. */
export const manifestSchemaText = () => JSON.stringify(manifestJsonSchema(), null, 2) + '\n';
/** The events schema file's text, exactly as the repository holds it. */
export const eventsSchemaText = () => JSON.stringify(eventsJsonSchema(), null, 2) + '\n';

export function schemaRoutes(): Koa.Middleware {
  const router = new Router();
  for (const [path, body] of [
    ['/schemas/agent-manifest.v1.json', manifestSchemaText()],
    ['/schemas/events.v1.json', eventsSchemaText()],
  ] as const) {
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    router.get(path, (ctx) => {
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
  }
  return router.routes() as Koa.Middleware;
}
