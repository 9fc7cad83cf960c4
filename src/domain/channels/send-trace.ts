import type { Message } from '../messages/message.entities.js';
import type { Span, SpanOptions } from '../tracing/call-trace.js';
import type { SpanContextRef, TraceHeaders } from '../tracing/span.types.js';
import { formatTraceparent, parseTraceparent } from '../tracing/trace-context.js';

/** Starts a span outside any call (the call lifecycle's tracer): exported when a collector is set, kept by no entry. */
export interface SendTracer {
  begin(name: string, parent: SpanContextRef | null, opts?: SpanOptions): Span;
}

/** The trace of one send attempt of a queued message. */
export interface SendAttemptTrace {
  /** What the provider's request carries; null when the message names no run's span (sent before traces). */
  headers: TraceHeaders | null;
  /** Ends the attempt's span: failed with the catalogue's code when the provider refused or was not reached. */
  end(failure?: { retry: boolean; error: string }): void;
}

const NONE: SendAttemptTrace = { headers: null, end: () => {} };

/**
 * A send attempt in the trace of the run that queued the message (`traceParent`): a `send {channel}`
 * client span, the child of that run's span, which the provider's request names; without a tracer,
 * the run's span itself. Each attempt (a retry too) is a span of its own in that trace.
 */
export function sendTrace(tracer: SendTracer | undefined, m: Message): SendAttemptTrace {
  const parent = parseTraceparent(m.traceParent);
  if (!parent) return NONE;
  if (!tracer) return { headers: { traceparent: formatTraceparent(parent) }, end: () => {} };
  const span = tracer.begin(`send ${m.channel}`, parent, {
    kind: 'client',
    attributes: {
      'messaging.operation.type': 'send',
      'aes.message.id': m.id,
      'aes.message.attempt': m.attempts,
      'aes.channel.id': m.channelId,
      'aes.workspace.id': m.workspaceId,
    },
  });
  const state = span.context.traceState;
  return {
    headers: { traceparent: span.traceparent(), ...(state ? { tracestate: state } : {}) },
    end: (failure) => {
      if (failure) span.failWith(failure.retry ? 'UNAVAILABLE' : 'INVALID', failure.error.slice(0, 500));
      span.end();
    },
  };
}
