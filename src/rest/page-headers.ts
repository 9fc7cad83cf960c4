import type Koa from 'koa';

/**
 * The Content-Security-Policy of the service's own small pages (`/`, `/graphql`): its own scripts
 * only, inline styles, requests to itself, never framed.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The policy of `/docs` (Swagger UI, where a person types an agent key): the same, plus its
 * stylesheet and the `data:` images and fonts it inlines. "Try it out" calls the service itself.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The policy of `/graphql` in a browser (GraphiQL with the Monaco editor): scripts and Monaco's
 * workers from this origin only (no inline script, no eval), its stylesheet plus the inline styles
 * Monaco and GraphiQL set at run time, Monaco's icon font, and requests to this origin.
 */
export const GRAPHIQL_CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/** Sets the headers every HTML page of the service sends: its CSP, no framing (also for browsers without CSP), no sniffing, no referrer. */
export function sendHtml(ctx: Koa.Context, html: string, csp: string = PAGE_CSP): void {
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = html;
}
