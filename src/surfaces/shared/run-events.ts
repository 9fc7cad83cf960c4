import type { RunEvent, RunResult } from '../../domain/runtime/run.types.js';

/**
 * One server-sent event: `event: <name>` + `data: <json>`, or a data-only record when `event` is
 * absent (a string `data` is sent as is, as OpenAI's `[DONE]`).
 */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/**
 * Encodes one run's event stream (`RunEvent`) as a protocol's wire frames: each call returns the
 * frames to write, zero or more; the transport writes them and decides nothing itself. A stateful
 * object when the protocol numbers or accumulates (OpenAI's Responses, MCP progress).
 */
export interface RunEventEncoder<F = SseFrame> {
  /** Frames sent as soon as the stream opens, before the run's first event (absent: the run's first step comes first). */
  start?(): F[];
  /** A piece of text the run produced. */
  delta(text: string): F[];
  /** The run's end (its `done` event): its result, or the error it ended with. */
  end(result: RunResult): F[];
  /** The run failed unexpectedly after the stream opened. */
  error(): F[];
}

/** The frames of one run event. */
export function encodeRunEvent<F>(encoder: RunEventEncoder<F>, ev: RunEvent): F[] {
  return ev.type === 'delta' ? encoder.delta(ev.text) : encoder.end(ev.result);
}
