import { DomainError } from '../errors.js';
import type { ExportedSpan, SpanExport } from './trace.ports.js';
import { formatTraceparent, newSpanId, newTraceId } from './trace-context.js';
import {
  MAX_SPANS_PER_ENTRY,
  type AttrValue,
  type Attributes,
  type SpanContextRef,
  type SpanKind,
  type SpanRecord,
} from './span.types.js';

// Read once: `performance.timeOrigin` is fixed for the process, and a getter on every span's start and end.
const TIME_ORIGIN = performance.timeOrigin;

/** Milliseconds since the epoch with sub-millisecond precision (spans of a fast run are short). */
export function nowMs(): number {
  return TIME_ORIGIN + performance.now();
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Record<string, AttrValue | null | undefined>;
  /** Spans this one is related to without being their child (a delivery's run and its receipt). */
  links?: SpanContextRef[];
  /** When the span began, if before it was made (a call's span begun once its opening is known). */
  startMs?: number;
}

/** What a span keeps of a tool's input or output at most, as JSON text (a preview past it). */
export const MAX_SPAN_DETAIL = 8 * 1024;

/** A value as the timeline keeps it: itself when its JSON is short, else a preview of the JSON. */
function bounded(value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return '[not JSON]';
  }
  if (text === undefined || text.length <= MAX_SPAN_DETAIL) return value;
  return `${text.slice(0, MAX_SPAN_DETAIL)}… [${text.length} characters]`;
}

/**
 * `attrs` without the unset ones, added to `out` (a new object by default). A `for…in` loop: every
 * call makes spans, and `Object.entries` allocates an array per attribute (bench guard, issue 53).
 */
function defined(attrs: Record<string, AttrValue | null | undefined> | undefined, out: Attributes = {}): Attributes {
  if (attrs)
    for (const k in attrs) {
      const v = attrs[k];
      if (v !== null && v !== undefined) out[k] = v;
    }
  return out;
}

/** A span's context when no exporter names it: the call's trace id, the parent's flags and state. */
function ownContext(traceId: string, parent: SpanContextRef | null): SpanContextRef {
  const context: SpanContextRef = { traceId, spanId: newSpanId(), traceFlags: parent?.traceFlags ?? 1 };
  if (parent?.traceState) context.traceState = parent.traceState;
  return context;
}

/** One span of a call: recorded for the activity entry, and exported when a collector is set. */
export class Span {
  readonly context: SpanContextRef;
  private readonly record: SpanRecord;
  private ended = false;

  constructor(
    /** The call this span belongs to (its activity entry keeps the call's spans). */
    readonly trace: CallTrace,
    name: string,
    parent: SpanContextRef | null,
    opts: SpanOptions,
    private readonly exported: ExportedSpan | undefined,
    startMs: number,
    attributes: Attributes,
  ) {
    this.context = exported?.context ?? ownContext(trace.traceId, parent);
    this.record = {
      spanId: this.context.spanId,
      parentSpanId: parent?.spanId ?? null,
      name,
      kind: opts.kind ?? 'internal',
      startMs,
      durationMs: 0,
      attributes,
    };
  }

  get name(): string {
    return this.record.name;
  }

  /** Sets attributes (unset values are skipped). */
  set(attrs: Record<string, AttrValue | null | undefined>): this {
    defined(attrs, this.record.attributes);
    this.exported?.set(defined(attrs));
    return this;
  }

  /** What the timeline shows of a tool's call: its input and output (the caller redacts them). */
  detail(d: { input?: unknown; output?: unknown }): this {
    if ('input' in d) this.record.input = bounded(d.input);
    if ('output' in d) this.record.output = bounded(d.output);
    return this;
  }

  /** Marks the span failed: a refusal with its catalogue code, anything else as an internal error. */
  fail(err: unknown): this {
    const e =
      err instanceof DomainError
        ? { code: err.code, message: err.message }
        : { code: 'INTERNAL', message: 'Internal error' };
    return this.failWith(e.code, e.message);
  }

  failWith(code: string, message: string): this {
    this.record.error = { code, message };
    this.exported?.fail(code, message);
    return this;
  }

