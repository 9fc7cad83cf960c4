import type { Admission, AdmissionService } from '../admission/admission.service.js';
import { DomainError, RunFailed } from '../errors.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Principal } from '../principal.js';
import type { RunEntry, RunEvent, RunInput, RunFacts, RunOptions, RunResult } from './run.types.js';
import { runCreditBound } from './run-credits.js';
import type { RunService } from './run.service.js';
import { checkInput, checksInput } from './guardrails.js';
import { nowMs, Tracer, type Span } from '../tracing/call-trace.js';
import type { SpanContextRef } from '../tracing/span.types.js';
import { runSpanAttributes, settledRunAttributes } from './run-span.js';
import { admissionSpan, checked } from './pipeline-spans.js';

/**
 * A run's options as `begin` takes them: the signal may be given as the function that makes it,
 * called only once the run is admitted (making an AbortSignal costs a refused request more than
 * most of what it does).
 */
export interface BeginOptions extends Omit<RunOptions, 'signal' | 'span'> {
  signal?: AbortSignal | (() => AbortSignal);
  /** The call's span the run is a child of (a surface request's); absent: the run starts a trace of its own. */
  parent?: Span;
  /** Spans the run relates to without being their child (a webhook delivery's receipt). */
  links?: SpanContextRef[];
}

/**
 * The whole run pipeline after a surface has authenticated and resolved its entry (DESIGN §5):
 * checks that refuse without running (input guardrails) → admission (credit limits with a
 * reservation of what the run can cost, concurrency slot) → run (handler, output guardrails) →
 * settle (the reservation is replaced by the real charge) → the run's facts for the activity log
 * (on the admitted run; see `runFacts`). A refused request never takes a slot, a lock or a credit.
 * The slot and the reservation are released on completion, error, timeout and caller disconnect
 * (the generator's `finally`). Refusals are thrown before anything is yielded. The pipeline knows
 * no transport, writes no activity entry and counts no metrics: it is the engine of the call
 * lifecycle (src/domain/calls), the only module of src that calls it, which writes every entry and
 * counts every run from the facts the admitted run reports.
 */
export class Pipeline {
  constructor(
    private readonly admission: AdmissionService,
    private readonly runs: RunService,
    private readonly tracer: Tracer = new Tracer(),
  ) {}

  /** Runs an entry to its end (checks, admission, run); handler failures are `result.error`, refusals are thrown. */
  async execute(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: RunOptions = {},
  ): Promise<RunResult> {
    for await (const ev of this.stream(principal, agent, entry, input, opts)) if (ev.type === 'done') return ev.result;
    throw new Error('pipeline ended without a result');
  }

  /**
   * The pipeline around work that is not a handler run (Document API operations): input guardrails
   * on the request text, then admission (credit limits, a concurrency slot) for the duration of `work`.
   */
  async guard<T>(agent: Agent, inputText: string, work: () => Promise<T>, parent?: Span): Promise<T> {
    if (inputText) checked(parent, () => checkInput(agent.guardrails, inputText));
    const admitStart = nowMs();
    let admitted: Admission;
    try {
      admitted = await this.admission.admit(agent);
    } catch (err) {
      admissionSpan(parent, admitStart, { err });
      throw err;
    }
    admissionSpan(parent, admitStart);
    try {
      return await work();
    } finally {
      await admitted.release();
    }
  }

  /** `execute` as events: text deltas (prompt handlers), then the result. */
  async *stream(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: RunOptions = {},
  ): AsyncGenerator<RunEvent> {
    const run = await this.begin(principal, agent, entry, input, opts);
    yield* run.events();
  }

  /**
   * The refusing half of `stream`: input guardrails, then admission. Resolves with the admitted run
   * (its id already named) once it holds its slot and credit reservation; refusals are thrown. A surface begins the run before it answers anything,
   * so a refusal is still an ordinary error answer; the admitted run must then be consumed with
   * `events()` or given back with `cancel()`.
   */
  async begin(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: BeginOptions = {},
  ): Promise<AdmittedRun> {
    const started = Date.now();
    const name = `invoke_agent ${agent.name}`;
    const attributes = runSpanAttributes(agent, entry, input);
    const span = opts.parent
      ? opts.parent.child(name, { attributes, links: opts.links })
      : this.tracer.begin(name, null, { attributes, links: opts.links });
    let admitted: Admission;
    let admitStart: number | undefined;
    try {
      if (checksInput(agent.guardrails)) checked(span, () => this.runs.check(agent, input));
      admitStart = nowMs();
      admitted = await this.admission.admit(agent, runCreditBound(agent, entry));
    } catch (err) {
      if (admitStart !== undefined) admissionSpan(span, admitStart, { err });
      span.fail(err).end();
      throw err;
    }
    admissionSpan(span, admitStart);
    // Named once admitted, as before traces: a refused run has no id (its entry names none).
    const runId = opts.runId ?? newId('run');
    span.set({ 'aes.run.id': runId });
    const { parent: _parent, links: _links, ...rest } = opts;
    const named: RunOptions & { runId: string } = {
      ...rest,
      signal: typeof opts.signal === 'function' ? opts.signal() : opts.signal,
      runId,
      span,
    };
    return new AdmittedRun(
      named.runId,
      admitted,
      started,
      (a, t, ended) => this.runAdmitted(principal, agent, entry, input, named, a, t, ended),
      span,
    );
  }

