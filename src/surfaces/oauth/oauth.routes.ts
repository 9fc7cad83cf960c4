import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import type Provider from 'oidc-provider';
import { DomainError, NotFound } from '../../domain/errors.js';
import { MCP_SCOPE } from '../../domain/mcp-oauth/mcp-oauth.service.js';
import type { MemberPrincipal } from '../../domain/principal.js';
import type { Services } from '../../domain/services.js';
import { OAUTH_ROUTES } from './authorization-server.js';
import { secureCookies, sessionCookie, sessionCsrfProblem, sessionValue } from '../../rest/session-cookie.js';
import { sendHtml } from '../../rest/page-headers.js';
import {
  agentHere,
  publicBaseUrl,
  requestOrigin,
  requestTenant,
  signInOnThisHost,
} from '../../rest/tenant.middleware.js';
import { canNameEntity, printableParam } from '../shared/http-io.js';
import { CONSENT_CSP, consentPage, problemPage, reloadPage, signInPage } from './consent-page.js';
import { passRegistration, type AdmitRegistration } from './registration-gate.js';

/** Builds (or finds) the authorization server of an issuer: the service's origin. */
export type ProviderFor = (issuer: string) => Provider;

/** The provider's own endpoints, answered by it alone. */
const PROVIDER_PATHS = new Set<string>([
  OAUTH_ROUTES.authorization,
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.registration,
  OAUTH_ROUTES.revocation,
  OAUTH_ROUTES.jwks,
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
]);
const RESUME = new RegExp(`^${OAUTH_ROUTES.authorization}/[A-Za-z0-9_-]{1,64}$`);

/** The issuer: the origin src/rest/tenant.middleware.ts chose (tenant host, BASE_URL, or port 0's request origin). */
export function issuerOf(ctx: Koa.Context, baseUrl: string): string {
  const origin = requestOrigin(ctx);
  if (origin) return origin;
  return /:0$/.test(new URL(baseUrl).host) ? `${ctx.protocol}://${ctx.host}` : new URL(baseUrl).origin;
}

/**
 * Where a client finds how to get a token for an agent's MCP server (the 401's `resource_metadata`):
 * RFC 9728 §3.1, the well-known path with the resource's path appended.
 */
export function resourceMetadataUrl(issuer: string, agentId: string): string {
  return `${issuer}/.well-known/oauth-protected-resource/agents/${encodeURIComponent(agentId)}/mcp`;
}

