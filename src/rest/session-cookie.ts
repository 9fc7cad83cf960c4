import type Koa from 'koa';

// The console's session cookie and the rules under which a request may use it. The cookie is
// HttpOnly and SameSite=Strict; on top of that, a request that the cookie authenticates must come
// from the service's own pages: an Origin header naming this service, and (for GraphQL) a JSON body,
// which a cross-site form cannot send without a CORS preflight that this service never grants.

export const SESSION_COOKIE = 'aes_session';

/** `Set-Cookie` of a new session (a browser-session cookie: the server ends it after 12 idle hours). */
export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** `Set-Cookie` that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT${secure ? '; Secure' : ''}`;
}

/** True when cookies must be Secure: the public BASE_URL is https. */
export function secureCookies(baseUrl: string): boolean {
  return baseUrl.startsWith('https:');
}

/** The session cookie's value, if the request sent one. */
export function sessionValue(ctx: Koa.Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

/**
 * The origins the console's own pages have: BASE_URL's, and the one the request came to (its Host
 * header, as a browser on 127.0.0.1:<port> or behind a proxy that keeps Host sees it).
 */
function ownOrigins(ctx: Koa.Context, baseUrl: string): string[] {
  const origins = [new URL(baseUrl).origin];
  if (ctx.host) origins.push(`${ctx.protocol}://${ctx.host}`.toLowerCase());
  return origins;
}

/**
 * Why a request may not use the session cookie, or undefined when it may: it must carry an Origin
 * header of this service and, when `json` is asked for, Content-Type: application/json.
 */
export function sessionCsrfProblem(ctx: Koa.Context, baseUrl: string, opts: { json: boolean }): string | undefined {
  const how = 'the console session cookie is accepted only from the console itself';
  if (opts.json && ctx.method !== 'POST')
    return `${how}: send POST with Content-Type: application/json (or use Authorization: Bearer <member token>)`;
  const type = ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
  if (opts.json && type !== 'application/json')
    return `${how}: send Content-Type: application/json (this request's is ${type || 'missing'}), or use Authorization: Bearer <member token>`;
  const origin = ctx.get('origin').toLowerCase();
  if (!origin)
    return `${how}: the request has no Origin header (use Authorization: Bearer <member token> outside a browser)`;
  if (!ownOrigins(ctx, baseUrl).includes(origin)) return `${how}: Origin ${origin} is not this service's origin`;
  return undefined;
}
