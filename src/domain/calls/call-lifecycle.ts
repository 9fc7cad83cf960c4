import type { ActivityLog, ActivityRecord } from '../activity/activity-log.js';
import type { Agent } from '../core/agent.entities.js';
import type { Principal } from '../principal.js';
import { runFacts, type AdmittedRun, type BeginOptions, type Pipeline } from '../runtime/pipeline.js';
import type { RunEntry, RunFacts, RunInput, RunResult } from '../runtime/run.types.js';
import type { CallCancels } from './call-cancels.js';
import { callEntry, type CallEnding } from './call-entry.js';

/**
 * What a surface supplies to the lifecycle of one of its calls: only what differs between surfaces.
 * `handle` reads the request into a domain input, asks the domain (whose services admit, guard and
 * run it through the pipeline) and encodes the answer, events and errors in the surface's protocol;
 * `ending` then says how the call ended on the wire (null when no agent was named: nothing to log).
 */
export interface SurfaceCallParts {
  handle(): Promise<void>;
  ending(): CallEnding | null;
}

/**
 * A call, from "caller identified" to "entry written", the same for every surface (issue 50):
 * admission and guardrails (the pipeline's `begin`, which refuses before anything runs), the run,
 * refusals, cancellation from any instance (`cancels`) and the activity entry — written once per
 * call, here and nowhere else (`ActivityLog.writeEntry` has no other caller in src). Run metrics are
 * counted by the pipeline the lifecycle drives.
 */
export class CallLifecycle {
  constructor(
    private readonly activity: ActivityLog,
    private readonly pipeline: Pipeline,
    /** The calls running here that a cancel from any instance stops (MCP, A2A). */
    readonly cancels: CallCancels,
  ) {}

  /**
   * A surface request: `parts.handle` runs it to its answer, then its one entry is written from
   * `parts.ending` — refusals included. A call whose handling threw past the surface's own error
   * encoding (nothing was answered by it) has no entry, as before the lifecycle.
   */
  async run(parts: SurfaceCallParts): Promise<void> {
    const started = Date.now();
    await parts.handle();
    const end = parts.ending();
    if (end) this.activity.writeEntry(end.agent, callEntry(end, Date.now() - started));
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
    let run: AdmittedRun;
    try {
      run = await this.pipeline.begin(principal, agent, entry, input, opts);
    } catch (err) {
      this.activity.writeEntry(agent, runEntry(input, runFacts(entry, undefined, err, Date.now() - started)));
      throw err;
    }
    return run.onEnded((facts) => this.activity.writeEntry(agent, runEntry(input, facts)));
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

  /** A message a surface took in without a run (an email stored for its channel): its entry. */
  received(agent: Agent, record: ActivityRecord): void {
    this.activity.writeEntry(agent, record);
  }
}

/** The entry of kind `run` of a run no request waits for. */
function runEntry(input: RunInput, run: RunFacts): ActivityRecord {
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
  };
}
