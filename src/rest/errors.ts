import type Koa from 'koa';
import { refusalOf } from '../domain/error-catalogue.js';
import { DomainError, Unavailable } from '../domain/errors.js';
import type { Logger } from '../infra/logger.js';
import { encodeHttpError } from '../surfaces/shared/http.errors.js';
import { malformedJsonMessage } from './json-syntax.js';

/**
 * The one HTTP error mapper: domain errors become their catalogue entry's HTTP answer
 * (`encodeHttpError`: status, `{"error": message}`, `reason` and Retry-After on 429, …); client errors raised by Koa middleware (body parser:
 * 400/413/415) keep their status; everything else is a logged 500 with a generic message. The
 * answered error is left in `ctx.state.failure`. Every agent router mounts its own instance inside
 * its activity entry (see `agentSurface`); the app mounts one for everything else.
 */
export function errorMapper(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      // A database that cannot be reached (infra translated it to Unavailable and kept the driver's
      // error as its cause): 503 with Retry-After below; the instance recovers by itself.
      if (err instanceof Unavailable && err.cause !== undefined)
        logger.warn(
          {
            requestId: ctx.state.requestId,
            path: ctx.path,
            error: err.cause instanceof Error ? err.cause.message.slice(0, 200) : String(err.cause),
          },
          'database unavailable',
        );
      // The agent routes' activity entry reads what was answered, and why.
      ctx.state.failure = err;
      const e = err as { status?: number; expose?: boolean; message?: string };
      if (err instanceof DomainError) {
        const refusal = refusalOf(err);
        const answer = encodeHttpError(refusal);
        if (refusal.reason) ctx.state.refusal = refusal.reason;
        ctx.status = answer.status;
        ctx.set(answer.headers);
        ctx.body = answer.body;
      } else if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
        ctx.status = e.status;
        ctx.body = {
          error: clientMessage(
            e.status,
            err instanceof SyntaxError ? String((err as { body?: unknown }).body ?? '') : undefined,
            e.expose ? e.message : undefined,
          ),
        };
      } else {
        logger.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'request failed');
        ctx.status = 500;
        ctx.body = { error: `Internal server error (request ${ctx.state.requestId ?? 'unknown'})` };
      }
    }
  };
}

/** @param unparsed the body of a SyntaxError (the JSON body parser's 400), else undefined */
function clientMessage(status: number, unparsed: string | undefined, message: string | undefined): string {
  if (status === 413) return 'Request body is too large (limit 1 MiB)';
  if (status === 415) return 'Unsupported content type: send application/json';
  // The JSON body parser reports unparsable bodies as a SyntaxError with status 400 and the text as `body`.
  if (status === 400 && unparsed !== undefined) return malformedJsonMessage(unparsed);
  return message ?? 'Bad request';
}
