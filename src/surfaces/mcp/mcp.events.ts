import type { RunEventEncoder } from '../shared/run-events.js';

/** MCP's progress notification (`notifications/progress`). */
export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; message: string };
}

/**
 * A streaming prompt tool's progress, as MCP reports it while `tools/call` runs: the characters
 * written so far, at most once per `intervalMs`, and only when the request asked for progress (a
 * `progressToken` in its `_meta`). The run's end and failure report nothing: the call's result (or
 * error) answers them.
 */
export function mcpProgress(
  token: string | number | undefined,
  intervalMs: number,
  now: () => number = Date.now,
): RunEventEncoder<ProgressNotification> {
  let received = 0;
  let lastSent = 0;
  return {
    delta(text) {
      received += text.length;
      const at = now();
      if (token === undefined || at - lastSent < intervalMs) return [];
      lastSent = at;
      return [
        {
          method: 'notifications/progress',
          params: { progressToken: token, progress: received, message: `${received} characters written` },
        },
      ];
    },
    end: () => [],
    error: () => [],
  };
}
