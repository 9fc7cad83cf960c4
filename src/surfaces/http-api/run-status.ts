import type { Approval } from '../../domain/approvals/approval.entities.js';
import type { Json } from '../../domain/json.js';

/**
 * What polling a paused run answers (issue 54): 202 while it waits for a person or its continuation
 * runs (or paused again: `next` names the new run to poll), 200 once it has an answer or failed.
 */
export function runStatus(a: Approval): { status: 200 | 202; body: Record<string, Json> } {
  const approval: Json = {
    id: a.id,
    toolName: a.call.name,
    state: a.state,
    expiresAt: a.expiresAt.toISOString(),
    decidedBy: a.decidedBy,
    reason: a.reason,
  };
  const o = a.outcome;
  if (!o)
    return {
      status: 202,
      body: { state: a.state === 'PENDING' ? 'AWAITING_APPROVAL' : 'RUNNING', runId: a.runId, approval },
    };
  if (o.nextApprovalId)
    return {
      status: 202,
      body: { state: 'AWAITING_APPROVAL', runId: o.runId, approval: { id: o.nextApprovalId }, previous: approval },
    };
  return {
    status: 200,
    body: {
      state: o.error ? 'FAILED' : 'COMPLETED',
      runId: a.runId,
      continuedRunId: o.runId,
      approval,
      ...(o.error ? { error: o.error } : { output: (o.output ?? null) as Json }),
    },
  };
}
