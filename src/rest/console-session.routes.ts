import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import { DomainError, Forbidden, UnsupportedMediaType } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import {
  clearedSessionCookie,
  secureCookies,
  sessionCookie,
  sessionCsrfProblem,
  sessionValue,
} from './session-cookie.js';
import { publicBaseUrl, requestTenant, signInOnThisHost } from './tenant.middleware.js';

const SIGN_IN =
  'Sign in with POST /console/session, Content-Type: application/json and a body {"email", "password"} or {"token": "<member token>"}';

/**
 * `POST /console/session` `{"email", "password", "workspace"?}` or `{"token"}` → 204 with the session cookie (sign-in); `GET
 * /console/session` → `{"signedIn", "memberToken", "sso", "ssoName"}` (whether the cookie names a live
 * session, and one opened with a member token: the console asks before its first query, so that a
 * signed-out start is no failed request; whether single sign-on is configured, and its button's
 * label or null); `DELETE
 * /console/session` → 204, the session ended and the cookie cleared (sign-out). A browser on
 * another origin is refused sign-in and sign-out; a client outside a browser (no Origin header) may use them.
 */
export function consoleSessionRoutes(services: Services, baseUrl: string): Koa.Middleware {
  const router = new Router();
  const secure = (ctx: Koa.Context) => secureCookies(publicBaseUrl(ctx, baseUrl));
  const fromOwnOrigin = (ctx: Koa.Context, json: boolean) => {
    const problem = ctx.get('origin') ? sessionCsrfProblem(ctx, publicBaseUrl(ctx, baseUrl), { json }) : undefined;
    if (problem) throw new Forbidden(problem);
  };
  router.post(
    '/console/session',
    bodyParser({ enableTypes: ['json'], jsonLimit: '16kb', encoding: 'utf-8' }),
    async (ctx) => {
      if (!ctx.is('application/json')) throw new UnsupportedMediaType(SIGN_IN);
      fromOwnOrigin(ctx, true);
      // On a tenant host, into that host's workspace (TENANT_BASE_URL).
      const { sessionValue: value } = await signInOnThisHost(ctx, services, ctx.request.body);
      ctx.set('Set-Cookie', sessionCookie(value, secure(ctx)));
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 204;
    },
  );
  router.get('/console/session', async (ctx) => {
    const value = sessionValue(ctx);
    const found = value
      ? await services.consoleSessions.authenticateSession(value).then(
          (s) => s,
          (err: unknown) => (err instanceof DomainError && err.code === 'UNAUTHENTICATED' ? null : Promise.reject(err)),
        )
      : null;
    ctx.set('Cache-Control', 'no-store');
    // On a tenant host, a session of another workspace is none here.
    const tenant = requestTenant(ctx);
    const session = found && (!tenant || found.principal.workspaceId === tenant.workspaceId) ? found : null;
    // memberToken: the console shows no workspace switcher for such a session (it stays in the token's workspace).
    ctx.body = {
      signedIn: session !== null,
      memberToken: session?.tokenId != null,
      sso: services.sso.name !== null,
      ssoName: services.sso.name,
    };
  });
  router.delete('/console/session', async (ctx) => {
    fromOwnOrigin(ctx, false);
    const value = sessionValue(ctx);
    if (value) await services.consoleSessions.signOut(value);
    ctx.set('Set-Cookie', clearedSessionCookie(secure(ctx)));
    ctx.status = 204;
  });
  return router.routes() as Koa.Middleware;
}
