import type { ActivityLog, ActivityRecord } from '../activity/activity-log.js';
import type { Agent } from '../core/agent.entities.js';
import type { Principal } from '../principal.js';
import { runFacts, type AdmittedRun, type BeginOptions, type Pipeline } from '../runtime/pipeline.js';
import type { RunMetrics } from '../runtime/run-metrics.ports.js';
import type { RunEntry, RunFacts, RunInput, RunResult } from '../runtime/run.types.js';
import type { SurfaceRuns } from '../surfaces/surface-runs.ports.js';
import type { CallCancels } from './call-cancels.js';
import { callEntry, type CallEnding, type EntryTrace } from './call-entry.js';
import { Tracer, type Span } from '../tracing/call-trace.js';
import type { AttrValue, SpanContextRef } from '../tracing/span.types.js';
import { CallSpan, type CallOpening } from './call-span.js';
import { DomainError, LimitExceeded, Unavailable } from '../errors.js';
import type { RunEvents } from '../events/run-events.ports.js';

/**
 * What a surface supplies to the lifecycle of one of its calls: only what differs between surfaces.
 * `handle` reads the request into a domain input, asks the surface's domain service (which hands
 * this lifecycle what to run: `admit`, `guard`) and encodes the answer, events and errors in the
 * surface's protocol;
 * `ending` then says how the call ended on the wire (null when no agent was named: nothing to log).
 */
export interface SurfaceCallParts {
  /**
   * `call` gives the call's server span: the surface hands it to the domain with the call's facts
   * (`CallFacts.span`), so that the run and the operations of the call are its children, and may
   * refine its opening from the request's body until it has begun (`CallSpan.refine`). It is
   * passed, not kept in an AsyncLocalStorage: on Node 20 one makes every promise of the process
   * cost more (bench/results/2026-11-29-traces.md).
   */
  handle(call: CallSpan): Promise<void>;
  ending(): CallEnding | null;
  /** The call's server span: its name, the caller's span (a W3C `traceparent`), its attributes. */
  opening?: CallOpening;
}

export type { CallOpening } from './call-span.js';

/**
 * A call, from "caller identified" to "entry written", the same for every surface (issue 50):
 * guardrails and admission (`admit`, `guard`, `begin`: they refuse before anything runs), the run
 * and its settlement, refusals, cancellation from any instance (`cancels`), the run's metrics and
 * the activity entry — written once per call, here and nowhere else (`ActivityLog.writeEntry` has
 * no other caller in src). The `Pipeline` is its engine, called from src/domain/calls only; the
 * surfaces' domain services reach it through the port `SurfaceRuns`, the unattended tasks through
 * `UnattendedRuns`.
 */
export class CallLifecycle implements SurfaceRuns {
  constructor(
    private readonly activity: ActivityLog,
    private readonly pipeline: Pipeline,
    /** The calls running here that a cancel from any instance stops (MCP, A2A). */
    readonly cancels: CallCancels,
    /** Where runs are counted for /metrics (every admitted run, once it has ended). */
    private readonly metrics?: RunMetrics,
    /** Starts each call's trace (exported when a collector is configured; always kept in the entry). */
    private readonly tracer: Tracer = new Tracer(),
    /** Hears of runs ending and limits refusing them (outbound events); set once by the composition. */
    public events?: RunEvents,
  ) {}

  /**
   * A surface request's run: guardrails and admission (thrown as refusals before anything runs),
   * then the admitted run for the surface to stream or complete. Its facts land in the caller's
   * `CallFacts` and so in the call's one entry, written by `run`; its metrics are counted when it ends.
   */
  async admit(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: BeginOptions = {},
  ): Promise<AdmittedRun> {
    let run: AdmittedRun;
    try {
      run = await this.pipeline.begin(principal, agent, entry, input, opts);
    } catch (err) {
      this.refused(agent, input, err);
      throw err;
    }
    return this.counted(agent, entry, input, run);
  }

  /**
   * Work that is not a handler run (Document API, MCP resources): guardrails on `inputText`,
   * admission while `work` runs; their spans are children of `parent` (the call's `CallFacts.span`).
   */
  guard<T>(agent: Agent, inputText: string, work: () => Promise<T>, parent?: Span): Promise<T> {
    return this.pipeline.guard(agent, inputText, work, parent);
  }

  /**
   * A surface request: `parts.handle` runs it to its answer, then its one entry is written from
   * `parts.ending` — refusals included. A call whose handling threw past the surface's own error
   * encoding (nothing was answered by it) has no entry, as before the lifecycle.
   */
  async run(parts: SurfaceCallParts): Promise<void> {
    const started = Date.now();
    const call = new CallSpan(this.tracer, parts.opening);
    try {
      await parts.handle(call);
    } catch (err) {
      call.span().fail(err).end();
      throw err;
    }
    const span = call.span();
    const end = parts.ending();
    if (end) settleServerSpan(span, end);
    span.end();
    if (!end) return;
    // Only a call that ran something keeps its spans in its entry (the timeline): a refusal, a
    // webhook's receipt or protocol traffic keeps its trace id only, so that the log's hot writes
    // stay as small as before (bench/results/2026-11-29-traces.md). Their spans are exported all the same.
    const ran = (end.caller?.facts ?? end.facts)?.run !== undefined;
    this.activity.writeEntry(end.agent, callEntry(end, Date.now() - started, ran ? traced(span) : untraced(span)));
  }

