import type { ActivityLog } from '../activity/activity-log.js';
import type { AdmissionService } from '../admission/admission.service.js';
import type { Agent } from '../model.js';
import type { Principal } from '../principal.js';
import type { RunEntry, RunEvent, RunInput, RunOptions, RunResult } from './run.types.js';
import { runCreditBound, type RunService } from './run.service.js';
import { checkInput } from './guardrails.js';

/**
 * The whole run pipeline after a surface has authenticated and resolved its entry: admission
 * (credit limits with a reservation of what the run can cost, concurrency slot) → run (guardrails,
 * handler) → settle: the reservation is replaced by the real charge. The slot and the reservation
 * are released on completion, error, timeout and caller disconnect (the generator's `finally`).
 * LimitExceeded and GuardrailBlocked are thrown before anything is yielded.
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
    const admitted = await this.admission.admit(agent, runCreditBound(agent, entry));
    let result: RunResult | undefined;
    try {
      for await (const ev of this.runs.stream(principal, agent, entry, input, opts)) {
        if (ev.type === 'done') result = ev.result;
        yield ev;
      }
    } finally {
      await admitted.settle(result?.credits ?? 0);
    }
  }
}
