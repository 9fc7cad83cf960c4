import type { RunEventEncoder } from '../shared/run-events.js';

/**
 * The HTTP API's stream (DESIGN §6 "HTTP API", `Accept: text/event-stream`): `delta` {text}…, then
 * `done` {output, runId, credits} or `error` {error, runId}, or `approval` {state, runId, approval} for a run
 * that waits for a person (issue 54; poll `/agents/{agentId}/runs/{runId}`). No `start`: the run's first step comes
 * before the status line, so a failure before it is an ordinary JSON error answer.
 */
export function httpApiEvents(runId: string): RunEventEncoder {
  return {
    delta: (text) => [{ event: 'delta', data: { text } }],
    end: (r) =>
      r.approval
        ? [
            {
              event: 'approval',
              data: {
                state: 'AWAITING_APPROVAL',
                runId: r.runId,
                approval: { id: r.approval.id, toolName: r.approval.toolName, expiresAt: r.approval.expiresAt },
              },
            },
          ]
        : r.error
          ? [{ event: 'error', data: { error: r.error.message, runId: r.runId } }]
          : [{ event: 'done', data: { output: r.output, runId: r.runId, credits: r.credits } }],
    error: () => [{ event: 'error', data: { error: 'The run failed', runId } }],
  };
}
