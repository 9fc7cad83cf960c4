// The call lifecycle's hook for outbound events. Its types are structural (what the events name of
// an agent, a run and a refusal): src/domain/calls depends on this folder, never the reverse.

export interface RunEventAgent {
  id: string;
  workspaceId: string;
}

export interface RunEventFacts {
  runId: string | null;
  entry: string;
  durationMs: number;
  credits: number;
  /** `ok`, or how it failed. */
  outcome: string;
  error: string | null;
}

/**
 * Who hears of runs ending and of limits refusing them: called synchronously by the lifecycle, so
 * each must return at once and never throw.
 */
export interface RunEvents {
  ended(agent: RunEventAgent, input: { surface: string }, facts: RunEventFacts): void;
  limited(
    agent: RunEventAgent,
    input: { surface: string },
    refusal: { reason: string; retryAfterSeconds: number; message: string },
  ): void;
}
