import http from 'node:http';
import path from 'node:path';
import protobuf from 'protobufjs';
import { ROOT } from './process.js';

// An OTLP/HTTP trace receiver for tests: it decodes what the service exports with the official
// OpenTelemetry protobuf definitions (test/fixtures/otlp), as a collector does, or reads OTLP/JSON.

const PROTO_DIR = path.join(ROOT, 'test/fixtures/otlp');

let requestType: protobuf.Type | undefined;
function exportRequest(): protobuf.Type {
  if (requestType) return requestType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
  requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  return requestType;
}

/** A received span, flattened: ids in hex, attributes as plain values, its resource's attributes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  /** The exporter's content type: application/x-protobuf or application/json. */
  via: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Resolves once a span satisfies `match` (or fails after `timeoutMs`). */
  waitFor(match: (s: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

const hex = (v: unknown): string =>
  v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'string' ? v : '';

/** An OTLP AnyValue as a plain value. */
function valueOf(v: any): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: any[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

function flatten(body: any, via: string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: Number(s.kind ?? 0),
          attributes: attributesOf(s.attributes),
          links: (s.links ?? []).map((l: any) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message ?? '' },
          resource,
          via,
        });
  }
  return out;
}

/** Starts a receiver on a free port of 127.0.0.1; `url` is what OTEL_EXPORTER_OTLP_ENDPOINT takes. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const type = String(req.headers['content-type'] ?? '');
      const raw = Buffer.concat(chunks);
      try {
        if (type.startsWith('application/x-protobuf')) {
          const t = exportRequest();
          spans.push(
            ...flatten(t.toObject(t.decode(raw), { longs: String, defaults: false }), 'application/x-protobuf'),
          );
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } else {
          spans.push(...flatten(JSON.parse(raw.toString('utf8')), 'application/json'));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        }
      } catch {
        res.writeHead(400).end();
      }
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    waitFor(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = spans.find(match);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no such span among ${spans.length}: ${spans.map((s) => s.name).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
