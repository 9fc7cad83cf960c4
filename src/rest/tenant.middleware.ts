import type Koa from 'koa';
import { Unauthenticated } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { tenantBaseUrl, tenantOf, type TenantTemplate } from '../domain/workspace/tenant-host.js';
import type { TenantWorkspace } from '../domain/workspace/tenant.service.js';

// The one place where a request's host decides its workspace scope and its public base URL
// (TENANT_BASE_URL, docs/decisions.md "Tenant addresses (issue 52)"). Everything downstream reads
// the result from ctx.state through the helpers below, never from the Host header itself.

interface TenantState {
  /** The public base URL of this request's answers: its tenant host's, else BASE_URL. */
  baseUrl?: string;
  /** The origin that issues and accepts OAuth tokens here (the authorization server's issuer). */
  origin?: string;
  /** The origin an access token must have been issued for to be accepted here (no port: any port of the host). */
  tokenOrigin?: string;
  /** The workspace of the tenant host the request came to (absent on the shared base URL). */
  tenant?: TenantWorkspace;
}

const stateOf = (ctx: Koa.Context) => ctx.state as TenantState;

/**
 * Reads the request's Host: on a tenant host, the workspace its slug names (404 when none) and that
 * host's base URL; elsewhere BASE_URL, unchanged. Mounted before every route.
 */
export function tenantHosts(services: Services, template: TenantTemplate | undefined, baseUrl: string): Koa.Middleware {
  // BASE_URL on port 0: the port is the one the service chose at start, so the request's origin is it.
  const chosenPort = /:0$/.test(new URL(baseUrl).host);
  return async (ctx, next) => {
    const state = stateOf(ctx);
    const slug = tenantOf(ctx.host, template);
    if (slug === null) {
      state.baseUrl = baseUrl;
      state.origin = chosenPort ? `${ctx.protocol}://${ctx.host}` : new URL(baseUrl).origin;
      // Instances of the shared address on ports they chose accept each other's tokens: any port.
      state.tokenOrigin = chosenPort ? `${ctx.protocol}://${ctx.hostname}` : state.origin;
      return next();
    }
    const tenant = await services.tenants.workspaceOf(slug);
    if (!tenant) {
      ctx.status = 404;
      ctx.body = {
        error: `No workspace '${slug}' on this service: check the address (${slug} is not a workspace's slug)`,
      };
      return;
    }
    state.tenant = tenant;
    state.baseUrl = tenantBaseUrl(template!, slug, chosenPort ? (/:(\d{1,5})$/.exec(ctx.host)?.[1] ?? '') : '');
    state.origin = state.baseUrl;
    state.tokenOrigin = state.origin;
    await next();
  };
}

/** The public base URL of this request's answers (`fallback`, BASE_URL, when the middleware did not run). */
export function publicBaseUrl(ctx: Koa.Context, fallback: string): string {
  return stateOf(ctx).baseUrl ?? fallback;
}

/** The origin whose access tokens this request accepts, when the middleware set it. */
export function tokenOriginOf(ctx: Koa.Context): string | undefined {
  return stateOf(ctx).tokenOrigin;
}

/** The OAuth issuer's origin of this request, when the middleware set it. */
export function requestOrigin(ctx: Koa.Context): string | undefined {
  return stateOf(ctx).origin;
}

/** The workspace of the tenant host the request came to, or undefined on the shared base URL. */
export function requestTenant(ctx: Koa.Context): TenantWorkspace | undefined {
  return stateOf(ctx).tenant;
}

/** The agent as this host sees it: null when it belongs to another workspace than the host's. */
export function agentHere<A extends { workspaceId: string }>(ctx: Koa.Context, agent: A | null): A | null {
  const tenant = stateOf(ctx).tenant;
  return agent && tenant && agent.workspaceId !== tenant.workspaceId ? null : agent;
}

/**
 * Refuses a credential of another workspace on a tenant host (401, naming the host): a tenant host
 * takes only its own workspace's tokens, keys and console sessions.
 */
export function assertTenantCredential<P extends { workspaceId: string }>(ctx: Koa.Context, principal: P): P {
  const tenant = stateOf(ctx).tenant;
  if (tenant && principal.workspaceId !== tenant.workspaceId) throw tenantRefusal(ctx);
  return principal;
}

/** The 401 of a credential of another workspace on this tenant host, naming the host. */
export function tenantRefusal(ctx: Koa.Context): Unauthenticated {
  const state = stateOf(ctx);
  return new Unauthenticated(
    `This credential belongs to another workspace: ${new URL(state.baseUrl!).host} takes only the credentials of the workspace '${state.tenant?.slug}' (use one of its own, or the shared address)`,
  );
}

/**
 * A console sign-in on this host: on a tenant host, into that host's workspace (a person's sign-in
 * names it; a member token of another workspace is refused and its new session ended at once).
 */
export async function signInOnThisHost(
  ctx: Koa.Context,
  services: Services,
  body: unknown,
): Promise<Awaited<ReturnType<Services['consoleSessions']['signIn']>>> {
  const tenant = stateOf(ctx).tenant;
  const person = tenant && body && typeof body === 'object' && !Array.isArray(body) && !('token' in body);
  const signedIn = await services.consoleSessions.signIn(person ? { ...body, workspace: tenant.slug } : body);
  if (tenant && signedIn.principal.workspaceId !== tenant.workspaceId) {
    await services.consoleSessions.signOut(signedIn.sessionValue);
    assertTenantCredential(ctx, signedIn.principal);
  }
  return signedIn;
}

/**
 * The origins of the service's own apps for this request: PLATFORM_ORIGINS and, on a tenant host,
 * that host (the console it serves is a platform app there).
 */
export function platformOriginsHere(ctx: Koa.Context, platformOrigins: string[]): string[] {
  const state = stateOf(ctx);
  return state.tenant && state.origin ? [...platformOrigins, state.origin] : platformOrigins;
}
