// A run's spans as the domain records them (issue 53, docs/tracing.md). The same spans go to an
// OpenTelemetry collector when one is configured (src/infra/tracing); these records are what the
// activity entry keeps for the console's timeline, collector or not.

export type SpanKind = 'server' | 'client' | 'consumer' | 'internal';

/** An attribute's value, as OpenTelemetry takes them. */
export type AttrValue = string | number | boolean | string[];

export type Attributes = Record<string, AttrValue>;

/** A W3C trace context: the ids of a span another span can be the child of or link to. */
export interface SpanContextRef {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** W3C trace flags (bit 0: sampled). */
  traceFlags: number;
  traceState?: string;
}

/** A finished span as the activity entry keeps it (times in milliseconds since the epoch). */
export interface SpanRecord {
  spanId: string;
  /** The parent span's id: another span of the entry, or the caller's (not in the entry); null for a root. */
  parentSpanId: string | null;
  name: string;
  kind: SpanKind;
  startMs: number;
  durationMs: number;
  attributes: Attributes;
  /** Set when the span's work failed: the error catalogue's code and the message. */
  error?: { code: string; message: string };
  /** A tool's input and output, redacted as the log is (the timeline shows them). */
  input?: unknown;
  output?: unknown;
}

/** The spans an entry keeps at most: a run with more tool calls keeps its first ones and says how many it left out. */
export const MAX_SPANS_PER_ENTRY = 200;

/** The W3C trace context an outgoing request carries (a queued message's send attempt): header values. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}
