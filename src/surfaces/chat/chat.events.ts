import type { RunEventEncoder } from '../shared/run-events.js';

/**
 * The widget chat's stream (DESIGN §6 "Chat"): `start` {conversationId, runId}, `delta` {text}…,
 * then `done` {output, credits} or `error` {error}.
 */
export function chatEvents(conversationId: string, runId: string): RunEventEncoder {
  return {
    start: () => [{ event: 'start', data: { conversationId, runId } }],
    delta: (text) => [{ event: 'delta', data: { text } }],
    end: (r) =>
      r.error
        ? [{ event: 'error', data: { error: r.error.message } }]
        : [{ event: 'done', data: { output: r.output, credits: r.credits } }],
    error: () => [{ event: 'error', data: { error: 'The run failed' } }],
  };
}
