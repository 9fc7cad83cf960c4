import Router from '@koa/router';
import { publicBaseUrl } from './tenant.middleware.js';
import type Koa from 'koa';
import { curlExample, escapeHtml } from './home.routes.js';
import { GRAPHIQL_CSP, sendHtml } from './page-headers.js';
import { sendBuiltFile } from './built-file.js';

/** One built file of GraphiQL (src/infra/graphiql/bundle.ts makes them). */
export interface GraphiqlFile {
  type: string;
  code: Buffer;
  gzip: Buffer;
  etag: string;
}

const ASSETS = '/graphql/assets/';

/** How long browsers may reuse GraphiQL's files before asking again (with their ETag), as for widget.js. */
export const GRAPHIQL_MAX_AGE_SECONDS = 300;

/**
 * GraphiQL (src/graphiql): the page is a shell that loads its script and stylesheet from
 * /graphql/assets/; without JavaScript it says how to use curl instead.
 */
function graphiqlPage(baseUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>GraphiQL — Agent Exposure Service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}graphiql.css">
</head>
<body>
<div id="graphiql"><p class="loading">Loading GraphiQL…</p></div>
<noscript>
<p>GraphiQL needs JavaScript. Send queries and mutations as <code>POST /graphql</code> with a JSON body <code>{"query", "variables"}</code> and <code>Authorization: Bearer &lt;member token&gt;</code>; the schema is at <a href="/graphql/schema.graphql">/graphql/schema.graphql</a>.</p>
<pre>${escapeHtml(curlExample(baseUrl))}</pre>
</noscript>
<script type="module" src="${ASSETS}graphiql.js"></script>
</body></html>`;
}

/**
 * The page a browser gets for `GET /graphql` (it asks for HTML and sends no query): GraphiQL; any
 * other GET goes on to Apollo (GET queries). Also serves GraphiQL's files under `/graphql/assets/`
 * and the schema as SDL (`sdl`: schema.graphql as the running service prints it; public, like the
 * repository's copy — GraphiQL builds its documentation and completion from it).
 */
export function graphqlPageRoutes(
  baseUrl: string,
  sdl: string,
  graphiql: () => Promise<Map<string, GraphiqlFile>>,
): Koa.Middleware {
  const router = new Router();
  router.get('/graphql', (ctx, next) => {
    if (ctx.query.query !== undefined || ctx.accepts('application/json', 'text/html') !== 'text/html') return next();
    sendHtml(ctx, graphiqlPage(publicBaseUrl(ctx, baseUrl)), GRAPHIQL_CSP);
  });
  router.get('/graphql/schema.graphql', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = sdl;
  });
  router.get('/graphql/assets/:name', async (ctx, next) => {
    const file = (await graphiql()).get(ctx.params.name!);
    if (!file) return next();
    sendBuiltFile(ctx, file, `public, max-age=${GRAPHIQL_MAX_AGE_SECONDS}`);
  });
  return router.routes() as Koa.Middleware;
}
