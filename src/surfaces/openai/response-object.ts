import { newId } from '../../domain/ids.js';
import type { Json } from '../../domain/json.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { ResponseEcho } from './responses.js';

// What a Responses request answers: the response object, its output items, the turn it adds to a
// stored conversation, and the semantic events of a streamed response.

/** The output items of a finished run: its text as one message, then the caller's tool calls. */
export function outputItems(r: RunResult): Json[] {
  const items: Json[] = [];
  const text = typeof r.output === 'string' ? r.output : r.output === null ? '' : JSON.stringify(r.output);
  if (text || !r.toolCalls?.length) items.push(messageOutput(newId('msg'), text));
  for (const c of r.toolCalls ?? []) items.push(functionCallOutput(newId('fc'), c, 'completed'));
  return items;
}

function messageOutput(id: string, text: string, status = 'completed'): Json {
  return {
    type: 'message',
    id,
    status,
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
}

function functionCallOutput(id: string, c: { id: string; name: string; arguments: string }, status: string): Json {
  return { type: 'function_call', id, call_id: c.id, name: c.name, arguments: c.arguments, status };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** What a response object is built from. */
export interface ResponseState {
  id: string;
  createdAt: number;
  status: ResponseStatus;
  echo: ResponseEcho;
  previousResponseId: string | null;
  store: boolean;
  output: Json[];
  result?: RunResult;
  error?: { code: string; message: string };
}

/**
 * The response object. `credits` and `run_id` are this service's extension: the run's credits as
 * the activity log charges them, and its id there.
 */
export function responseObject(s: ResponseState): Json {
  const r = s.result;
  const incomplete = s.status === 'incomplete';
  return {
    id: s.id,
    object: 'response',
    created_at: s.createdAt,
    status: s.status,
    ...(s.status === 'completed' ? { completed_at: Math.floor(Date.now() / 1000) } : {}),
    error: s.error ?? null,
    // A run waiting for a person (issue 54): incomplete, naming the approval (this service's extension).
    incomplete_details: incomplete
      ? r?.approval
        ? {
            reason: 'approval_required',
            approval: {
              id: r.approval.id,
              tool_name: r.approval.toolName,
              expires_at: r.approval.expiresAt.toISOString(),
            },
          }
        : { reason: 'max_output_tokens' }
      : null,
    instructions: s.echo.instructions,
    max_output_tokens: s.echo.maxOutputTokens,
    model: s.echo.model,
    output: s.output,
    parallel_tool_calls: true,
    previous_response_id: s.previousResponseId,
    reasoning: { effort: null, summary: null },
    store: s.store,
    temperature: s.echo.temperature,
    text: s.echo.text,
    tool_choice: s.echo.toolChoice,
    tools: s.echo.tools,
    top_p: s.echo.topP,
    truncation: 'disabled',
    usage: r
      ? {
          input_tokens: r.usage.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: r.usage.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: r.usage.inputTokens + r.usage.outputTokens,
        }
      : null,
    metadata: s.echo.metadata,
    credits: r?.credits ?? 0,
    run_id: r?.runId ?? null,
  };
}

/** The status of a finished run's response. */
export function statusOf(r: RunResult): ResponseStatus {
  if (r.error) return 'failed';
  if (r.approval) return 'incomplete';
  return r.finishReason === 'length' ? 'incomplete' : 'completed';
}

/** A streamed response's event: its `type` and fields, numbered in order. */
export type ResponseEvent = { type: string; sequence_number: number; [k: string]: Json };

/**
 * The semantic events of a streamed response, in the order clients expect: `response.created`,
 * `response.in_progress`, then for the text a message item (`output_item.added`,
 * `content_part.added`, `output_text.delta`…, `output_text.done`, `content_part.done`,
 * `output_item.done`), then each tool call as a function-call item (`output_item.added`,
 * `function_call_arguments.delta`, `function_call_arguments.done`, `output_item.done`), and
 * `response.completed` (or `response.incomplete` / `response.failed`).
 */
export class ResponseEvents {
  private seq = 0;
  private message: { id: string; text: string } | null = null;

  constructor(private readonly state: ResponseState) {}

  private event(type: string, fields: Record<string, Json>): ResponseEvent {
    return { type, sequence_number: this.seq++, ...fields };
  }

  start(): ResponseEvent[] {
    const response = responseObject({ ...this.state, status: 'in_progress', output: [] });
    return [this.event('response.created', { response }), this.event('response.in_progress', { response })];
  }

  private openMessage(): ResponseEvent[] {
    if (this.message) return [];
    this.message = { id: newId('msg'), text: '' };
    return [
      this.event('response.output_item.added', {
        output_index: 0,
        item: { type: 'message', id: this.message.id, status: 'in_progress', role: 'assistant', content: [] },
      }),
      this.event('response.content_part.added', {
        item_id: this.message.id,
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      }),
    ];
  }

  delta(text: string): ResponseEvent[] {
    const out = this.openMessage();
    this.message!.text += text;
    out.push(
      this.event('response.output_text.delta', {
        item_id: this.message!.id,
        output_index: 0,
        content_index: 0,
        delta: text,
        logprobs: [],
      }),
    );
    return out;
  }

  /** The closing events of a finished run; `output` is left on the state for the stored response. */
  finish(r: RunResult): ResponseEvent[] {
    const out: ResponseEvent[] = [];
    const output: Json[] = [];
    const calls = r.toolCalls ?? [];
    if (!r.error && (this.message || !calls.length)) {
      out.push(...this.openMessage());
      const { id, text } = this.message!;
      const done = { type: 'output_text', text, annotations: [], logprobs: [] };
      out.push(
        this.event('response.output_text.done', { item_id: id, output_index: 0, content_index: 0, text, logprobs: [] }),
        this.event('response.content_part.done', { item_id: id, output_index: 0, content_index: 0, part: done }),
        this.event('response.output_item.done', { output_index: 0, item: messageOutput(id, text) }),
      );
      output.push(messageOutput(id, text));
    }
    if (!r.error) {
      for (const c of calls) {
        const index = output.length;
        const id = newId('fc');
        out.push(
          this.event('response.output_item.added', {
            output_index: index,
            item: functionCallOutput(id, { ...c, arguments: '' }, 'in_progress'),
          }),
          this.event('response.function_call_arguments.delta', {
            item_id: id,
            output_index: index,
            delta: c.arguments,
          }),
          this.event('response.function_call_arguments.done', {
            item_id: id,
            output_index: index,
            name: c.name,
            arguments: c.arguments,
          }),
          this.event('response.output_item.done', {
            output_index: index,
            item: functionCallOutput(id, c, 'completed'),
          }),
        );
        output.push(functionCallOutput(id, c, 'completed'));
      }
    }
    this.state.output = output;
    this.state.result = r;
    this.state.status = statusOf(r);
    if (r.error)
      this.state.error = { code: r.error.kind === 'model' ? 'server_error' : r.error.kind, message: r.error.message };
    const type =
      this.state.status === 'failed'
        ? 'response.failed'
        : this.state.status === 'incomplete'
          ? 'response.incomplete'
          : 'response.completed';
    out.push(this.event(type, { response: responseObject(this.state) }));
    return out;
  }

  /** The event of a run that failed unexpectedly after the stream opened. */
  failed(message: string): ResponseEvent[] {
    this.state.status = 'failed';
    this.state.error = { code: 'server_error', message };
    return [this.event('response.failed', { response: responseObject(this.state) })];
  }
}
