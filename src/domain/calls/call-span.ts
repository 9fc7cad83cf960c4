import { nowMs, type Span, type SpanSource, type Tracer } from '../tracing/call-trace.js';
import type { AttrValue, SpanContextRef } from '../tracing/span.types.js';

/** How a surface call's span begins (HTTP semantic conventions: `{method} {route}`). */
export interface CallOpening {
  name: string;
  parent: SpanContextRef | null;
  attributes: Record<string, AttrValue | null | undefined>;
  /** Spans the call relates to without being their child (the HTTP request's, when the body named another parent). */
  links?: SpanContextRef[];
}

const UNNAMED: CallOpening = { name: 'call', parent: null, attributes: {} };

/**
 * A surface call's server span, begun when first asked for (a run, a guard, the call's end) and
 * timed from when the call began: until then the surface may still refine its opening from what
 * only the request's body says (an MCP request's `_meta` trace context and method), since a span's
 * trace and parent are fixed once it has begun.
 */
export class CallSpan implements SpanSource {
  private begun?: Span;
  private readonly startMs = nowMs();

  constructor(
    private readonly tracer: Tracer,
    private opening: CallOpening = UNNAMED,
  ) {}

  span(): Span {
    if (this.begun) return this.begun;
    const { name, parent, attributes, links } = this.opening;
    this.begun = this.tracer.begin(name, parent, { kind: 'server', attributes, links, startMs: this.startMs });
    return this.begun;
  }

  /** Refines the opening from the one so far; false (and nothing changed) once the span has begun. */
  refine(refined: (opening: CallOpening) => CallOpening): boolean {
    if (this.begun) return false;
    this.opening = refined(this.opening);
    return true;
  }
}
