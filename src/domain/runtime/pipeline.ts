import type { ActivityLog } from '../activity/activity-log.js';
import type { AdmissionService } from '../admission/admission.service.js';
import { DomainError } from '../errors.js';
import type { Agent } from '../entities.js';
import type { Principal } from '../principal.js';
import type { RunActivity, RunEntry, RunEvent, RunInput, RunOptions, RunResult } from './run.types.js';
import { runCreditBound, type RunService } from './run.service.js';
import { checkInput } from './guardrails.js';

/**
 * The whole run pipeline after a surface has authenticated and resolved its entry (DESIGN §5):
 * checks that refuse without running (input guardrails) → admission (credit limits with a
 * reservation of what the run can cost, concurrency slot) → run (handler, output guardrails) →
 * settle (the reservation is replaced by the real charge) → the run's activity fields. A refused
 * request never takes a slot, a lock or a credit. The slot and the reservation are released on
 * completion, error, timeout and caller disconnect (the generator's `finally`). Refusals are
 * thrown before anything is yielded.
 */
export class Pipeline {
  constructor(
    private readonly admission: AdmissionService,
    private readonly runs: RunService,
    readonly activity: ActivityLog,
  ) {}

  async execute(principal: Principal, agent: Agent, entry: RunEntry, input: RunInput, opts: RunOptions = {}): Promise<RunResult> {
    for await (const ev of this.stream(principal, agent, entry, input, opts)) if (ev.type === 'done') return ev.result;
    throw new Error('pipeline ended without a result');
  }

  /**
   * The pipeline around work that is not a handler run (Document API operations): input guardrails
   * on the request text, then admission (credit limits, a concurrency slot) for the duration of `work`.
   */
  async guard<T>(agent: Agent, inputText: string, work: () => Promise<T>): Promise<T> {
    if (inputText) checkInput(agent.guardrails, inputText);
    const admitted = await this.admission.admit(agent);
    try {
      return await work();
    } finally {
      await admitted.release();
    }
  }

  async *stream(principal: Principal, agent: Agent, entry: RunEntry, input: RunInput, opts: RunOptions = {}): AsyncGenerator<RunEvent> {
    const started = Date.now();
    let result: RunResult | undefined;
    let refusal: unknown;
    try {
      this.runs.check(agent, input);
      const admitted = await this.admission.admit(agent, runCreditBound(agent, entry));
      try {
        for await (const ev of this.runs.stream(principal, agent, entry, input, opts)) {
          if (ev.type === 'done') result = ev.result;
          yield ev;
        }
      } finally {
        await admitted.settle(result?.credits ?? 0);
      }
    } catch (err) {
      refusal = err;
      throw err;
    } finally {
      this.log(agent, entry, input, opts, result, refusal, Date.now() - started);
    }
  }

  /**
   * The run's part of the activity log, written here for every surface: into the request's entry
   * when the surface keeps one (`opts.activity`), otherwise as an entry of kind `run` of its own
   * (runs that no request waits for, such as webhook deliveries).
   */
  private log(agent: Agent, entry: RunEntry, input: RunInput, opts: RunOptions, result: RunResult | undefined, failure: unknown, durationMs: number): void {
    const run: RunActivity = {
      entry: entry.name,
      runId: result?.runId ?? null,
      credits: result?.credits ?? 0,
      logs: result?.logs ?? [],
      output: result && !result.error ? result.output : null,
      error: result?.error?.message ?? (failure === undefined ? null : failure instanceof DomainError ? failure.message : 'The run failed'),
      errorDetail: result?.error?.detail ?? null,
      durationMs,
    };
    if (opts.activity) {
      opts.activity.run = run;
      return;
    }
    this.activity.record(agent, {
      kind: 'run',
      surface: input.surface,
      entry: run.entry,
      method: input.method,
      path: input.path,
      requestHeaders: input.headers,
      requestBody: input.body,
      response: run.error ? { error: run.error } : { output: run.output },
      credits: run.credits,
      durationMs,
      runId: run.runId,
      error: run.errorDetail ?? run.error,
      logs: run.logs,
    });
  }
}
