import type http from 'node:http';
import { metricsText, type ServiceMetrics } from './metrics.js';

/** The METRICS_PORT listener: `GET /metrics` and nothing else. */
export async function serveMetrics(
  metrics: ServiceMetrics,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'Not found: this port serves GET /metrics' }));
    return;
  }
  try {
    const { contentType, text } = await metricsText(metrics);
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(text);
  } catch {
    res
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'Metrics could not be collected' }));
  }
}
