import Router from '@koa/router';
import type Koa from 'koa';
import { sendHtml } from './page-headers.js';

// `GET /` and the page `GET /graphql` shows a browser: plain HTML from this process, no external
// assets, so both work on a machine without internet. The full Apollo IDE lives on a CDN; the
// console here is a small form that posts to /graphql.

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre,textarea,input{font:13px ui-monospace,monospace}pre{background:#f4f4f4;padding:.6rem;overflow-x:auto;white-space:pre-wrap}
textarea,input{width:100%;box-sizing:border-box}li{margin:.2rem 0}`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const curlExample = (baseUrl: string) =>
  `curl -s ${baseUrl}/graphql -H 'content-type: application/json' \\\n  -H "authorization: Bearer $ADMIN_TOKEN" \\\n  -d '{"query":"{ viewer { role } agents { id name } }"}'`;

function homePage(baseUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Exposure Service</title><style>${STYLE}</style></head>
<body>
<h1>Agent Exposure Service</h1>
<p>This service hosts AI agents and exposes each one over an HTTP API, a Document API, an MCP server, a chat widget and webhooks. Agents, keys and endpoints are managed with GraphQL.</p>
<h2>Links</h2>
<ul>
<li><a href="/docs">API docs</a> (Swagger UI for the agent surfaces and the Workspace API)</li>
<li><a href="/openapi.json">OpenAPI description of the agent surfaces</a> (<code>/openapi.json</code>)</li>
<li><a href="/workspaceapi/openapi.json">OpenAPI description of the Workspace API</a> (<code>/workspaceapi/openapi.json</code>)</li>
<li><a href="/graphql">GraphQL endpoint</a> (<code>POST /graphql</code>; in a browser, a small query console)</li>
<li><a href="/graphql/schema.graphql">GraphQL schema</a> (<code>/graphql/schema.graphql</code>, the SDL of every type, query and mutation)</li>
<li><a href="/healthz">/healthz</a> (the process is up) and <a href="/readyz">/readyz</a> (the database answers)</li>
</ul>
<h2>The admin token</h2>
<p>GraphQL needs a member token as <code>Authorization: Bearer &lt;token&gt;</code>. On the first start without <code>ADMIN_TOKEN</code>, an admin token is generated and printed once in the service's output (look for “Admin token (shown once, store it now)”). Or set <code>ADMIN_TOKEN</code> (16 characters or more) before starting: it becomes the admin token and replaces a generated one.</p>
<pre>${escapeHtml(curlExample(baseUrl))}</pre>
</body></html>`;
}

function graphqlPage(baseUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphQL — Agent Exposure Service</title><style>${STYLE}</style></head>
<body>
<h1>GraphQL</h1>
<p>Send queries and mutations as <code>POST /graphql</code> with a JSON body <code>{"query", "variables"}</code> and <code>Authorization: Bearer &lt;member token&gt;</code>. The schema is at <a href="/graphql/schema.graphql">/graphql/schema.graphql</a> (SDL, no token needed). A full GraphQL IDE (such as Apollo Sandbox) is not bundled: it loads from the internet. Without internet, use this form or curl:</p>
<pre>${escapeHtml(curlExample(baseUrl))}</pre>
<form id="console">
<p><label>Token<br><input id="token" type="password" autocomplete="off" placeholder="ADMIN_TOKEN or a member token"></label></p>
<p><label>Query<br><textarea id="query" rows="8">{ viewer { role } agents { id name } }</textarea></label></p>
<p><label>Variables (JSON)<br><textarea id="variables" rows="3">{}</textarea></label></p>
<p><button type="submit">Run</button></p>
</form>
<pre id="result" aria-live="polite"></pre>
<p><a href="/">Home</a> · <a href="/docs">API docs</a></p>
<script src="/graphql/console.js"></script>
</body></html>`;
}

// Renders the answer as text (never as HTML) so nothing in a response can run in the page.
const CONSOLE_JS = `document.getElementById('console').addEventListener('submit', async (e) => {
  e.preventDefault();
  const out = document.getElementById('result');
  let variables;
  try { variables = JSON.parse(document.getElementById('variables').value || '{}'); }
  catch (err) { out.textContent = 'Variables are not valid JSON: ' + err.message; return; }
  out.textContent = '…';
  try {
    const res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + document.getElementById('token').value.trim() },
      body: JSON.stringify({ query: document.getElementById('query').value, variables }),
    });
    const text = await res.text();
    try { out.textContent = res.status + '\\n' + JSON.stringify(JSON.parse(text), null, 2); }
    catch { out.textContent = res.status + '\\n' + text; }
  } catch (err) { out.textContent = 'Request failed: ' + err.message; }
});`;

const sendPage = (ctx: Koa.Context, html: string) => sendHtml(ctx, html);

/** `GET /`: what this service is and where to go next. */
export function homeRoutes(baseUrl: string): Koa.Middleware {
  const home = homePage(baseUrl);
  const router = new Router();
  router.get('/', (ctx) => sendPage(ctx, home));
  return router.routes() as Koa.Middleware;
}

/**
 * The page a browser gets for `GET /graphql` (it asks for HTML and sends no query); any other GET
 * goes on to Apollo (GET queries). Also serves the console's script and the schema as SDL
 * (`sdl`: schema.graphql as the running service prints it; public, like the repository's copy).
 */
export function graphqlPageRoutes(baseUrl: string, sdl: string): Koa.Middleware {
  const page = graphqlPage(baseUrl);
  const router = new Router();
  router.get('/graphql', (ctx, next) => {
    if (ctx.query.query !== undefined || ctx.accepts('application/json', 'text/html') !== 'text/html') return next();
    sendPage(ctx, page);
  });
  router.get('/graphql/schema.graphql', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = sdl;
  });
  router.get('/graphql/console.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = CONSOLE_JS;
  });
  return router.routes() as Koa.Middleware;
}
