import type Koa from 'koa';
import type { Agent, Surface } from '../../domain/model.js';
import type { Services } from '../../domain/services.js';
import { DomainError } from '../../domain/errors.js';
import { statusOf } from '../errors.js';

/** What a surface route learned while handling a request, for its activity entry. */
export interface ActivityState {
  agent?: Agent;
  entry?: string;
  keyId?: string | null;
  requestBody?: unknown;
  response?: unknown;
  credits?: number;
  runId?: string;
  error?: string;
  logs?: string[];
}

/**
 * Writes one activity entry per request of a surface, whatever the outcome (refusals included),
 * once the agent is known. Sits inside the error mapper, so it sees errors before they are mapped.
 */
export function surfaceActivity(services: Services, surface: Surface): Koa.Middleware {
  return async (ctx, next) => {
    const started = Date.now();
    const state: ActivityState = {};
    ctx.state.activity = state;
    let failure: unknown;
    const failureMessage = () => (failure instanceof DomainError ? failure.message : 'Internal server error');
    try {
      await next();
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      if (state.agent) {
        services.activityLog.record(state.agent, {
          surface,
          entry: state.entry ?? null,
          method: ctx.method,
          path: ctx.path,
          status: failure ? statusOf(failure) : state.error && ctx.status === 200 ? 500 : ctx.status,
          requestHeaders: ctx.headers,
          requestBody: state.requestBody,
          response: failure ? { error: failureMessage() } : state.response ?? ctx.body,
          credits: state.credits ?? 0,
          durationMs: Date.now() - started,
          keyId: state.keyId ?? null,
          runId: state.runId ?? null,
          error: failure ? failureMessage() : state.error ?? null,
          logs: state.logs ?? null,
        });
      }
    }
  };
}
