import Router from '@koa/router';
import type Koa from 'koa';
import type { ConsoleBundle } from '../infra/console/bundle.js';
import { sendHtml } from './page-headers.js';
import { sendBuiltFile } from './built-file.js';

/**
 * The console's policy: its own script and stylesheet only (Mantine adds `<style>` elements, hence
 * inline styles; never inline script or eval), GraphQL and sign-in on this origin, never framed.
 * `frame-src 'self'`: the Chat widget tab frames the widget's preview page, the one page of this
 * origin that allows it (every other sends `frame-ancestors 'none'`).
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function shell(bundle: ConsoleBundle): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console — Agent Exposure Service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${bundle.stylesheet}">
<script type="module" src="/console/assets/${bundle.script}"></script>
</head><body><div id="root"></div>
<noscript>The console needs JavaScript.</noscript>
</body></html>`;
}

/**
 * `GET /console` and every page under it: the console's HTML shell (the page is chosen in the
 * browser); `GET /console/assets/<name>`: its script and stylesheet, cached for good (their names
 * change with their content).
 */
export function consoleRoutes(bundle: () => Promise<ConsoleBundle>): Koa.Middleware {
  const router = new Router();
  const page = async (ctx: Koa.Context) => {
    sendHtml(ctx, shell(await bundle()), CONSOLE_CSP);
    // With no-referrer, a browser sends `Origin: null` on the page's own POSTs, which the session's
    // CSRF rules refuse; same-origin still sends no referrer to anyone else.
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cache-Control', 'no-cache');
  };
  router.get('/console/assets/:name', async (ctx) => {
    const asset = (await bundle()).assets.get(ctx.params.name!);
    if (!asset) {
      ctx.status = 404;
      ctx.body = { error: `No console asset ${ctx.params.name}: reload /console` };
      return;
    }
    sendBuiltFile(
      ctx,
      { type: asset.contentType, code: asset.code, gzip: asset.gzip },
      'public, max-age=31536000, immutable',
    );
  });
  router.get('/console', page);
  router.get('/console/agents', page);
  router.get('/console/agents/:id', page);
  router.get('/console/agents/:id/:tab', page);
  router.get('/console/workspace', page);
  router.get('/console/workspace/:section', page);
  router.get('/console/account', page);
  router.get('/console/deployment', page);
  // An invitation's link: the page reads it with GET /console/invitation (invitation.routes.ts).
  router.get('/console/invitations/:token', page);
  return router.routes() as Koa.Middleware;
}
