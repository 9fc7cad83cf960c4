import {
  createTraceState,
  ROOT_CONTEXT,
  SpanKind as OtelKind,
  SpanStatusCode,
  trace,
  type Link,
  type Span as OtelSpan,
} from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import type { SpanContextRef, SpanKind } from '../../domain/tracing/span.types.js';
import type { ExportedSpan, SpanExport } from '../../domain/tracing/trace.ports.js';
import type { TracingConfig } from './otel-config.js';

const KINDS: Record<SpanKind, OtelKind> = {
  server: OtelKind.SERVER,
  client: OtelKind.CLIENT,
  consumer: OtelKind.CONSUMER,
  internal: OtelKind.INTERNAL,
};

function samplerOf({ name, ratio }: TracingConfig['sampler']): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** The OpenTelemetry form of a W3C span context (one the caller sent is remote). */
function otelContext(ref: SpanContextRef, isRemote: boolean) {
  return {
    traceId: ref.traceId,
    spanId: ref.spanId,
    traceFlags: ref.traceFlags,
    isRemote,
    ...(ref.traceState ? { traceState: createTraceState(ref.traceState) } : {}),
  };
}

class OtelSpanHandle implements ExportedSpan {
  readonly context: SpanContextRef;

  constructor(private readonly span: OtelSpan) {
    const c = span.spanContext();
    const state = c.traceState?.serialize();
    this.context = {
      traceId: c.traceId,
      spanId: c.spanId,
      traceFlags: c.traceFlags,
      ...(state ? { traceState: state } : {}),
    };
  }

  set(attributes: Record<string, string | number | boolean | string[]>): void {
    this.span.setAttributes(attributes);
  }

  fail(code: string, message: string): void {
    this.span.setAttribute('error.type', code);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(endMs: number): void {
    this.span.end(endMs);
  }
}

/** A span export over the OpenTelemetry SDK: batched to an OTLP/HTTP endpoint. */
export interface OtelTracing extends SpanExport {
  /** Sends what is buffered and stops (the service's shutdown). */
  shutdown(): Promise<void>;
}

/**
 * The OpenTelemetry SDK for one service: its own tracer provider (not registered globally, so
 * several services in one process — the tests — each export where they are told), a batch span
 * processor and the OTLP/HTTP exporter (protobuf or JSON), the sampler and resource of the
 * standard variables. Spans are made with explicit parents: no context manager, no patching.
 */
export function otelTracing(config: TracingConfig, serviceVersion: string): OtelTracing {
  const exporterConfig = { url: config.url, headers: config.headers, timeoutMillis: config.timeoutMillis };
  const exporter =
    config.protocol === 'http/json' ? new JsonExporter(exporterConfig) : new ProtobufExporter(exporterConfig);
  const provider = new BasicTracerProvider({
    sampler: samplerOf(config.sampler),
    resource: resourceFromAttributes({
      ...config.resourceAttributes,
      'service.name': config.serviceName,
      'service.version': serviceVersion,
    }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.scheduleDelayMillis })],
  });
  const tracer = provider.getTracer('agent-exposure-service', serviceVersion);
  return {
    captureContent: config.captureContent,
    latestGenAi: config.latestGenAi,
    start({ name, kind, parent, remoteParent, links, startMs, attributes }) {
      const ctx = parent ? trace.setSpanContext(ROOT_CONTEXT, otelContext(parent, remoteParent)) : ROOT_CONTEXT;
      const otelLinks: Link[] = links.map((l) => ({ context: otelContext(l, true) }));
      const span = tracer.startSpan(name, { kind: KINDS[kind], attributes, links: otelLinks, startTime: startMs }, ctx);
      return new OtelSpanHandle(span);
    },
    shutdown: () => provider.shutdown(),
  };
}
