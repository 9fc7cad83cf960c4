import type Koa from 'koa';

/** A file the service built in memory (the widget, GraphiQL, the console), plain and gzipped. */
export interface BuiltFile {
  type: string;
  code: Buffer;
  gzip: Buffer;
  /** Present for files served under a fixed name: a revalidation with it answers 304. */
  etag?: string;
}

/**
 * Sends a built file: its cache policy, `nosniff`, gzip when the client takes it, and 304 for a
 * fresh ETag. One function for every bundle the service serves.
 */
export function sendBuiltFile(ctx: Koa.Context, file: BuiltFile, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  if (file.etag) ctx.set('ETag', file.etag);
  ctx.set('Vary', 'Accept-Encoding');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = file.type;
  // Koa judges freshness only for a 2xx status.
  ctx.status = 200;
  if (file.etag && ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = file.gzip;
  } else {
    ctx.body = file.code;
  }
}
