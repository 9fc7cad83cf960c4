import type { RunResult } from '../../domain/runtime/run.types.js';
import { chunk, closingChunks, type CompletionIds } from './chat-completion-object.js';
import { ResponseEvents, type ResponseEvent, type ResponseState } from './response-object.js';
import type { RunEventEncoder, SseFrame } from '../shared/run-events.js';

/** The error record a stream ends with when its run fails after the stream opened. */
function streamError(message: string, code: string, runId: string): SseFrame {
  return { data: { error: { message, type: 'server_error', code, param: null, run_id: runId } } };
}

const DONE: SseFrame = { data: '[DONE]' };

/**
 * A streamed chat completion: `chat.completion.chunk` records as `data:` lines — the assistant's
 * role first, a chunk per delta, the closing chunks (finish reason, tool calls, usage when asked),
 * then `[DONE]`. A run that ends in an error sends OpenAI's error record (its kind as `code`)
 * before `[DONE]`; one that fails unexpectedly sends `run_failed` and no `[DONE]`.
 */
export function chatCompletionChunks(ids: CompletionIds, includeUsage: boolean, runId: string): RunEventEncoder {
  return {
    start: () => [{ data: chunk(ids, { role: 'assistant', content: '' }) }],
    delta: (text) => [{ data: chunk(ids, { content: text }) }],
    end: (r: RunResult) =>
      r.error
        ? [streamError(r.error.message, r.error.kind, r.runId), DONE]
        : [...closingChunks(ids, r, includeUsage).map((data) => ({ data })), DONE],
    error: () => [streamError('The run failed', 'run_failed', runId)],
  };
}

/**
 * A streamed response's semantic events (`event: <type>` + the event as `data:`), numbered in
 * order by `ResponseEvents`: `response.created`, `response.in_progress`, the text's item events,
 * each tool call's, and `response.completed` (or `.incomplete` / `.failed`). `end` leaves the
 * finished output on `state`, for the stored response.
 */
export function responseEvents(state: ResponseState): RunEventEncoder {
  const shaped = new ResponseEvents(state);
  const frames = (list: ResponseEvent[]): SseFrame[] => list.map((e) => ({ event: e.type, data: e }));
  return {
    start: () => frames(shaped.start()),
    delta: (text) => frames(shaped.delta(text)),
    end: (r) => frames(shaped.finish(r)),
    error: () => frames(shaped.failed('The run failed')),
  };
}
