import type { RunEventEncoder } from '../shared/run-events.js';

/**
 * The HTTP API's stream (DESIGN §6 "HTTP API", `Accept: text/event-stream`): `delta` {text}…, then
 * `done` {output, runId, credits} or `error` {error, runId}. No `start`: the run's first step comes
 * before the status line, so a failure before it is an ordinary JSON error answer.
 */
export function httpApiEvents(runId: string): RunEventEncoder {
  return {
    delta: (text) => [{ event: 'delta', data: { text } }],
    end: (r) =>
      r.error
        ? [{ event: 'error', data: { error: r.error.message, runId: r.runId } }]
        : [{ event: 'done', data: { output: r.output, runId: r.runId, credits: r.credits } }],
    error: () => [{ event: 'error', data: { error: 'The run failed', runId } }],
  };
}
