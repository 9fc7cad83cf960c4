import type { Json } from '../../domain/json.js';
import type { RunResult } from '../../domain/runtime/run.types.js';

// What a chat completion answers: the completion object, and the chunks of a streamed one.

/** What identifies a completion in every answer and chunk. */
export interface CompletionIds {
  id: string;
  created: number;
  model: string;
}

export function completionIds(runId: string, model: string, now: Date): CompletionIds {
  return { id: `chatcmpl-${runId}`, created: Math.floor(now.getTime() / 1000), model };
}

/** Token usage as OpenAI reports it. */
export function usageOf(r: RunResult): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  return {
    prompt_tokens: r.usage.inputTokens,
    completion_tokens: r.usage.outputTokens,
    total_tokens: r.usage.inputTokens + r.usage.outputTokens,
  };
}

function toolCallsOf(r: RunResult): Json[] {
  return (r.toolCalls ?? []).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
}

function outputText(r: RunResult): string {
  return typeof r.output === 'string' ? r.output : r.output === null ? '' : JSON.stringify(r.output);
}

/**
 * The non-streamed answer: one choice; `credits` and `run_id` are this service's extension (the
 * run's credits as the activity log charges them, and its id there).
 */
export function completionObject(ids: CompletionIds, r: RunResult): Json {
  const calls = toolCallsOf(r);
  const text = outputText(r);
  return {
    id: ids.id,
    object: 'chat.completion',
    created: ids.created,
    model: ids.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.length && !text ? null : text,
          refusal: null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: r.finishReason ?? 'stop',
      },
    ],
    usage: usageOf(r),
    credits: r.credits,
    run_id: r.runId,
  };
}

/** A chunk of the stream (`object: chat.completion.chunk`). */
export function chunk(ids: CompletionIds, delta: Json, finishReason: string | null = null): Json {
  return {
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The stream's last chunks for a finished run: its tool calls, the finish reason, and the usage when asked for. */
export function closingChunks(ids: CompletionIds, r: RunResult, includeUsage: boolean): Json[] {
  const out: Json[] = [];
  const calls = r.toolCalls ?? [];
  if (calls.length) {
    out.push(
      chunk(ids, {
        tool_calls: calls.map((c, index) => ({
          index,
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      }),
    );
  }
  out.push(chunk(ids, {}, r.finishReason ?? 'stop'));
  if (includeUsage)
    out.push({
      id: ids.id,
      object: 'chat.completion.chunk',
      created: ids.created,
      model: ids.model,
      choices: [],
      usage: usageOf(r),
      credits: r.credits,
      run_id: r.runId,
    });
  return out;
}
