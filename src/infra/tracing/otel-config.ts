/**
 * Tracing's configuration from the standard OpenTelemetry environment variables (docs/tracing.md):
 * off unless an OTLP endpoint is set. Only what the service exports is read: traces over OTLP/HTTP,
 * as protobuf or JSON.
 */
export interface TracingConfig {
  /** The traces URL (…/v1/traces). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  timeoutMillis: number;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: { name: SamplerName; ratio: number };
  /** OTEL_SEMCONV_STABILITY_OPT_IN names gen_ai_latest_experimental. */
  latestGenAi: boolean;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. */
  captureContent: boolean;
  /** OTEL_BSP_SCHEDULE_DELAY: how long the batch processor waits before it sends (default 5000 ms). */
  scheduleDelayMillis: number;
}

export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

const DEFAULT_SERVICE_NAME = 'agent-exposure-service';

/** Comma-separated `key=value` pairs with percent-encoded values (the W3C Baggage form the spec uses). */
function pairs(text: string | undefined, what: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  if (!text) return out;
  for (const part of text.split(',')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return `${what}: expected key=value pairs separated by commas`;
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return `${what}: a value is not valid percent-encoding`;
    }
  }
  return out;
}

/** The tracing configuration, null when tracing is off, or a sentence saying what is wrong. */
export function tracingConfigOf(env: Record<string, string | undefined>): TracingConfig | null | string {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((s) => s.trim().toLowerCase());
  if (exporters.includes('none')) return null;
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!signal && !base) return null;
  // The signal's own endpoint is used as it is; the general one gets the signal's path.
  const url = signal ?? `${base!.replace(/\/+$/, '')}/v1/traces`;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'OTEL_EXPORTER_OTLP_ENDPOINT: an http or https URL';
  } catch {
    return 'OTEL_EXPORTER_OTLP_ENDPOINT: not a URL';
  }
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    return `OTEL_EXPORTER_OTLP_PROTOCOL: '${protocol}' is not supported; use http/protobuf or http/json`;
  const headers = pairs(
    env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS,
    'OTEL_EXPORTER_OTLP_HEADERS',
  );
  if (typeof headers === 'string') return headers;
  const resourceAttributes = pairs(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES');
  if (typeof resourceAttributes === 'string') return resourceAttributes;
  const timeout = Number(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000);
  if (!Number.isInteger(timeout) || timeout <= 0 || timeout > 600_000)
    return 'OTEL_EXPORTER_OTLP_TIMEOUT: milliseconds, from 1 to 600000';
  const samplerName = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  if (!(SAMPLERS as readonly string[]).includes(samplerName))
    return `OTEL_TRACES_SAMPLER: one of ${SAMPLERS.join(', ')}`;
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 5000);
  if (!Number.isInteger(delay) || delay < 0 || delay > 600_000)
    return 'OTEL_BSP_SCHEDULE_DELAY: milliseconds, from 0 to 600000';
  const ratio = env.OTEL_TRACES_SAMPLER_ARG === undefined ? 1 : Number(env.OTEL_TRACES_SAMPLER_ARG);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) return 'OTEL_TRACES_SAMPLER_ARG: a ratio from 0 to 1';
  return {
    url,
    protocol,
    headers,
    timeoutMillis: timeout,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || DEFAULT_SERVICE_NAME,
    resourceAttributes,
    sampler: { name: samplerName as SamplerName, ratio },
    latestGenAi: (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '')
      .split(',')
      .map((s) => s.trim())
      .includes('gen_ai_latest_experimental'),
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
    scheduleDelayMillis: delay,
  };
}
