import { randomUUID } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import type { Services } from '../domain/services.js';
import type { Logger } from '../infra/logger.js';
import { errorMapper } from './errors.js';
import type { ServiceMetrics } from '../infra/metrics.js';
import { metricsMiddleware, metricsRoute } from './metrics.middleware.js';
import { requestLog } from './request-log.js';
import { workspaceApiRoutes } from './workspace-api/workspace-api.routes.js';
import { docsRoutes } from './openapi/docs.routes.js';
import { graphqlGetTransport, graphqlPostTransport } from './graphql-transport.js';
import { graphqlPageRoutes, type GraphiqlFile } from './graphiql.routes.js';
import { homeRoutes } from './home.routes.js';
import { schemaRoutes } from './schemas.routes.js';
import { surfacesOpenApi } from './openapi/surfaces.openapi.js';
import { documentApiRoutes } from '../surfaces/document-api/document-api.routes.js';
import { httpApiRoutes } from '../surfaces/http-api/http-api.routes.js';
import { mcpRoutes } from '../surfaces/mcp/mcp.routes.js';
import { webhookRoutes } from '../surfaces/webhooks/webhook.routes.js';
import { chatRoutes } from '../surfaces/chat/chat.routes.js';
import { openAiRoutes } from '../surfaces/openai/openai.routes.js';
import { a2aRoutes } from '../surfaces/a2a/a2a.routes.js';
import { smsRoutes } from '../surfaces/sms/sms.routes.js';
import { mailgunRoutes } from '../surfaces/email/mailgun.routes.js';
import type { MailgunIntake } from '../surfaces/email/mailgun-intake.js';
import { widgetRoutes, type WidgetAsset } from './widget.routes.js';
import { consoleSessionRoutes } from './console-session.routes.js';
import { ssoRoutes } from './sso.routes.js';
import { invitationRoutes } from './invitation.routes.js';
import { oauthRoutes, type ProviderFor } from '../surfaces/oauth/oauth.routes.js';
import type { AdmitRegistration } from '../surfaces/oauth/registration-gate.js';
import { consoleRoutes } from './console.routes.js';
import { tenantHosts } from './tenant.middleware.js';
import type { TenantTemplate } from '../domain/workspace/tenant-host.js';
import { widgetPreviewRoutes } from './widget-preview.routes.js';
import type { ConsoleBundle } from '../infra/console/bundle.js';

export const BODY_LIMIT = '1mb';

export interface AppDeps {
  services: Services;
  logger: Logger;
  graphql: Koa.Middleware;
  /** The running GraphQL schema as SDL, served at `GET /graphql/schema.graphql`. */
  graphqlSdl: string;
  /** Origins of the service's own user-facing apps (platform-app CORS). */
  platformOrigins: string[];
  /** The public BASE_URL (config.baseUrl): the server of the OpenAPI descriptions. */
  baseUrl: string;
  /** TENANT_BASE_URL: each workspace's own host (absent: the shared base URL only). */
  tenantBaseUrl?: TenantTemplate;
  /** The built chat widget served at `GET /widget.js`. */
  widget: () => Promise<WidgetAsset>;
  /** GraphiQL's built files, served under `/graphql/assets/` for the page a browser gets at `/graphql`. */
  graphiql: () => Promise<Map<string, GraphiqlFile>>;
  /** The built console served at `GET /console`. */
  console: () => Promise<ConsoleBundle>;
  /** The chat streams' keep-alive interval (default KEEP_ALIVE_MS). */
  chatKeepAliveMs?: number;
  /** The instance's metrics: every request is counted; `GET /metrics` here unless `metricsElsewhere`. */
  metrics?: ServiceMetrics;
  /** `GET /metrics` has a port of its own (METRICS_PORT). */
  metricsElsewhere?: boolean;
  /** The authorization server of agents' MCP servers, per issuer (absent: no OAuth endpoints). */
  oauth?: ProviderFor;
  /** Admits an anonymous client registration from a remote address (absent: no rate or cap). */
  oauthRegistration?: AdmitRegistration;
  /** Mailgun's inbound mail (`POST /email/mailgun/mime`); absent: no such route. */
  mailgun?: MailgunIntake;
  /** True once shutdown has begun: `/readyz` answers 503 so that a load balancer drains the instance. */
  draining?: () => boolean;
}

/** An X-Request-Id the service takes as sent: short, printable, no spaces (anything else gets a new id). */
const REQUEST_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

