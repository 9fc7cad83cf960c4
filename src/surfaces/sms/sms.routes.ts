import Router from '@koa/router';
import { publicBaseUrl } from '../../rest/tenant.middleware.js';
import type Koa from 'koa';
import type { SmsCallback, SmsReceipt } from '../../domain/channels/sms-receipt.service.js';
import { refusalOf } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';
import type { Services } from '../../domain/services.js';
import type { Logger } from '../../infra/logger.js';
import { agentRouteFrame, type SurfaceState } from '../shared/activity.middleware.js';
import { encodeTwilioAnswer } from './twilio.errors.js';
import { printableParam, readRaw } from '../shared/http-io.js';
import { tenantAgentGate } from '../shared/surface.middleware.js';

/** The largest callback form accepted (a text message is at most 1600 characters; the provider adds a few dozen fields). */
const MAX_FORM_BYTES = 64 * 1024;

/** A refusal as the provider's answer (`encodeTwilioAnswer`), over the frame's HTTP answer. */
function twilioErrorShape(ctx: Koa.Context): void {
  const failure = (ctx.state as SurfaceState).failure;
  if (!(failure instanceof DomainError)) return;
  const answer = encodeTwilioAnswer(refusalOf(failure));
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.body = answer.body;
}

/**
 * `/agents/{agentId}/sms` and `/agents/{agentId}/sms/status` — a Twilio-compatible provider's
 * callbacks, keyless: the `X-Twilio-Signature` over the URL the provider called (BASE_URL and the
 * path, as it sees it behind a proxy) and the form is the authentication. A received message is
 * answered at once with empty TwiML; the agent's answer goes out later through the Messages API.
 * The order of checks and the storing are the domain's (SmsReceiptService).
 */
export function smsRoutes(services: Services, baseUrl: string, logger: Logger): Koa.Middleware {
  const router = new Router();
  const frame = agentRouteFrame(services, 'SMS', logger, twilioErrorShape);
  const gate = tenantAgentGate(services);
  const callback = async (ctx: Koa.Context): Promise<SmsCallback> => {
    // URLSearchParams decodes bytes as UTF-8 (bad sequences become U+FFFD): no unpaired surrogate reaches storage.
    const form = new URLSearchParams((await readRaw(ctx, MAX_FORM_BYTES)).toString('utf8'));
    return {
      url: `${publicBaseUrl(ctx, baseUrl)}${ctx.originalUrl}`,
      params: Object.fromEntries(form),
      signature: ctx.get('x-twilio-signature') || undefined,
      traceparent: (ctx.state as SurfaceState).call?.span().traceparent(),
    };
  };
  const settle = (ctx: Koa.Context, receipt: SmsReceipt) => {
    const state = ctx.state as SurfaceState;
    if (receipt.agent) state.agent = receipt.agent;
    const m = receipt.message;
    // The entry is the channel's own number: the recipient of a received message, the sender of a sent one.
    state.facts = {
      entry: m ? (m.direction === 'inbound' ? m.to : m.from) : undefined,
      requestBody: m ? { from: m.from, to: m.to, body: m.body, status: m.status } : undefined,
    };
    if (receipt.refused) throw receipt.refused;
  };
  router.post('/agents/:agentId/sms', frame, gate, async (ctx) => {
    settle(ctx, await services.smsReceipt.receive(printableParam(ctx.params.agentId!), await callback(ctx)));
    ctx.type = 'text/xml';
    ctx.body = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
  });
  router.post('/agents/:agentId/sms/status', frame, gate, async (ctx) => {
    settle(ctx, await services.smsReceipt.status(printableParam(ctx.params.agentId!), await callback(ctx)));
    ctx.status = 204;
  });
  return router.routes() as Koa.Middleware;
}
