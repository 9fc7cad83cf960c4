import type Koa from 'koa';
import type { Logger } from '../infra/logger.js';

/**
 * One JSON line per request, once its answer is sent (a stream: once it ends): the request id,
 * method, path (without its query string, which may carry a widget's key), status, duration and the
 * surface. A caller that goes away before its answer is complete is logged at info — it is the
 * caller's choice, not a fault of the service. No header or body is logged.
 */
export function requestLog(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    if (!logger.isLevelEnabled('info')) return next();
    const started = Date.now();
    // 'close' follows every response: sent in full (writableFinished), or cut off.
    ctx.res.once('close', () => {
      const completed = ctx.res.writableFinished;
      const fields = {
        requestId: ctx.state.requestId as string,
        method: ctx.method,
        path: ctx.path,
        status: ctx.res.statusCode,
        durationMs: Date.now() - started,
        surface: (ctx.state.surface as string | undefined) ?? null,
      };
      if (completed) logger.info(fields, 'request');
      else logger.info(fields, 'request: the client went away before the answer was complete');
    });
    await next();
  };
}
