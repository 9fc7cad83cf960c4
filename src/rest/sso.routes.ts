import Router from '@koa/router';
import type Koa from 'koa';
import { refusalOf } from '../domain/error-catalogue.js';
import { DomainError } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { encodeHttpError } from '../surfaces/shared/http.errors.js';
import { escapeHtml } from './home.routes.js';
import { sendHtml } from './page-headers.js';
import { secureCookies, sessionCookie } from './session-cookie.js';

// The sign-in in flight between /start and /callback: sealed by the domain (PKCE verifier, state,
// nonce, workspace, return path, 10 minutes). SameSite=Lax, because the provider's answer is a
// top-level navigation from another site; its path keeps it off every other request.
const TRANSACTION_COOKIE = 'aes_sso';
const COOKIE_PATH = '/console/sso';

function transactionCookie(value: string, secure: boolean): string {
  return `${TRANSACTION_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=600; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

function clearedTransactionCookie(secure: boolean): string {
  return `${TRANSACTION_COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The redirect URI registered at the provider: BASE_URL's, or on port 0 (tests) the request's origin. */
function redirectUriOf(ctx: Koa.Context, baseUrl: string): string {
  const origin = /:0$/.test(new URL(baseUrl).host) ? `${ctx.protocol}://${ctx.host}` : new URL(baseUrl).origin;
  return `${origin}/console/sso/callback`;
}

/**
 * Single sign-on to the console. `GET /console/sso/start?workspace=<id|slug>&return=<console path>`
 * → 302 to the provider, with the sealed transaction cookie; `GET /console/sso/callback` → the
 * answer checked, the session cookie set exactly as `POST /console/session` sets it, 302 to the
 * return path (a console path, from the transaction: never from the callback's query). Failures:
 * the DESIGN error body for a JSON client, else a short page with a link back to the console.
 */
export function ssoRoutes(services: Services, baseUrl: string): Koa.Middleware {
  const router = new Router();
  const secure = secureCookies(baseUrl);
  router.get('/console/sso/start', async (ctx) => {
    await failingAsPage(ctx, async () => {
      const input = { workspace: ctx.query.workspace, returnTo: ctx.query.return };
      const started = await services.sso.begin(input, redirectUriOf(ctx, baseUrl));
      ctx.set('Set-Cookie', transactionCookie(started.transaction, secure));
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(started.url);
    });
  });
  router.get('/console/sso/callback', async (ctx) => {
    // The transaction is single-use whatever the outcome.
    ctx.set('Set-Cookie', clearedTransactionCookie(secure));
    ctx.set('Cache-Control', 'no-store');
    await failingAsPage(ctx, async () => {
      const redirectUri = redirectUriOf(ctx, baseUrl);
      const callback = new URL(redirectUri);
      callback.search = ctx.querystring.length <= 8192 ? ctx.querystring : '';
      const done = await services.sso.finish(callback, redirectUri, ctx.cookies.get(TRANSACTION_COOKIE));
      ctx.set('Set-Cookie', [clearedTransactionCookie(secure), sessionCookie(done.signedIn.sessionValue, secure)]);
      ctx.redirect(done.returnTo);
    });
  });
  return router.routes() as Koa.Middleware;
}

/** Runs a step; a refusal answers a JSON client with the error body and a browser with a page. */
async function failingAsPage(ctx: Koa.Context, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    if (!(err instanceof DomainError) || ctx.accepts('html', 'json') !== 'html') throw err;
    const answer = encodeHttpError(refusalOf(err));
    ctx.status = answer.status;
    ctx.set(answer.headers);
    sendHtml(ctx, failurePage(answer.body.error));
  }
}

function failurePage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sign-in failed</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5">
<h1>Single sign-on did not complete</h1><p>${escapeHtml(message)}</p>
<p><a href="/console">Back to the console</a></p></body></html>`;
}
