import type Koa from 'koa';
import { presentedAgentKey } from '../../domain/core/credentials.js';
import type { Agent } from '../../domain/core/agent.entities.js';
import type { Surface } from '../../domain/core/surface.entities.js';
import type { Services } from '../../domain/services.js';
import type { SurfaceCaller } from '../../domain/surfaces/surface-access.js';
import type { Logger } from '../../infra/logger.js';
import { agentCors } from '../../rest/cors.js';
import { agentHere, tokenOriginOf, requestTenant } from '../../rest/tenant.middleware.js';
import { NotFound } from '../../domain/errors.js';
import { agentRouteFrame, type ErrorShape, type SurfaceState } from './activity.middleware.js';
import { canNameEntity, printableParam } from './http-io.js';

/** The authenticated caller of a surface route (set by {@link agentSurface}). */
export function callerOf(ctx: Koa.Context): SurfaceCaller {
  return (ctx.state as SurfaceState).caller!;
}

/**
 * The one preamble of every key-authenticated agent surface, mounted in front of each of its routes
 * (`/agents/:agentId/...`): the activity entry (outermost, see `activityEntry`) → the error mapper
 * → agent lookup → CORS for that agent (a preflight is answered here, before any key check:
 * browsers send none) → agent exists (404) → key valid for it (401) → surface on (403) →
 * `ctx.state.caller`.
 */
export function agentSurface(
  services: Services,
  surface: Surface,
  platformOrigins: string[],
  logger: Logger,
  shape?: ErrorShape,
): Koa.Middleware {
  const lookup = (ctx: Koa.Context): Promise<Agent | null> =>
    (ctx.state.agentLookup ??= canNameEntity(ctx.params.agentId!)
      ? services.surfaces.findAgent(ctx.params.agentId!).then((agent) => agentHere(ctx, agent))
      : Promise.resolve(null));
  const cors = agentCors(lookup, platformOrigins);
  const frame = agentRouteFrame(services, surface, logger, shape);

  const enter: Koa.Middleware = (ctx, next) =>
    cors(ctx, async () => {
      const state = ctx.state as SurfaceState;
      const agent = await lookup(ctx);
      if (agent) state.agent = agent;
      state.caller = await services.surfaces.enter(
        agent,
        printableParam(ctx.params.agentId!),
        surface,
        presentedAgentKey((h) => ctx.get(h)),
        tokenOriginOf(ctx),
      );
      state.caller.facts.span = state.call;
      await next();
    });

  return (ctx, next) => frame(ctx, () => enter(ctx, next));
}

/**
 * For the keyless agent routes that find their agent themselves (webhooks, SMS): on a tenant host,
 * an agent of another workspace is answered as one that does not exist (404), before anything runs.
 */
export function tenantAgentGate(services: Services): Koa.Middleware {
  return async (ctx, next) => {
    const id = ctx.params.agentId!;
    if (requestTenant(ctx) && canNameEntity(id) && !agentHere(ctx, await services.surfaces.findAgent(id)))
      throw new NotFound('Agent', printableParam(id));
    await next();
  };
}
