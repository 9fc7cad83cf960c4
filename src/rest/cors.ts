import type Koa from 'koa';
import type { Agent } from '../domain/core/agent.entities.js';
import { platformOriginsHere } from './tenant.middleware.js';

const ALLOWED_HEADERS =
  'Content-Type, Authorization, X-Agent-Access-Key, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, X-Visitor-Id';
const EXPOSED_HEADERS = 'Retry-After, RateLimit, RateLimit-Policy, X-Run-Id, X-Request-Id, Allow';

/** Whether a browser origin may call this agent: platform apps when allowed, plus custom origins. */
export function originAllowed(agent: Agent, origin: string, platformOrigins: string[]): boolean {
  if (agent.cors.allowPlatformApps && platformOrigins.includes(origin)) return true;
  return agent.cors.customOrigins.includes(origin);
}

/**
 * Per-agent CORS for the key-based REST surfaces. A preflight is answered here (before any key
 * check: browsers send none); an allowed origin gets the CORS headers, any other origin none, so
 * the browser blocks it. Requests without an Origin header (servers) are untouched.
 */
export function agentCors(
  loadAgent: (ctx: Koa.Context) => Promise<Agent | null>,
  platformOrigins: string[],
): Koa.Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (!origin) return next();
    const agent = await loadAgent(ctx);
    const allowed = agent !== null && originAllowed(agent, origin, platformOriginsHere(ctx, platformOrigins));
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.status = 204;
      if (allowed) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE');
        ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        ctx.set('Access-Control-Max-Age', '600');
      }
      return;
    }
    if (allowed) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    return next();
  };
}
