import type { ModelMessage, ToolCall } from '../models/language-model.ports.js';
import type { Role } from '../principal.js';
import type { RunEntry, RunInput } from '../runtime/run.types.js';
import type { Surface } from '../core/surface.entities.js';

// Human approval of risky actions (issue 54). Repositories map rows to these explicitly.

/** Which of an agent's tools wait for a person, who may decide, and for how long a call waits. */
export interface ApprovalPolicy {
  agentId: string;
  /** Tool names: built-in (`send_email`, `send_sms`, document writes) or Endpoint Management operations. */
  tools: string[];
  /** ADMIN: admins only; MEMBER: members and admins. Viewers never decide. */
  approverRole: ApproverRole;
  expirySeconds: number;
  updatedAt: Date;
}

export const APPROVER_ROLES = ['ADMIN', 'MEMBER'] as const satisfies readonly Role[];
export type ApproverRole = (typeof APPROVER_ROLES)[number];

export const APPROVAL_STATES = ['PENDING', 'APPROVED', 'DENIED', 'EXPIRED'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** What a paused run keeps to be continued on any instance. */
export interface ApprovalResume {
  entry: RunEntry;
  input: RunInput;
  system: string;
  messages: ModelMessage[];
}

/** How the continued run ended, for the caller that polls. */
export interface ApprovalOutcome {
  runId: string;
  output: unknown;
  error: string | null;
  /** Set when the continuation paused again at another call waiting for a person. */
  nextApprovalId: string | null;
}

/** A tool call waiting for (or past) a person's decision. */
export interface Approval {
  id: string;
  workspaceId: string;
  agentId: string;
  /** The paused run's id; the continuation is a run of its own, named in `outcome.runId`. */
  runId: string;
  surface: Surface;
  call: ToolCall;
  resume: ApprovalResume;
  approverRole: ApproverRole;
  state: ApprovalState;
  expiresAt: Date;
  /** Email of the member who decided (null while pending, or when it expired). */
  decidedBy: string | null;
  decidedAt: Date | null;
  reason: string | null;
  outcome: ApprovalOutcome | null;
  createdAt: Date;
}

/** The longest arguments a stored call keeps, and the longest stored conversation (characters of JSON). */
export const MAX_APPROVAL_ARGUMENT_CHARS = 64 * 1024;
export const MAX_APPROVAL_RESUME_CHARS = 1024 * 1024;
export const MAX_APPROVAL_REASON_CHARS = 1000;
export const MAX_POLICY_TOOLS = 100;
export const DEFAULT_EXPIRY_SECONDS = 24 * 3600;
/** A week at most: a paused run holds its conversation in the database. */
export const MAX_EXPIRY_SECONDS = 7 * 24 * 3600;