  private async *runAdmitted(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts: RunOptions,
    admitted: Admission,
    started: number,
    ended: (facts: RunFacts) => void,
  ): AsyncGenerator<RunEvent> {
    let result: RunResult | undefined;
    let failure: unknown;
    // What a run that ends without a result (its reader went away, it threw) used.
    const spent = { credits: 0 };
    try {
      try {
        for await (const ev of this.runs.stream(principal, agent, entry, input, {
          ...opts,
          workspace: admitted.workspace,
          spent,
        })) {
          if (ev.type === 'done') result = ev.result;
          yield ev;
        }
      } finally {
        await admitted.settle(result?.credits ?? spent.credits);
      }
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      const facts = runFacts(entry, result, failure, Date.now() - started, spent.credits);
      const span = opts.span!;
      span.set(settledRunAttributes(result, facts));
      if (failure !== undefined) span.fail(failure);
      else if (result?.error)
        span.set({ 'aes.run.error_kind': result.error.kind }).failWith('RUN_FAILED', result.error.message);
      span.end();
      ended(facts);
    }
  }
}

/**
 * A run's facts for the activity log, the same for every surface: how it ended (`result`), or why
 * it did not (`failure`: a refusal, a handler that threw), and what it used (`spent`).
 */
export function runFacts(
  entry: RunEntry,
  result: RunResult | undefined,
  failure: unknown,
  durationMs: number,
  spent = 0,
): RunFacts {
  return {
    entry: entry.name,
    runId: result?.runId ?? null,
    credits: result?.credits ?? spent,
    logs: result?.logs ?? [],
    output: result && !result.error ? result.output : null,
    error:
      result?.error?.message ??
      (failure === undefined ? null : failure instanceof DomainError ? failure.message : 'The run failed'),
    errorDetail: result?.error?.detail ?? null,
    durationMs,
    outcome: result ? (result.error?.kind ?? 'ok') : 'failed',
  };
}

/**
 * Where a run no request waits for (a webhook delivery, a channel message's answer) begins: the
 * pipeline's `begin` inside the call lifecycle, which writes the run's entry (src/domain/calls).
 */
export interface UnattendedRuns {
  begin(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts?: BeginOptions,
  ): Promise<AdmittedRun>;
}

/**
 * A run that passed the pipeline's checks and holds its admission (slot, credit reservation). Run
 * it once with `events()`, or give the admission back unused with `cancel()`; either ends it.
 */
export class AdmittedRun {
  private ended = false;
  private readonly watchers: ((facts: RunFacts) => void)[] = [];
  /** What the run reports for the activity log, once it has ended (unset for a cancelled run). */
  facts?: RunFacts;

  constructor(
    /** The run's id, known before it starts (a stream names it with its status line). */
    readonly runId: string,
    private readonly admitted: Admission,
    private readonly started: number,
    private readonly run: (
      admitted: Admission,
      started: number,
      ended: (facts: RunFacts) => void,
    ) => AsyncGenerator<RunEvent>,
    /** The run's span (`invoke_agent`); the call's trace holds it. */
    readonly span: Span = new Tracer().begin('invoke_agent', null),
  ) {}

  events(): AsyncGenerator<RunEvent> {
    if (this.ended) throw new Error('this admitted run has already been run or cancelled');
    this.ended = true;
    return this.run(this.admitted, this.started, (facts) => {
      this.facts = facts;
      for (const w of this.watchers) w(facts);
    });
  }

  /** Calls `watcher` with the run's facts when it ends (never for a run given back with `cancel()`). */
  onEnded(watcher: (facts: RunFacts) => void): this {
    this.watchers.push(watcher);
    return this;
  }

  /** Releases the slot and the reservation of a run that will not happen (no credits charged). */
  async cancel(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.span.set({ 'aes.run.cancelled': true }).end();
    await this.admitted.release();
  }
}

/**
 * Consumes a run to its end and returns its result. A handler that failed is thrown as RunFailed
 * (the caller's 500, naming the run).
 */
export async function completed(events: AsyncIterable<RunEvent>): Promise<RunResult> {
  let result: RunResult | undefined;
  for await (const ev of events) if (ev.type === 'done') result = ev.result;
  if (!result) throw new Error('the run ended without a result');
  if (result.error) throw new RunFailed(result.runId, result.error.kind, result.error.message);
  return result;
}
