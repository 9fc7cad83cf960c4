import type { Agent } from '../core/agent.entities.js';
import type { Span } from '../tracing/call-trace.js';
import type { Principal } from '../principal.js';
import type { AdmittedRun, BeginOptions } from '../runtime/pipeline.js';
import type { RunEntry, RunInput } from '../runtime/run.types.js';

/**
 * Where a surface's domain service hands the call lifecycle what to run (issue 50): the agent, the
 * entry, the input and the options. The lifecycle (`CallLifecycle` in src/domain/calls, which
 * implements this port so that domain/surfaces does not import domain/calls) checks the guardrails,
 * admits, runs, settles, counts the run's metrics and writes the call's entry; a service only reads
 * its request into those parts and reports what it did through `CallFacts`.
 */
export interface SurfaceRuns {
  /**
   * Input guardrails, then admission (credit limits, a concurrency slot); refusals are thrown before
   * anything runs. The admitted run must be consumed with `events()` or given back with `cancel()`.
   */
  admit(
    principal: Principal,
    agent: Agent,
    entry: RunEntry,
    input: RunInput,
    opts?: BeginOptions,
  ): Promise<AdmittedRun>;
  /**
   * Work that is not a handler run (a Document API operation, an MCP resource read), guarded and
   * admitted the same way; its spans are children of `parent` (the call's `CallFacts.span`).
   */
  guard<T>(agent: Agent, inputText: string, work: () => Promise<T>, parent?: Span): Promise<T>;
}
