import Router from '@koa/router';
import type Koa from 'koa';
import { DomainError, MethodNotAllowed, Unauthenticated, Unavailable } from '../../domain/errors.js';
import type { Agent } from '../../domain/agents/agent.entities.js';
import type { Webhook } from '../../domain/entries/entry.entities.js';
import type { Services } from '../../domain/services.js';
import { bodyLimit, bodyTooLarge } from '../../domain/webhooks/body-limit.js';
import type { SignatureCheck } from '../../domain/webhooks/signatures.js';
import { deliveryNotStored } from '../../domain/webhooks/webhook.service.js';
import type { Logger } from '../../infra/logger.js';
import { statusOf } from '../errors.js';
import { canNameEntity, printableParam } from './http-io.js';

const METHODS = ['POST', 'PUT', 'PATCH', 'GET'];
/**
 * The most a signed body may be read for its signature check. A body over the integration's limit
 * is refused (413), but only after its signature is checked, which needs every byte; past this
 * bound the request is refused unread instead.
 */
export const MAX_VERIFIED_BYTES = 8 * 1024 * 1024;

interface ReadBody {
  raw: Buffer;
  /** More than the integration's limit was sent: nothing is kept, the request ends in 413 after the checks before it. */
  tooLarge: boolean;
}

function tooLarge(ctx: Koa.Context, webhook: Webhook): DomainError {
  ctx.set('Connection', 'close');
  return bodyTooLarge(webhook);
}

/**
 * Reads the raw body byte-exact, feeding every chunk to the signature check, and keeps it only up
 * to the integration's limit (`bodyLimit`: 64 KiB without a signature unless maxBodyBytes says
 * otherwise, 1 MiB with one). Without a check, reading stops as soon as the body is known to be
 * over the limit, so nothing past it is buffered; with one, the whole body is hashed (up to
 * MAX_VERIFIED_BYTES) so that a bad signature is a 401 whatever the size.
 */
async function readBody(ctx: Koa.Context, webhook: Webhook, check: SignatureCheck | null): Promise<ReadBody> {
  const limit = bodyLimit(webhook);
  const hardLimit = check ? MAX_VERIFIED_BYTES : limit;
  const refused = () => {
    ctx.set('Connection', 'close');
    return { raw: Buffer.alloc(0), tooLarge: true };
  };
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > hardLimit) {
    if (check) throw tooLarge(ctx, webhook);
    return refused();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req) {
    const c = chunk as Buffer;
    total += c.length;
    if (total > hardLimit) {
      if (check) throw tooLarge(ctx, webhook);
      return refused();
    }
    check?.update(c);
    if (total <= limit) chunks.push(c);
  }
  return total > limit ? { raw: Buffer.alloc(0), tooLarge: true } : { raw: Buffer.concat(chunks), tooLarge: false };
}

/**
 * `/agents/{agentId}/webhook/{integration}` — keyless; the URL routes the call. Order (DESIGN §6):
 * agent and integration (404) → method (405) → signature when the integration has one (401) →
 * surface on (403) → body size (413, over the integration's `bodyLimit`) → durable store →
 * `200 {received, deliveryId}`. The run comes later, from the queue. A sender never sees 429 or
 * 500: a delivery that cannot be stored is a 503 with Retry-After, so the sender keeps it and
 * sends it again.
 */
export function webhookRoutes(services: Services, logger: Logger): Koa.Middleware {
  const router = new Router();
  router.all('/agents/:agentId/webhook/:integration', async (ctx) => {
    const started = Date.now();
    const agentId = ctx.params.agentId!;
    const integration = ctx.params.integration!;
    let agent: Agent | null = null;
    let failure: unknown;
    let payload: unknown;
    try {
      try {
        agent = canNameEntity(agentId) ? await services.surfaces.findAgent(agentId) : null;
        const webhook = await services.webhooks.resolve(agent, printableParam(agentId), printableParam(integration));
        if (!METHODS.includes(ctx.method)) throw new MethodNotAllowed(METHODS);
        const check = await services.webhooks.signatureCheck(agent!, webhook, (name) => ctx.get(name) || undefined);
        const body = await readBody(ctx, webhook, check);
        if (check && !check.verify()) throw new Unauthenticated('Webhook signature check failed: the signature does not match the body');
        services.webhooks.assertOn(agent!);
        if (body.tooLarge) throw tooLarge(ctx, webhook);
        const received = await services.webhooks.receive(agent!, webhook, {
          method: ctx.method,
          path: ctx.path,
          query: ctx.query as Record<string, string | string[]>,
          headers: ctx.headers,
          rawBody: body.raw,
        });
        payload = received.payload;
        const a = received.answer;
        ctx.body = 'challenge' in a ? { challenge: a.challenge } : a.duplicate ? { received: true, deliveryId: a.delivery.id, duplicate: true } : { received: true, deliveryId: a.delivery.id };
      } catch (err) {
        // A refusal stands; an unreachable database (whichever lookup met it first) or any other
        // failure means the delivery was not stored, and the sender is told so and retries.
        if (err instanceof DomainError && !(err instanceof Unavailable)) throw err;
        // An outage is reported once per request at warn (the outage itself is the error); anything else is a bug.
        if (err instanceof Unavailable) logger.warn({ requestId: ctx.state.requestId, path: ctx.path, error: err.message }, 'webhook delivery not stored');
        else logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'webhook delivery not stored');
        throw deliveryNotStored();
      }
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      if (agent) {
        const a: Agent = agent;
        services.activityLog.record(a, {
          surface: 'WEBHOOKS',
          entry: printableParam(integration),
          method: ctx.method,
          path: ctx.path,
          status: failure === undefined ? ctx.status : statusOf(failure),
          requestHeaders: ctx.headers,
          requestBody: payload,
          response: failure === undefined ? ctx.body : { error: failure instanceof DomainError ? failure.message : 'Internal server error' },
          durationMs: Date.now() - started,
          error: failure instanceof DomainError ? failure.message : null,
        });
      }
    }
  });
  return router.routes() as Koa.Middleware;
}
