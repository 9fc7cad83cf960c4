import Router from '@koa/router';
import type Koa from 'koa';
import { sendBuiltFile } from './built-file.js';

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
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    sendBuiltFile(
      ctx,
      { ...asset, type: 'application/javascript; charset=utf-8' },
      `public, max-age=${WIDGET_MAX_AGE_SECONDS}`,
    );
  });
  return router.routes() as Koa.Middleware;
}
