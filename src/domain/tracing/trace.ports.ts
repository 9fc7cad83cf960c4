import type { Attributes, SpanContextRef, SpanKind } from './span.types.js';

/**
 * Where spans are exported as they happen: src/infra/tracing implements it over the OpenTelemetry
 * SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set; absent otherwise (the spans are then only recorded
 * for the activity entry, at the cost of a few objects per run).
 */
export interface SpanExport {
  start(span: {
    name: string;
    kind: SpanKind;
    parent: SpanContextRef | null;
    /** Whether the parent is the caller's (another process's) rather than a span of this call. */
    remoteParent: boolean;
    links: SpanContextRef[];
    startMs: number;
    attributes: Attributes;
  }): ExportedSpan;
  /** Whether message content may be exported (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
  readonly captureContent: boolean;
  /** Whether the latest experimental GenAI conventions were asked for (OTEL_SEMCONV_STABILITY_OPT_IN). */
  readonly latestGenAi: boolean;
}

/** A span of the exporter: its ids are the ones the records keep. */
export interface ExportedSpan {
  readonly context: SpanContextRef;
  set(attributes: Attributes): void;
  fail(code: string, message: string): void;
  end(endMs: number): void;
}