function consentHtml(ctx: Koa.Context, status: number, html: string): void {
  ctx.status = status;
  sendHtml(ctx, html, CONSENT_CSP);
  // The consent forms post to this origin and must say so (Origin), which no-referrer would hide.
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

/**
 * The OAuth 2.1 authorization server of agents' MCP servers (docs/decisions.md §29): its metadata
 * (RFC 8414 and OpenID discovery), the protected-resource metadata of each agent's MCP URL
 * (RFC 9728), the provider's endpoints, and the consent step — the member signs in with the
 * console's session and approves or denies the client for the agent.
 */
export function oauthRoutes(
  services: Services,
  providerFor: ProviderFor,
  baseUrl: string,
  admitRegistration?: AdmitRegistration,
): Koa.Middleware {
  const router = new Router();
  const secure = (ctx: Koa.Context) => secureCookies(publicBaseUrl(ctx, baseUrl));
  const form = bodyParser({ enableTypes: ['form'], formLimit: '8kb', encoding: 'utf-8' });

  router.get('/.well-known/oauth-protected-resource/agents/:agentId/mcp', async (ctx) => {
    const agentId = ctx.params.agentId!;
    const agent = canNameEntity(agentId) ? agentHere(ctx, await services.surfaces.findAgent(agentId)) : null;
    ctx.set('Access-Control-Allow-Origin', '*');
    if (!agent) {
      ctx.status = 404;
      ctx.body = { error: `No agent ${printableParam(agentId)}` };
      return;
    }
    const issuer = issuerOf(ctx, baseUrl);
    ctx.set('Cache-Control', 'max-age=300');
    ctx.body = {
      resource: `${issuer}/agents/${agent.id}/mcp`,
      authorization_servers: [issuer],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_documentation: `${issuer}/docs`,
    };
  });

  /** The signed-in member, with the member token of their session (a grant ends with it). */
  const member = async (ctx: Koa.Context): Promise<(MemberPrincipal & { tokenId: string | null }) | null> => {
    const value = sessionValue(ctx);
    if (!value) return null;
    try {
      const { principal: p, tokenId } = await services.consoleSessions.authenticateSession(value);
      // On a tenant host, only a session of that host's workspace is one (else: sign in here).
      const here = !requestTenant(ctx) || requestTenant(ctx)!.workspaceId === p.workspaceId;
      return p.kind === 'member' && here ? { ...p, tokenId } : null;
    } catch (err) {
      if (err instanceof DomainError) return null;
      throw err;
    }
  };

  /** The interaction a consent request belongs to, or a page saying it is gone. */
  const interaction = async (ctx: Koa.Context) => {
    const provider = providerFor(issuerOf(ctx, baseUrl));
    try {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      if (details.uid !== ctx.params.uid) throw new Error('another interaction');
      return { provider, details };
    } catch {
      consentHtml(
        ctx,
        400,
        problemPage('This sign-in has expired', 'Go back to the app and start connecting it again.'),
      );
      return null;
    }
  };

  const fromHere = (ctx: Koa.Context): boolean => {
    const problem = sessionCsrfProblem(ctx, publicBaseUrl(ctx, baseUrl), { json: false });
    if (!problem) return true;
    consentHtml(ctx, 403, problemPage('Request refused', 'The consent form must be sent from this page.'));
    return false;
  };

  /** What the member is asked about: the client, its redirect, the agent (one they can see). */
  const subject = async (ctx: Koa.Context, provider: Provider, params: Record<string, unknown>, m: MemberPrincipal) => {
    const resource = Array.isArray(params.resource) ? params.resource[0] : params.resource;
    const issuer = issuerOf(ctx, baseUrl);
    try {
      const target = await services.mcpOAuth.agentOfResource(String(resource ?? ''), issuer);
      if (!agentHere(ctx, target)) throw new NotFound('Agent', target.id);
      const agent = await services.mcpOAuth.consentAgent(m, target.id);
      const client = await provider.Client.find(String(params.client_id));
      const clientId = String(params.client_id);
      const clientName = (client?.clientName as string | undefined) || clientId;
      const redirectUri = String(params.redirect_uri ?? '');
      return { agent, clientId, clientName, redirectUri, resource: String(resource), issuer };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      consentHtml(
        ctx,
        err.code === 'NOT_FOUND' ? 404 : 403,
        problemPage(
          'This app cannot be connected',
          `${err.message}. Sign in as a member who can see the agent, or ask one to connect the app.`,
        ),
      );
      return null;
    }
  };

  router.get('/oauth/interaction/:uid', async (ctx) => {
    const found = await interaction(ctx);
    if (!found) return;
    const { provider, details } = found;
    const m = await member(ctx);
    if (!m) {
      const clientName = String(details.params.client_id ?? 'the app');
      if (ctx.query.signin === undefined) return consentHtml(ctx, 200, reloadPage(`${ctx.path}?signin=1`));
      return consentHtml(ctx, 200, signInPage(`${ctx.path}/signin`, clientName));
    }
    const s = await subject(ctx, provider, details.params, m);
    if (!s) return;
    const viewer = await services.workspace.viewer(m);
    const refresh =
      String(details.params.scope ?? '')
        .split(' ')
        .includes('offline_access') ||
      (await provider.Client.find(s.clientId))?.grantTypeAllowed('refresh_token') === true;
    consentHtml(
      ctx,
      200,
      consentPage({
        clientName: s.clientName,
        clientId: s.clientId,
        nameSource: s.clientName === s.clientId ? 'none' : /^https?:\/\//i.test(s.clientId) ? 'document' : 'registered',
        redirectHost: hostOf(s.redirectUri),
        agentName: s.agent.name,
        agentUrl: s.resource,
        memberEmail: viewer.email,
        approveAction: `${ctx.path}/confirm`,
        denyAction: `${ctx.path}/deny`,
        refresh,
      }),
    );
  });

  router.post('/oauth/interaction/:uid/signin', form, async (ctx) => {
    if (!fromHere(ctx)) return;
    const found = await interaction(ctx);
    if (!found) return;
    const token = (ctx.request.body as Record<string, unknown> | undefined)?.token;
    try {
      const { sessionValue: value } = await signInOnThisHost(ctx, services, {
        token: typeof token === 'string' ? token : '',
      });
      ctx.set('Set-Cookie', sessionCookie(value, secure(ctx)));
      ctx.status = 303;
      ctx.redirect(`/oauth/interaction/${ctx.params.uid}`);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      consentHtml(ctx, 401, signInPage(ctx.path, String(found.details.params.client_id ?? 'the app'), err.message));
    }
  });

  router.post('/oauth/interaction/:uid/confirm', async (ctx) => {
    if (!fromHere(ctx)) return;
    const found = await interaction(ctx);
    if (!found) return;
    const { provider, details } = found;
    const m = await member(ctx);
    if (!m)
      return consentHtml(
        ctx,
        401,
        problemPage('Signed out', 'Your session ended: go back to the app and start again.'),
      );
    const s = await subject(ctx, provider, details.params, m);
    if (!s) return;
    const grant = new provider.Grant({ accountId: m.memberId, clientId: s.clientId });
    // What the client asked for among what the service offers: `mcp` (on the server and on the
    // agent's MCP URL) and `offline_access`.
    const requested = String(details.params.scope ?? '')
      .split(' ')
      .filter((scope) => scope === MCP_SCOPE || scope === 'offline_access');
    if (requested.length) grant.addOIDCScope(requested);
    grant.addResourceScope(s.resource, MCP_SCOPE);
    const grantId = await grant.save();
    await services.mcpOAuth.approve(m, s.agent.id, {
      grantId,
      clientId: s.clientId,
      clientName: s.clientName === s.clientId ? null : s.clientName,
      redirectUri: s.redirectUri,
      memberTokenId: m.tokenId,
    });
    const url = await provider.interactionResult(
      ctx.req,
      ctx.res,
      { login: { accountId: m.memberId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    ctx.status = 303;
    ctx.redirect(url);
  });

  router.post('/oauth/interaction/:uid/deny', async (ctx) => {
    if (!fromHere(ctx)) return;
    const found = await interaction(ctx);
    if (!found) return;
    const url = await found.provider.interactionResult(
      ctx.req,
      ctx.res,
      { error: 'access_denied', error_description: 'The member declined to connect the app' },
      { mergeWithLastSubmission: false },
    );
    ctx.status = 303;
    ctx.redirect(url);
  });

  const routes = router.routes() as Koa.Middleware;
  return async (ctx, next) => {
    if (PROVIDER_PATHS.has(ctx.path) || RESUME.test(ctx.path)) {
      const provider = providerFor(issuerOf(ctx, baseUrl));
      // RFC 8414's path serves the same document as OpenID discovery (an issuer without a path).
      if (ctx.path === '/.well-known/oauth-authorization-server') ctx.req.url = '/.well-known/openid-configuration';
      let req = ctx.req;
      if (ctx.path === OAUTH_ROUTES.registration && ctx.method === 'POST') {
        const passed = await passRegistration(ctx, admitRegistration);
        if (!passed) return;
        req = passed;
      }
      ctx.respond = false;
      await provider.callback()(req, ctx.res);
      return;
    }
    if (ctx.path.startsWith('/oauth/') || ctx.path.startsWith('/.well-known/oauth-protected-resource/'))
      return routes(ctx, next);
    return next();
  };
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}
