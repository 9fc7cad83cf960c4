import type { Approval, ApprovalOutcome, ApprovalPolicy, ApprovalState } from './approval.entities.js';

export interface ApprovalRepo {
  getPolicy(agentId: string): Promise<ApprovalPolicy | null>;
  /** Replaces the agent's policy; no tools removes it. */
  savePolicy(policy: ApprovalPolicy): Promise<void>;
  insert(a: Approval): Promise<void>;
  get(id: string): Promise<Approval | null>;
  /** The approval of a paused run, by the paused run's id. */
  findByRun(runId: string): Promise<Approval | null>;
  /** Pending first, then newest first. */
  list(workspaceId: string, f: { agentId?: string; state?: ApprovalState; first: number }): Promise<Approval[]>;
  /**
   * Moves a pending approval to its decision, in one statement: false when it was no longer
   * pending (another person or instance decided first).
   */
  decide(
    id: string,
    d: { state: ApprovalState; decidedBy: string | null; at: Date; reason: string | null },
  ): Promise<boolean>;
  /** Pending approvals past their expiry (for housekeeping), oldest first. */
  listExpired(now: Date, limit: number): Promise<Approval[]>;
  saveOutcome(id: string, outcome: ApprovalOutcome): Promise<void>;
}
