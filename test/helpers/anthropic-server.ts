import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { isModelList, pathOf, RequestLog, sendJson, startProviderServer, words } from './fake-provider-server.js';

/** A request as the local Messages API server received it. */
export interface AnthropicRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (`{}` when it had none or it was not JSON). */
  body: {
    model?: string;
    system?: unknown;
    messages?: { role: string; content: unknown }[];
    stream?: boolean;
    max_tokens?: number;
    [k: string]: unknown;
  };
  /** The token usage the answer reported, when a message was answered. */
  usage?: { input_tokens: number; output_tokens: number };
}

/** A local server speaking the Anthropic Messages API (`POST /v1/messages`), JSON and SSE. */
export interface FakeAnthropic {
  /** Base URL ending in `/v1`: what an Anthropic model's `baseUrl` (the SDK's `baseURL`) is set to. */
  readonly url: string;
  /** Every request received, in order, but the model-list reads (`GET /v1/models`). */
  readonly requests: AnthropicRequest[];
  /** The model-list reads, kept apart so that `requests` holds the calls runs make. */
  readonly listRequests: AnthropicRequest[];
  /** Sets the text of every following answer (default `hello from anthropic`). */
  answer(text: string): void;
  /** Every following message request answers this HTTP error in Anthropic's envelope (null: answer again). */
  failWith(failure: { status: number; type: string; message: string } | null): void;
  reset(): void;
  close(): Promise<void>;
}

/** Anthropic's error envelope. */
const apiError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

/** Models listed by `GET /v1/models`. */
export const ANTHROPIC_MODELS = ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-opus-4-1'] as const;

/** Starts the server on 127.0.0.1 (random port). It answers only requests carrying an `x-api-key`. */
export async function startAnthropicServer(): Promise<FakeAnthropic> {
  const log = new RequestLog<AnthropicRequest>();
  let text = 'hello from anthropic';
  let failure: { status: number; type: string; message: string } | null = null;
  let seq = 0;

  /** Anthropic's list shape: `{ data: [{ type, id, display_name, created_at }], has_more, first_id, last_id }`. */
  function models(res: ServerResponse): void {
    const data = ANTHROPIC_MODELS.map((id) => ({
      type: 'model',
      id,
      display_name: id,
      created_at: '2025-01-01T00:00:00Z',
    }));
    sendJson(res, 200, { data, has_more: false, first_id: data[0]!.id, last_id: data[data.length - 1]!.id });
  }

  function messages(entry: AnthropicRequest, res: ServerResponse): void {
    const body = entry.body;
    const id = `msg_${++seq}`;
    const model = body.model ?? 'claude-test';
    const usage = {
      input_tokens: Math.max(1, words(JSON.stringify(body.messages ?? []))),
      output_tokens: Math.max(1, words(text)),
    };
    entry.usage = usage;
    if (!body.stream) {
      return sendJson(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 0 },
      },
    });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const piece of text.split(/(?<=\s)(?=\S)/))
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
    event('content_block_stop', { index: 0 });
    event('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    event('message_stop', {});
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry: AnthropicRequest = { method: req.method ?? 'GET', path: pathOf(req), headers: req.headers, body: {} };
    if (!(await log.record(req, entry)))
      return sendJson(res, 400, apiError('invalid_request_error', 'Request body is not valid JSON'));
    const known = (entry.method === 'POST' && entry.path === '/v1/messages') || isModelList(entry);
    if (!known) return sendJson(res, 404, apiError('not_found_error', `Unknown route ${entry.method} ${entry.path}`));
    if (!req.headers['x-api-key'])
      return sendJson(res, 401, apiError('authentication_error', 'x-api-key header is required'));
    if (entry.method === 'GET') return models(res);
    if (failure) return sendJson(res, failure.status, apiError(failure.type, failure.message));
    messages(entry, res);
  }

  const server = await startProviderServer(handle, { failure: (err) => apiError('api_error', String(err)) });

  return {
    url: server.url,
    requests: log.requests,
    listRequests: log.listRequests,
    answer: (t) => void (text = t),
    failWith: (f) => void (failure = f),
    reset: () => {
      log.clear();
      text = 'hello from anthropic';
      failure = null;
    },
    close: server.close,
  };
}
