import type { Agent } from '../core/agent.entities.js';
import type { ModelMessage, ToolCall } from '../models/language-model.ports.js';
import type { RunEntry, RunInput } from './run.types.js';

export type { RunResume } from './run.types.js';

/**
 * Where a run meets human approval (issue 54): which of the agent's tools wait for a person, and
 * where a run that called one is stored to be resumed. Given to the run service at composition (the
 * runtime imports no approvals folder, so approvals build on the runtime without a cycle).
 */
export interface ApprovalGate {
  /** The names of the agent's tools whose calls wait for a person (empty: none). */
  toolsNeedingApproval(agent: Agent): Promise<ReadonlySet<string>>;
  /** Stores the paused run; throws a DomainError when it cannot be kept (too large). */
  pause(run: PausedRun): Promise<{ id: string; expiresAt: Date }>;
}

/** A run that stopped at a call of a tool needing approval: everything its continuation needs. */
export interface PausedRun {
  agent: Agent;
  runId: string;
  entry: RunEntry;
  input: RunInput;
  /** A dialogue's own system text ('' for none), after the agent's instructions and the handler's. */
  system: string;
  /** The conversation up to and including the assistant turn that made the call. */
  messages: ModelMessage[];
  call: ToolCall;
}