  /**
   * A run no request waits for (a webhook delivery, a channel message's answer): the pipeline's
   * `begin`, whose refusal is thrown and logged, and whose run is logged when it ends — an entry of
   * kind `run` either way.
   */
  async begin(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: BeginOptions = {},
  ): Promise<AdmittedRun> {
    const started = Date.now();
    // No request waits: the run's trace starts with a span of its own for the job (the queue's
    // delivery or message), linked to the span that took it in when it names one.
    const { links, ...rest } = opts;
    const root = this.tracer.begin(`process ${input.surface.toLowerCase()}`, null, {
      kind: 'consumer',
      links,
      attributes: {
        'messaging.operation.type': 'process',
        'aes.delivery.id': input.delivery?.id,
        'aes.delivery.attempt': input.delivery?.attempt,
      },
    });
    let run: AdmittedRun;
    try {
      run = await this.pipeline.begin(principal, agent, entry, input, { ...rest, parent: root });
    } catch (err) {
      this.refused(agent, input, err);
      root.fail(err).end();
      const facts = runFacts(entry, undefined, err, Date.now() - started);
      this.activity.writeEntry(agent, runEntry(input, facts, traced(root)));
      throw err;
    }
    return this.counted(agent, entry, input, run).onEnded((facts) => {
      if (facts.outcome !== 'ok') root.failWith('RUN_FAILED', facts.error ?? 'The run failed');
      root.end();
      this.activity.writeEntry(agent, runEntry(input, facts, traced(root)));
    });
  }

  /** Counts the run for /metrics when it ends (its handler kind, how it ended, its credits), and tells `events`. */
  private counted(agent: Agent, entry: RunEntry, input: RunInput, run: AdmittedRun): AdmittedRun {
    const { metrics, events } = this;
    if (metrics) run.onEnded((facts) => metrics.run(entry.handler.kind, facts.outcome, facts.credits));
    return events ? run.onEnded((facts) => events.ended(agent, input, facts)) : run;
  }

  /** A limit's refusal is an event (`limit.reached`); other refusals are not. */
  private refused(agent: Agent, input: RunInput, err: unknown): void {
    if (this.events && err instanceof LimitExceeded) this.events.limited(agent, input, err);
  }

  /** `begin`, run to its end: handler failures are `result.error`, refusals are thrown. */
  async execute(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: BeginOptions = {},
  ): Promise<RunResult> {
    const run = await this.begin(principal, agent, entry, input, opts);
    let result: RunResult | undefined;
    for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
    if (!result) throw new Error('the run ended without a result');
    return result;
  }

  /**
   * A message taken in outside an agent route (an email over SMTP or from Mailgun): `work` runs in
   * a server span of its own, a new trace's root (mail carries no trace context). A refusal (the
   * sender's error) leaves `error.type`; storage that failed fails the span.
   */
  async receipt<T>(
    name: string,
    attributes: Record<string, AttrValue | undefined>,
    work: (span: Span) => Promise<T>,
  ): Promise<T> {
    const span = this.tracer.begin(name, null, { kind: 'server', attributes });
    try {
      return await work(span);
    } catch (err) {
      if (err instanceof DomainError && !(err instanceof Unavailable)) span.set({ 'error.type': err.code });
      else span.fail(err);
      throw err;
    } finally {
      span.end();
    }
  }

  /** A message a surface took in without a run (an email stored for its channel): its entry, with the receipt's trace id. */
  received(agent: Agent, record: ActivityRecord, span?: Span): void {
    this.activity.writeEntry(agent, span ? { traceId: span.trace.traceId, ...record } : record);
  }
}

/** The server span's attributes once the call has ended: its status, and the refusal's code. */
function settleServerSpan(span: Span, end: CallEnding): void {
  span.set({ 'http.response.status_code': end.status });
  if (end.failure === undefined) return;
  // HTTP semantic conventions: a 4xx is the caller's error (the span keeps `error.type`); a 5xx fails the span.
  if (end.status >= 500) span.fail(end.failure);
  else span.set({ 'error.type': end.failure instanceof DomainError ? end.failure.code : 'INTERNAL' });
}

/** The trace id and the spans of the call `span` belongs to, for its activity entry. */
function traced(span: Span): EntryTrace {
  const { spans, dropped } = span.trace.spans();
  return { traceId: span.trace.traceId, spans: { list: spans, dropped } };
}

/** The trace id alone of the call `span` belongs to (an entry that keeps no spans). */
function untraced(span: Span): EntryTrace {
  return { traceId: span.trace.traceId, spans: null };
}

/**
 * The entry of kind `run` of a run no request waits for. A webhook delivery's run names its delivery,
 * as the receipt's entry does: a list shows the two as one row (docs/decisions.md, "One activity row
 * per call (issue 51)"), while each stays an entry of its own, appended when it happened.
 */
function runEntry(input: RunInput, run: RunFacts, trace: EntryTrace): ActivityRecord {
  return {
    kind: 'run',
    surface: input.surface,
    entry: run.entry,
    method: input.method,
    path: input.path,
    requestHeaders: input.headers,
    requestBody: input.body,
    response: run.error ? { error: run.error } : { output: run.output },
    credits: run.credits,
    durationMs: run.durationMs,
    runId: run.runId,
    error: run.errorDetail ?? run.error,
    logs: run.logs,
    deliveryId: input.delivery?.id ?? null,
    traceId: trace.traceId,
    spans: trace.spans,
  };
}
