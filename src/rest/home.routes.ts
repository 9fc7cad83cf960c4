import Router from '@koa/router';
import { publicBaseUrl } from './tenant.middleware.js';
import type Koa from 'koa';
import { sendHtml } from './page-headers.js';

// `GET /`: plain HTML from this process, no external assets, so it works on a machine without
// internet. (The page a browser gets at `/graphql`, GraphiQL, is in graphiql.routes.ts.)

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px ui-monospace,monospace}pre{background:#f4f4f4;padding:.6rem;overflow-x:auto;white-space:pre-wrap}li{margin:.2rem 0}.start{font-size:17px;padding:.6rem .8rem;border-left:4px solid #3b5bdb;background:#f4f6ff}`;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export const curlExample = (baseUrl: string) =>
  `curl -s ${baseUrl}/graphql -H 'content-type: application/json' \\\n  -H "authorization: Bearer $ADMIN_TOKEN" \\\n  -d '{"query":"{ viewer { role } agents { id name } }"}'`;

function homePage(baseUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Exposure Service</title><style>${STYLE}</style></head>
<body>
<h1>Agent Exposure Service</h1>
<p>This service hosts AI agents and exposes each one over an HTTP API, a Document API, an MCP server, an OpenAI-compatible API, A2A, a chat widget, webhooks, email and SMS.</p>
<p class="start"><a href="/console"><strong>Open the console</strong></a> and sign in with the admin token: create an agent, give it an endpoint and a key, and call it. Everything the console does is GraphQL too.</p>
<h2>Links</h2>
<ul>
<li><a href="/console">Console</a> (<code>/console</code>: agents, their surfaces, keys, activity and the workspace)</li>
<li><a href="/docs">API docs</a> (Swagger UI for the agent surfaces and the Workspace API)</li>
<li><a href="/openapi.json">OpenAPI description of the agent surfaces</a> (<code>/openapi.json</code>)</li>
<li><a href="/workspaceapi/openapi.json">OpenAPI description of the Workspace API</a> (<code>/workspaceapi/openapi.json</code>)</li>
<li><a href="/graphql">GraphQL endpoint</a> (<code>POST /graphql</code>; in a browser, GraphiQL: documentation, completion, and runs with your token)</li>
<li><a href="/graphql/schema.graphql">GraphQL schema</a> (<code>/graphql/schema.graphql</code>, the SDL of every type, query and mutation)</li>
<li><a href="/healthz">/healthz</a> (the process is up) and <a href="/readyz">/readyz</a> (the database answers)</li>
</ul>
<h2>The admin token</h2>
<p>GraphQL needs a member token as <code>Authorization: Bearer &lt;token&gt;</code>. On the first start without <code>ADMIN_TOKEN</code>, an admin token is generated and printed once in the service's output (look for “Admin token (shown once, store it now)”). Or set <code>ADMIN_TOKEN</code> (16 characters or more) before starting: it becomes the admin token and replaces a generated one.</p>
<pre>${escapeHtml(curlExample(baseUrl))}</pre>
</body></html>`;
}

const sendPage = (ctx: Koa.Context, html: string) => sendHtml(ctx, html);

/** `GET /`: what this service is and where to go next. */
export function homeRoutes(baseUrl: string): Koa.Middleware {
  const router = new Router();
  router.get('/', (ctx) => sendPage(ctx, homePage(publicBaseUrl(ctx, baseUrl))));
  return router.routes() as Koa.Middleware;
}