  get failed(): boolean {
    return this.record.error !== undefined;
  }

  /** Ends the span (once; later calls do nothing). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const end = nowMs();
    this.record.durationMs = end - this.record.startMs;
    this.exported?.end(end);
    this.trace.add(this.record);
  }

  /** A span under this one. */
  child(name: string, opts: SpanOptions = {}): Span {
    return this.trace.start(name, this.context, opts);
  }

  /** The W3C `traceparent` naming this span, for an outgoing call made within it. */
  traceparent(): string {
    return formatTraceparent(this.context);
  }

  /** The tracer's settings: whether message content may be exported, which GenAI conventions. */
  get settings(): TraceSettings {
    return this.trace.settings;
  }
}

export interface TraceSettings {
  captureContent: boolean;
  latestGenAi: boolean;
}

/**
 * The spans of one call (a surface request, or a run no request waits for): one trace id, the
 * finished spans for its activity entry (at most MAX_SPANS_PER_ENTRY; the rest are counted).
 */
export class CallTrace {
  private readonly records: SpanRecord[] = [];
  private dropped = 0;

  constructor(
    private id: string,
    private readonly exporter: SpanExport | undefined,
    readonly settings: TraceSettings,
  ) {}

  /** The call's trace id: the caller's, a new one, or the one the exporter's SDK chose for its root. */
  get traceId(): string {
    return this.id;
  }

  start(name: string, parent: SpanContextRef | null, opts: SpanOptions = {}, remoteParent = false): Span {
    const startMs = opts.startMs ?? nowMs();
    const attributes = defined(opts.attributes);
    // The exporter gets a copy: the record's attributes grow with `set`, the SDK's span keeps its own.
    const exported = this.exporter?.start({
      name,
      kind: opts.kind ?? 'internal',
      parent,
      remoteParent,
      links: opts.links ?? [],
      startMs,
      attributes: { ...attributes },
    });
    return new Span(this, name, parent, opts, exported, startMs, attributes);
  }

  /** The call's first span; with an exporter, its trace id becomes the call's. */
  root(name: string, parent: SpanContextRef | null, opts: SpanOptions): Span {
    const span = this.start(name, parent, opts, true);
    this.id = span.context.traceId;
    return span;
  }

  add(record: SpanRecord): void {
    if (this.records.length < MAX_SPANS_PER_ENTRY) {
      this.records.push(record);
      return;
    }
    this.dropped++;
    // Past the bound, a span that ends is most often the parent of kept ones (the run, the call:
    // they end last). It takes the place of the latest kept span that is no kept span's parent, so
    // the timeline keeps its tree rather than losing its roots to the run's many tools.
    const parents = new Set(this.records.map((r) => r.parentSpanId));
    if (!parents.has(record.spanId)) return;
    for (let i = this.records.length - 1; i >= 0; i--)
      if (!parents.has(this.records[i]!.spanId)) {
        this.records.splice(i, 1);
        this.records.push(record);
        return;
      }
  }

  /** The finished spans in the order they started, and how many were left out. */
  spans(): { spans: SpanRecord[]; dropped: number } {
    return { spans: [...this.records].sort((a, b) => a.startMs - b.startMs), dropped: this.dropped };
  }
}

/**
 * Starts call traces: with a span exporter (a collector is configured) or without (only the
 * activity entry keeps the spans).
 */
export class Tracer {
  readonly settings: TraceSettings;

  constructor(private readonly exporter?: SpanExport) {
    this.settings = {
      captureContent: exporter?.captureContent ?? false,
      latestGenAi: exporter?.latestGenAi ?? false,
    };
  }

  /** A call's first span: the child of the caller's span when it sent one, else a new trace's root. */
  begin(name: string, parent: SpanContextRef | null, opts: SpanOptions = {}): Span {
    // With an exporter, the SDK names the ids (its sampler may take the caller's trace); the
    // trace id below is then replaced by the exported span's.
    const trace = new CallTrace(parent?.traceId ?? newTraceId(), this.exporter, this.settings);
    return trace.root(name, parent, opts);
  }
}

/** Where a call's span comes from: the span itself, or one begun when first asked for. */
export interface SpanSource {
  span(): Span;
}
