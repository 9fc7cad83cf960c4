import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type Koa from 'koa';
import { Forbidden, UnsupportedMediaType } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { secureCookies, sessionCookie, sessionCsrfProblem } from './session-cookie.js';

const ACCEPT =
  'Accept with POST /console/invitations/accept, Content-Type: application/json and a body {"token", "name", "password"} (a new account) or {"token", "password"} (the account the invitation is for)';

/**
 * The invitation link's REST side, for a person not signed in: `GET /console/invitation?token=…` →
 * what it is for (workspace, email, role, expired, whether the email has an account); `POST
 * /console/invitations/accept` `{token, name, password}` → the invitee's account made (or `{token,
 * password}`: the existing account of the email, proved by its password), the membership added and
 * a session opened in that workspace (204 with the session cookie). The page
 * itself is the console's (`GET /console/invitations/<token>`). A browser on another origin is
 * refused, as for `/console/session`.
 */
export function invitationRoutes(services: Services, baseUrl: string): Koa.Middleware {
  const router = new Router();
  const secure = secureCookies(baseUrl);
  router.get('/console/invitation', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : undefined;
    const v = await services.invitations.preview(token);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      workspace: v.workspaceName,
      email: v.email,
      name: v.name,
      role: v.role,
      expiresAt: v.expiresAt.toISOString(),
      expired: v.expired,
      hasAccount: v.hasAccount,
    };
  });
  router.post(
    '/console/invitations/accept',
    bodyParser({ enableTypes: ['json'], jsonLimit: '16kb', encoding: 'utf-8' }),
    async (ctx) => {
      if (!ctx.is('application/json')) throw new UnsupportedMediaType(ACCEPT);
      const problem = ctx.get('origin') ? sessionCsrfProblem(ctx, baseUrl, { json: true }) : undefined;
      if (problem) throw new Forbidden(problem);
      const body: unknown = ctx.request.body;
      // With a name: a new account; without: the existing account of the email, by its password.
      const member =
        body && typeof body === 'object' && !('name' in body)
          ? await services.invitations.acceptWithPassword(body)
          : await services.invitations.acceptWithNewAccount(body);
      const { sessionValue } = await services.consoleSessions.openForAccount(
        member.accountId,
        'password',
        member.workspaceId,
      );
      ctx.set('Set-Cookie', sessionCookie(sessionValue, secure));
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 204;
    },
  );
  return router.routes() as Koa.Middleware;
}
