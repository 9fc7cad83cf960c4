import Router from '@koa/router';
import type Koa from 'koa';
import { Unavailable, type DomainError } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { DeliveryNotStored, type Receipt } from '../../domain/webhooks/webhook-receipt.service.js';
import type { Logger } from '../../infra/logger.js';
import { statusOf } from '../errors.js';
import { printableParam } from './http-io.js';

/**
 * `/agents/{agentId}/webhook/{integration}` — keyless; the URL routes the call. The receipt (its
 * order of checks, the durable store, the 503 for a delivery not stored) is the domain's
 * (WebhookReceiptService); this adapter hands it the request and answers. The run comes later,
 * from the queue.
 */
export function webhookRoutes(services: Services, logger: Logger): Koa.Middleware {
  const router = new Router();
  router.all('/agents/:agentId/webhook/:integration', async (ctx) => {
    const started = Date.now();
    const receipt = await services.webhookReceipt.receive(ctx.params.agentId!, ctx.params.integration!, {
      method: ctx.method,
      path: ctx.path,
      query: ctx.query as Record<string, string | string[]>,
      headers: ctx.headers,
      header: (name) => ctx.get(name) || undefined,
      contentLength: Number(ctx.get('content-length') || 0),
      body: ctx.req,
    });
    if (receipt.endConnection) ctx.set('Connection', 'close');
    if ('refused' in receipt) {
      if (receipt.refused instanceof DeliveryNotStored) logNotStored(logger, ctx, receipt.refused.cause);
      recordActivity(services, ctx, receipt, started);
      throw receipt.refused;
    }
    const a = receipt.answer;
    ctx.body = 'challenge' in a ? { challenge: a.challenge } : a.duplicate ? { received: true, deliveryId: a.delivery.id, duplicate: true } : { received: true, deliveryId: a.delivery.id };
    recordActivity(services, ctx, receipt, started);
  });
  return router.routes() as Koa.Middleware;
}

/** An outage is reported once per request at warn (the outage itself is the error); anything else is a bug. */
function logNotStored(logger: Logger, ctx: Koa.Context, cause: unknown): void {
  if (cause instanceof Unavailable) logger.warn({ requestId: ctx.state.requestId, path: ctx.path, error: cause.message }, 'webhook delivery not stored');
  else logger.error({ err: cause, requestId: ctx.state.requestId, path: ctx.path }, 'webhook delivery not stored');
}

/** The request's activity entry (when the agent exists), from the receipt: its status, payload and answer or refusal. */
function recordActivity(services: Services, ctx: Koa.Context, receipt: Receipt, started: number): void {
  if (!receipt.agent) return;
  const failure: DomainError | undefined = 'refused' in receipt ? receipt.refused : undefined;
  services.activityLog.record(receipt.agent, {
    surface: 'WEBHOOKS',
    entry: printableParam(ctx.params.integration!),
    method: ctx.method,
    path: ctx.path,
    status: failure === undefined ? ctx.status : statusOf(failure),
    requestHeaders: ctx.headers,
    requestBody: 'payload' in receipt ? receipt.payload : undefined,
    response: failure === undefined ? ctx.body : { error: failure.message },
    durationMs: Date.now() - started,
    error: failure === undefined ? null : failure.message,
  });
}
