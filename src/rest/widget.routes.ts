import Router from '@koa/router';
import type Koa from 'koa';

/** The built chat widget (src/infra/widget/bundle.ts makes it). */
export interface WidgetAsset {
  code: Buffer;
  gzip: Buffer;
  etag: string;
}

/** How long browsers and CDNs may reuse widget.js before asking again (with its ETag). */
export const WIDGET_MAX_AGE_SECONDS = 300;

/**
 * `GET /widget.js` (public): the embeddable chat bubble, one script. Cached for five minutes and
 * revalidated by ETag, so a new version reaches the sites within minutes; gzip when the browser
 * takes it. Any site may embed it (`Cross-Origin-Resource-Policy: cross-origin`); it holds no
 * secret — the site's proxy does.
 */
export function widgetRoutes(widget: () => Promise<WidgetAsset>): Koa.Middleware {
  const router = new Router();
  router.get('/widget.js', async (ctx) => {
    const asset = await widget();
    ctx.set('Cache-Control', `public, max-age=${WIDGET_MAX_AGE_SECONDS}`);
    ctx.set('ETag', asset.etag);
    ctx.set('Vary', 'Accept-Encoding');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.type = 'application/javascript; charset=utf-8';
    // Koa judges freshness only for a 2xx status.
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = asset.gzip;
    } else {
      ctx.body = asset.code;
    }
  });
  return router.routes() as Koa.Middleware;
}
