import { expect } from 'chai';
import { formatTraceparent, parseTraceparent } from '../../src/domain/tracing/trace-context.js';
import { Tracer } from '../../src/domain/tracing/call-trace.js';
import { MAX_SPANS_PER_ENTRY } from '../../src/domain/tracing/span.types.js';
import { tracingConfigOf } from '../../src/infra/tracing/otel-config.js';
import { NotFound } from '../../src/domain/errors.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traces: W3C trace context', () => {
  it('reads a valid traceparent, its flags and its tracestate', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'a=1')).to.deep.equal({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 1,
      traceState: 'a=1',
    });
    expect(parseTraceparent(`00-${TRACE.toUpperCase()}-${SPAN}-00`)).to.deep.include({ traceId: TRACE, traceFlags: 0 });
    // A later version is read by its first four fields.
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-future`)).to.deep.include({ spanId: SPAN });
  });

  it('starts a new trace rather than refusing a broken one', () => {
    for (const bad of [
      undefined,
      42,
      '',
      `ff-${TRACE}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-zz`,
      `00-${TRACE}-${SPAN}-01`.padEnd(300, 'x'),
    ])
      expect(parseTraceparent(bad), String(bad)).to.equal(null);
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'x'.repeat(513))).to.not.have.property('traceState');
  });

  it('writes the traceparent of a span', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 1 })).to.equal(`00-${TRACE}-${SPAN}-01`);
  });
});

describe('traces: a call’s spans', () => {
  it('a call continues the caller’s trace; children name their parents; failures keep the catalogue code', () => {
    const root = new Tracer().begin('POST /x', { traceId: TRACE, spanId: SPAN, traceFlags: 1 }, { kind: 'server' });
    const run = root.child('invoke_agent A', { attributes: { 'gen_ai.agent.name': 'A', unset: undefined } });
    run.child('admission').fail(new NotFound('Agent', 'x')).end();
    run.child('guardrails').fail(new Error('boom')).end();
    run.detail({ input: { a: 1 }, output: 'x'.repeat(10_000) }).end();
    root.end();
    root.end();
    const { spans, dropped } = root.trace.spans();
    expect(dropped).to.equal(0);
    expect(root.trace.traceId).to.equal(TRACE);
    expect(spans.map((s) => s.name)).to.deep.equal(['POST /x', 'invoke_agent A', 'admission', 'guardrails']);
    const [server, invoke, admission, guardrails] = spans;
    expect(server!.parentSpanId).to.equal(SPAN);
    expect(invoke!.parentSpanId).to.equal(server!.spanId);
    expect(invoke!.attributes).to.deep.equal({ 'gen_ai.agent.name': 'A' });
    expect(invoke!.input).to.deep.equal({ a: 1 });
    expect(String(invoke!.output)).to.match(/… \[10002 characters\]$/);
    expect(admission!.error).to.deep.equal({ code: 'NOT_FOUND', message: "Agent 'x' not found" });
    expect(guardrails!.error).to.deep.equal({ code: 'INTERNAL', message: 'Internal error' });
    expect(root.traceparent()).to.equal(`00-${TRACE}-${server!.spanId}-01`);
  });

  it('keeps at most MAX_SPANS_PER_ENTRY spans and counts the rest; a new trace gets fresh ids', () => {
    const root = new Tracer().begin('call', null);
    for (let i = 0; i < MAX_SPANS_PER_ENTRY + 5; i++) root.child(`s${i}`).end();
    const { spans, dropped } = root.trace.spans();
    expect(spans).to.have.length(MAX_SPANS_PER_ENTRY);
    expect(dropped).to.equal(5);
    expect(root.trace.traceId).to.match(/^[0-9a-f]{32}$/);
    expect(new Tracer().begin('other', null).trace.traceId).to.not.equal(root.trace.traceId);
  });

  it('past the bound, a span that ends after its children takes the place of a leaf: the tree keeps its roots', () => {
    const root = new Tracer().begin('call', null);
    const run = root.child('run');
    for (let i = 0; i < MAX_SPANS_PER_ENTRY + 5; i++) run.child(`tool${i}`).end();
    root.child('late leaf').end();
    run.end();
    root.end();
    const { spans, dropped } = root.trace.spans();
    expect(spans).to.have.length(MAX_SPANS_PER_ENTRY);
    expect(dropped).to.equal(8);
    const names = spans.map((s) => s.name);
    expect(names).to.include.members(['call', 'run', 'tool0']);
    expect(names).to.not.include('late leaf');
    // Every kept span's parent is kept (or is the caller's).
    const ids = new Set(spans.map((s) => s.spanId));
    for (const s of spans) if (s.parentSpanId) expect(ids.has(s.parentSpanId), s.name).to.equal(true);
  });
});

describe('traces: the OTEL_* configuration', () => {
  it('is off without an endpoint, when disabled, or with no exporter', () => {
    expect(tracingConfigOf({})).to.equal(null);
    expect(tracingConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).to.equal(null);
    expect(tracingConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).to.equal(
      null,
    );
  });

  it('reads the standard variables', () => {
    const c = tracingConfigOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc,x-team=ops',
      OTEL_SERVICE_NAME: 'agents',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
    });
    expect(c).to.deep.include({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: { authorization: 'Basic abc', 'x-team': 'ops' },
      serviceName: 'agents',
      resourceAttributes: { 'deployment.environment': 'prod' },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      latestGenAi: true,
      captureContent: true,
    });
    // The signal's own endpoint is taken as it is.
    expect(
      (tracingConfigOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c/custom' }) as { url: string }).url,
    ).to.equal('https://c/custom');
  });

  it('says what is wrong with a bad value', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracingConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).to.match(/not a URL/);
    expect(tracingConfigOf({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).to.match(/not supported/);
    expect(tracingConfigOf({ ...base, OTEL_TRACES_SAMPLER: 'sometimes' })).to.match(/one of/);
    expect(tracingConfigOf({ ...base, OTEL_TRACES_SAMPLER_ARG: '2' })).to.match(/ratio/);
    expect(tracingConfigOf({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })).to.match(/key=value/);
    expect(tracingConfigOf({ ...base, OTEL_BSP_SCHEDULE_DELAY: '-1' })).to.match(/milliseconds/);
  });
});
