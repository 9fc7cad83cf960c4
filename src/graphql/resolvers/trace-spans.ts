import type { SpanRecord } from '../../domain/tracing/span.types.js';
import type { RunSpan } from './trace.types.js';

/** Stored span records as GraphQL spans, with each one's offset from the first span's start. */
export function runSpans(records: readonly SpanRecord[] | null | undefined): RunSpan[] {
  if (!records?.length) return [];
  const origin = Math.min(...records.map((r) => r.startMs));
  return records.map((r) => ({
    spanId: r.spanId,
    parentSpanId: r.parentSpanId,
    name: r.name,
    kind: r.kind,
    startedAt: new Date(Math.floor(r.startMs)),
    offsetMs: round(r.startMs - origin),
    durationMs: round(r.durationMs),
    attributes: r.attributes,
    error: r.error ?? null,
    input: r.input ?? null,
    output: r.output ?? null,
  }));
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
