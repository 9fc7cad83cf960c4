import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type Koa from 'koa';
import { DOCS_CSP, sendHtml } from '../page-headers.js';
import { publicBaseUrl } from '../tenant.middleware.js';

const require = createRequire(import.meta.url);
const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
};

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Exposure Service — API docs</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/swagger-ui-standalone-preset.js"></script><script src="/docs/init.js"></script></body></html>`;
// The standalone layout shows a selector between the descriptions. `/docs?agent=<id>` adds that
// agent's own document (its endpoints one by one) first: it needs the agent key, which the page asks
// for once, keeps in memory only (never in storage or the URL), sends with that one spec request and
// pre-fills into Authorize for "Try it out". Only the agent id is read from the URL (no `?url=`):
// the page never loads a description from another server.
const init = `const agent = new URLSearchParams(location.search).get('agent');
const urls = [{ url: '/openapi.json', name: 'Agent surfaces' }, { url: '/workspaceapi/openapi.json', name: 'Workspace API' }];
const agentUrl = agent ? '/agents/' + encodeURIComponent(agent) + '/openapi.json' : null;
if (agentUrl) urls.unshift({ url: agentUrl, name: 'Agent ' + agent + ': its endpoints' });
let agentKey = null;
window.ui = SwaggerUIBundle({
  dom_id: '#ui',
  urls,
  'urls.primaryName': urls[0].name,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  displayOperationId: true,
  requestInterceptor: (req) => {
    if (agentUrl && req.loadSpec && new URL(req.url, location.href).pathname === agentUrl) {
      agentKey = agentKey || window.prompt('Agent key (ak_...) of ' + agent + ', to read its endpoints');
      if (agentKey) req.headers['X-Agent-Access-Key'] = agentKey;
    }
    return req;
  },
  onComplete: () => {
    if (agentKey) window.ui.preauthorizeApiKey('agentKey', agentKey);
  },
});`;

/** `/openapi.json` and a browsable page at `/docs` (Swagger UI, served from the installed package). */
export function docsRoutes(openapi: (baseUrl: string) => Record<string, unknown>, baseUrl: string): Koa.Middleware {
  const router = new Router();
  // One document per public base URL (BASE_URL and the tenant hosts in use), built once each.
  const cached = new Map<string, string>();
  router.get('/openapi.json', (ctx) => {
    const base = publicBaseUrl(ctx, baseUrl);
    let doc = cached.get(base);
    if (doc === undefined) {
      if (cached.size >= 256) cached.clear();
      doc = JSON.stringify(openapi(base));
      cached.set(base, doc);
    }
    ctx.type = 'application/json';
    ctx.body = doc;
  });
  router.get('/docs', (ctx) => sendHtml(ctx, page, DOCS_CSP));
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = init;
  });
  router.get('/docs/:file', (ctx, next) => {
    const type = FILES[ctx.params.file!];
    if (!type) return next();
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = fs.createReadStream(path.join(assets, ctx.params.file!));
  });
  return router.routes() as Koa.Middleware;
}
