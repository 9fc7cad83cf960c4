import type Koa from 'koa';
import type { ServiceMetrics } from '../infra/metrics.js';

// The HTTP side of the instance's metrics: counting every request and serving `GET /metrics`. The
// registry and its series live in src/infra/metrics.ts.

/** The surface label of a request the agent surfaces did not label themselves. */
function surfaceOf(path: string): string {
  if (path === '/graphql') return 'GRAPHQL';
  if (path.startsWith('/workspaceapi/')) return 'WORKSPACE_API';
  if (path === '/healthz' || path === '/readyz' || path === '/metrics') return 'HEALTH';
  return 'OTHER';
}

/**
 * Counts and times every request: when its answer has been sent (a stream: when it ends, or the
 * client goes away). Agent surfaces name themselves in `ctx.state.surface`.
 */
export function metricsMiddleware(metrics: ServiceMetrics): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    // 'close' follows every response, sent in full or cut off (a stream ends there too), and only
    // once: `on` spares the wrapper `once` makes.
    ctx.res.on('close', () => {
      const state = ctx.state as { surface?: string; refusal?: string };
      const status = ctx.res.statusCode;
      metrics.request({ surface: state.surface ?? surfaceOf(ctx.path), status }, (performance.now() - started) / 1000);
      if (status === 429 && state.refusal) metrics.refused(state.refusal);
    });
    await next();
  };
}

/** `GET /metrics`: the Prometheus text format. */
export function metricsRoute(metrics: ServiceMetrics): Koa.Middleware {
  return async (ctx) => {
    const { contentType, text } = await metrics.text();
    ctx.set('Content-Type', contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = text;
  };
}
