// The run timeline's arithmetic, apart from its view (so that unit tests reach it): the spans in
// tree order with their bars, durations as people read them, and what each span's row says.

/** What the timeline reads of a span (RunSpan in GraphQL). */
export interface TimelineSpan {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  offsetMs: number;
  durationMs: number;
  attributes: Record<string, unknown>;
}

/** A span placed in the waterfall: its depth under its parent and its bar's start and width (per cent). */
export interface TimelineRow<S extends TimelineSpan = TimelineSpan> {
  span: S;
  depth: number;
  left: number;
  width: number;
}

/**
 * The spans in tree order (each parent followed by its children, by start time), with their depth
 * and bars on the width of the whole trace. A span whose parent is not in the entry (the caller's)
 * is a root; a cycle (a malformed record) cannot loop, each span is placed once.
 */
export function timelineRows<S extends TimelineSpan>(spans: readonly S[]): TimelineRow<S>[] {
  if (!spans.length) return [];
  const ids = new Set(spans.map((s) => s.spanId));
  const start = Math.min(...spans.map((s) => s.offsetMs));
  const end = Math.max(...spans.map((s) => s.offsetMs + Math.max(0, s.durationMs)));
  const total = Math.max(end - start, 0.001);
  const byStart = [...spans].sort((a, b) => a.offsetMs - b.offsetMs);
  const children = new Map<string | null, S[]>();
  for (const s of byStart) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) && s.parentSpanId !== s.spanId ? s.parentSpanId : null;
    const siblings = children.get(parent);
    if (siblings) siblings.push(s);
    else children.set(parent, [s]);
  }
  const rows: TimelineRow<S>[] = [];
  const placed = new Set<string>();
  const visit = (s: S, depth: number) => {
    if (placed.has(s.spanId)) return;
    placed.add(s.spanId);
    const left = ((s.offsetMs - start) / total) * 100;
    const width = Math.max((Math.max(0, s.durationMs) / total) * 100, 0.5);
    rows.push({ span: s, depth, left, width: Math.min(width, 100 - Math.min(left, 99.5)) });
    for (const c of children.get(s.spanId) ?? []) visit(c, depth + 1);
  };
  for (const root of children.get(null) ?? []) visit(root, 0);
  // Spans only reachable through a cycle: shown flat at the end rather than lost.
  for (const s of byStart) visit(s, 0);
  return rows;
}

/** A duration as people read it: two decimals under 10 ms, one under 100 ms, whole milliseconds past. */
export function formatMs(ms: number): string {
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms).toLocaleString('en')} ms`;
}

function attr(span: TimelineSpan, key: string): unknown {
  return (span.attributes as Record<string, unknown>)[key];
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** What a span's row says besides its name and duration: model, tokens, credits, verdicts, decisions. */
export function spanFacts(span: TimelineSpan): string[] {
  const facts: string[] = [];
  const model = str(attr(span, 'gen_ai.response.model')) ?? str(attr(span, 'gen_ai.request.model'));
  if (model && span.name.startsWith('chat')) facts.push(`model ${model}`);
  const input = num(attr(span, 'gen_ai.usage.input_tokens'));
  const output = num(attr(span, 'gen_ai.usage.output_tokens'));
  if (input !== null || output !== null) facts.push(`tokens ${input ?? '—'} in / ${output ?? '—'} out`);
  const reasons = attr(span, 'gen_ai.response.finish_reasons');
  if (Array.isArray(reasons) && reasons.length) facts.push(`finished: ${reasons.join(', ')}`);
  const credits = num(attr(span, 'aes.credits'));
  if (credits !== null) facts.push(`${credits.toLocaleString('en', { maximumFractionDigits: 6 })} credits`);
  const verdict = str(attr(span, 'aes.guardrails.verdict'));
  if (verdict) facts.push(`verdict: ${verdict}`);
  const decision = str(attr(span, 'aes.admission.decision'));
  if (decision) {
    const limit = str(attr(span, 'aes.admission.limit'));
    facts.push(`admission: ${decision}${limit ? ` (${limit})` : ''}`);
  }
  const status = num(attr(span, 'http.response.status_code'));
  if (status !== null) facts.push(`status ${status}`);
  return facts;
}

/** What the timeline says under its spans when the entry left some out (it keeps `kept` per run); null when none. */
export function droppedNote(dropped: number, kept = 200): string | null {
  if (!Number.isFinite(dropped) || dropped <= 0) return null;
  const n = dropped.toLocaleString('en');
  return dropped === 1
    ? `1 more span was left out (a run keeps ${kept})`
    : `${n} more spans were left out (a run keeps ${kept})`;
}