/** The Koa application: health, GraphQL, the OpenAPI documents, the agent surfaces and the Workspace API. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;

  // The request id: the caller's X-Request-Id when it is a sane one, else a new one; answered in
  // X-Request-Id, written in the request's log line and activity entry.
  app.use(async (ctx, next) => {
    const sent = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(sent) ? sent : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  app.use(requestLog(deps.logger));
  if (deps.metrics) app.use(metricsMiddleware(deps.metrics));
  app.use(errorMapper(deps.logger));
  // The host decides the workspace scope and the public base URL, before any route runs.
  app.use(tenantHosts(deps.services, deps.tenantBaseUrl, deps.baseUrl));

  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    if (deps.draining?.()) {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { error: 'Shutting down' };
      return;
    }
    const ok = await deps.services.health.ready();
    ctx.status = ok ? 200 : 503;
    ctx.body = ok ? { status: 'ready' } : { error: 'Database is not reachable' };
  });

  const metrics = deps.metrics;
  if (metrics && !deps.metricsElsewhere) router.get('/metrics', metricsRoute(metrics));

  const graphqlBody = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT, encoding: 'utf-8' });
  // Apollo's Koa middleware calls next() after answering; stop there so nothing downstream runs.
  const graphql: Koa.Middleware = (ctx) => deps.graphql(ctx, async () => {});
  router.post('/graphql', graphqlPostTransport, graphqlBody, graphql);
  router.get('/graphql', graphqlGetTransport, graphql);

  // The service's own pages answer no path under /agents/: an agent surface request passes them
  // with one test instead of matching it against each of their route tables.
  const page =
    (routes: Koa.Middleware): Koa.Middleware =>
    (ctx, next) =>
      ctx.path.startsWith('/agents/') ? next() : routes(ctx, next);
  app.use(page(homeRoutes(deps.baseUrl)));
  app.use(page(schemaRoutes()));
  app.use(page(consoleSessionRoutes(deps.services, deps.baseUrl)));
  app.use(page(ssoRoutes(deps.services, deps.baseUrl)));
  app.use(page(invitationRoutes(deps.services, deps.baseUrl)));
  if (deps.oauth) app.use(page(oauthRoutes(deps.services, deps.oauth, deps.baseUrl, deps.oauthRegistration)));
  app.use(page(consoleRoutes(deps.console)));
  // Rewrites the preview's chat requests onto the chat surface (below), so it comes before it.
  app.use(page(widgetPreviewRoutes()));
  app.use(page(graphqlPageRoutes(deps.baseUrl, deps.graphqlSdl, deps.graphiql)));
  app.use(page(docsRoutes((base) => surfacesOpenApi(base), deps.baseUrl)));
  app.use(httpApiRoutes(deps.services, deps.platformOrigins, deps.baseUrl, deps.logger));
  app.use(documentApiRoutes(deps.services, deps.platformOrigins, deps.logger));
  app.use(mcpRoutes(deps.services, deps.platformOrigins, deps.logger, deps.oauth ? deps.baseUrl : undefined));
  app.use(webhookRoutes(deps.services, deps.logger));
  app.use(smsRoutes(deps.services, deps.baseUrl, deps.logger));
  if (deps.mailgun) app.use(page(mailgunRoutes(deps.mailgun)));
  app.use(chatRoutes(deps.services, deps.platformOrigins, deps.logger, deps.chatKeepAliveMs));
  app.use(openAiRoutes(deps.services, deps.platformOrigins, deps.logger));
  app.use(a2aRoutes(deps.services, deps.platformOrigins, deps.baseUrl, deps.logger));
  app.use(widgetRoutes(deps.widget));
  app.use(workspaceApiRoutes(deps.services, { baseUrl: deps.baseUrl }));
  app.use(router.routes());
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { error: noRoute(ctx.method, ctx.path) };
  });
  return app;
}

/** What comes after `/agents/{agentId}/` on the agent surfaces. */
const AGENT_SURFACE_SEGMENTS = new Set([
  'api',
  'documents',
  'mcp',
  'webhook',
  'chat',
  'openapi.json',
  'v1',
  'a2a',
  '.well-known',
  'sms',
]);

/**
 * The 404 of a path no route answers. Under `/agents/{agentId}/` anything but a surface is most often
 * an HTTP API path without its `/api`: the answer names the path that was probably meant (from the
 * URL alone: nothing is looked up, so it says nothing about the agent).
 */
function noRoute(method: string, path: string): string {
  const m = /^\/agents\/([^/]+)\/(.+)$/.exec(path);
  if (m && !AGENT_SURFACE_SEGMENTS.has(m[2]!.split('/')[0]!)) {
    return `No route for ${method} ${path}: an agent's HTTP API endpoints are under /agents/{agentId}/api/ — did you mean ${method} /agents/${m[1]}/api/${m[2]}?`;
  }
  return `No route for ${method} ${path}`;
}
