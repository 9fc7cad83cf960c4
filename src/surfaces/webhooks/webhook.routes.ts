import Router from '@koa/router';
import type Koa from 'koa';
import { Unavailable } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import { DeliveryNotStored } from '../../domain/webhooks/webhook-receipt.service.js';
import type { Logger } from '../../infra/logger.js';
import { agentRouteFrame, type SurfaceState } from '../shared/activity.middleware.js';
import { printableParam } from '../shared/http-io.js';
import { tenantAgentGate } from '../shared/surface.middleware.js';

/**
 * `/agents/{agentId}/webhook/{integration}` — keyless; the URL routes the call. The receipt (its
 * order of checks, the durable store, the 503 for a delivery not stored) is the domain's
 * (WebhookReceiptService); this adapter hands it the request and answers. The run comes later,
 * from the queue. The request's activity entry is written by the frame every agent route has.
 */
export function webhookRoutes(services: Services, logger: Logger): Koa.Middleware {
  const router = new Router();
  const gate = tenantAgentGate(services);
  router.all(
    '/agents/:agentId/webhook/:integration',
    agentRouteFrame(services, 'WEBHOOKS', logger),
    gate,
    async (ctx) => {
      const receipt = await services.webhookReceipt.receive(ctx.params.agentId!, ctx.params.integration!, {
        method: ctx.method,
        path: ctx.path,
        query: ctx.query as Record<string, string | string[]>,
        headers: ctx.headers,
        header: (name) => ctx.get(name) || undefined,
        contentLength: Number(ctx.get('content-length') || 0),
        body: ctx.req,
        traceparent: (ctx.state as SurfaceState).call?.span().traceparent(),
      });
      const state = ctx.state as SurfaceState;
      if (receipt.agent) state.agent = receipt.agent;
      state.facts = {
        entry: printableParam(ctx.params.integration!),
        requestBody: 'payload' in receipt ? receipt.payload : undefined,
      };
      if (receipt.endConnection) ctx.set('Connection', 'close');
      if ('refused' in receipt) {
        if (receipt.refused instanceof DeliveryNotStored) logNotStored(logger, ctx, receipt.refused.reason);
        throw receipt.refused;
      }
      const a = receipt.answer;
      // The receipt's entry names its delivery, as each run's entry will: the list folds them into one row.
      if ('delivery' in a) state.facts.deliveryId = a.delivery.id;
      ctx.body =
        'challenge' in a
          ? { challenge: a.challenge }
          : a.duplicate
            ? { received: true, deliveryId: a.delivery.id, duplicate: true }
            : { received: true, deliveryId: a.delivery.id };
    },
  );
  return router.routes() as Koa.Middleware;
}

/** An outage is reported once per request at warn (the outage itself is the error); anything else is a bug. */
function logNotStored(logger: Logger, ctx: Koa.Context, reason: unknown): void {
  if (reason instanceof Unavailable)
    logger.warn(
      { requestId: ctx.state.requestId, path: ctx.path, error: reason.message },
      'webhook delivery not stored',
    );
  else logger.error({ err: reason, requestId: ctx.state.requestId, path: ctx.path }, 'webhook delivery not stored');
}
