import { Forbidden, Invalid, PayloadTooLarge } from '../errors.js';
import type { Role } from '../principal.js';
import type { PausedRun } from '../runtime/approval-gate.ports.js';
import {
  APPROVER_ROLES,
  DEFAULT_EXPIRY_SECONDS,
  MAX_APPROVAL_ARGUMENT_CHARS,
  MAX_APPROVAL_REASON_CHARS,
  MAX_APPROVAL_RESUME_CHARS,
  MAX_EXPIRY_SECONDS,
  MAX_POLICY_TOOLS,
  type ApprovalState,
  type ApproverRole,
} from './approval.entities.js';

// The decisions of approvals as pure functions (unit-tested without a database).

/** Throws Forbidden unless a member of `role` may decide approvals whose approver role is `approver`. */
export function assertMayDecide(role: Role, approver: ApproverRole): void {
  if (role === 'ADMIN') return;
  if (role === 'MEMBER' && approver === 'MEMBER') return;
  throw new Forbidden(
    approver === 'ADMIN'
      ? 'Only workspace admins may decide this agent’s approvals'
      : 'Only members and admins may decide this agent’s approvals',
  );
}

/** Whether a pending approval is past its expiry at `now` (an expired one is a denial). */
export function isExpired(a: { state: ApprovalState; expiresAt: Date }, now: Date): boolean {
  return a.state === 'PENDING' && a.expiresAt.getTime() <= now.getTime();
}

/** A decision's reason, trimmed, bounded; '' is none. */
export function reasonOf(reason: string | null | undefined): string | null {
  const r = reason?.trim() ?? '';
  if (r.length > MAX_APPROVAL_REASON_CHARS)
    throw new Invalid(`must be at most ${MAX_APPROVAL_REASON_CHARS} characters`, 'reason');
  if (r.includes('\u0000')) throw new Invalid('must not contain U+0000 (NUL)', 'reason');
  return r || null;
}

/** An agent's policy as given, checked: known tool names, bounded, an approver role, an expiry. */
export function policyInput(
  p: { tools: string[]; approverRole?: string | null; expirySeconds?: number | null },
  known: readonly string[],
): { tools: string[]; approverRole: ApproverRole; expirySeconds: number } {
  if (p.tools.length > MAX_POLICY_TOOLS) throw new Invalid(`at most ${MAX_POLICY_TOOLS} tools`, 'tools');
  const unknown = p.tools.filter((t) => !known.includes(t));
  if (unknown.length)
    throw new Invalid(
      `unknown tool ${JSON.stringify(unknown[0]!.slice(0, 100))}: name one of the agent’s tools (${known.join(', ') || 'it has none: switch on a capability'})`,
      'tools',
    );
  const role = p.approverRole ?? 'ADMIN';
  if (!(APPROVER_ROLES as readonly string[]).includes(role))
    throw new Invalid('must be ADMIN or MEMBER', 'approverRole');
  const expiry = p.expirySeconds ?? DEFAULT_EXPIRY_SECONDS;
  if (!Number.isInteger(expiry) || expiry < 60 || expiry > MAX_EXPIRY_SECONDS)
    throw new Invalid(`must be a whole number of seconds from 60 to ${MAX_EXPIRY_SECONDS}`, 'expirySeconds');
  return { tools: [...new Set(p.tools)], approverRole: role as ApproverRole, expirySeconds: expiry };
}

/** Throws when a paused run is too large to keep (the run then fails with the reason, nothing stored). */
export function assertStorable(run: PausedRun): void {
  if (run.call.arguments.length > MAX_APPROVAL_ARGUMENT_CHARS)
    throw new PayloadTooLarge(
      `The call's arguments exceed ${MAX_APPROVAL_ARGUMENT_CHARS} characters; it cannot wait for approval`,
    );
  const size = JSON.stringify(run.messages).length + JSON.stringify(run.input).length;
  if (size > MAX_APPROVAL_RESUME_CHARS)
    throw new PayloadTooLarge(
      `The conversation exceeds ${MAX_APPROVAL_RESUME_CHARS} characters; it cannot wait for approval`,
    );
}
