import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { isModelList, pathOf, RequestLog, sendJson, startProviderServer, words } from './fake-provider-server.js';

/** A tool call the fake model makes; `arguments` is sent JSON-encoded, as OpenAI does. */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * One scripted answer. With neither `text` nor `toolCalls` the answer is the default echo
 * (`echo: <last user message>`), so `{ delayMs: 500 }` is a slow echo.
 */
export interface FakeTurn {
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Overrides the word-count usage. */
  usage?: { prompt: number; completion: number };
  /** Wait before the response headers are sent. */
  delayMs?: number;
  /** Wait between streamed SSE chunks. */
  chunkDelayMs?: number;
  /** An HTTP status ≥ 400 answers with `errorBody` (JSON; a string is sent as is). */
  status?: number;
  /** A streamed answer breaks off (the connection is destroyed) after this many chunks: a model failing mid-stream. */
  failAfterChunks?: number;
  /** A streamed answer sends every chunk, its usage included, then breaks off without `[DONE]`. */
  failAfterUsage?: boolean;
  errorBody?: unknown;
}

/** A chat message as the AI SDK sends it (loosely typed: only the fields tests look at). */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The parsed JSON body of a request (`{}` when it had none). */
export interface ChatRequestBody {
  model?: string;
  messages?: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  [key: string]: unknown;
}

/** A request as the server received it. `aborted` is set when the client went away before the answer ended. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatRequestBody;
  aborted?: boolean;
  /** When the request arrived and when its answer ended (ms since epoch), to measure overlap. */
  receivedAt: number;
  endedAt?: number;
}

/** A local OpenAI-compatible server answering `/v1/chat/completions` from a script. */
export interface FakeOpenAi {
  /** Base URL ending in `/v1`, for `baseURL` of the AI SDK providers. */
  readonly url: string;
  /** Every request received, in order, but the model-list reads (`GET /v1/models`). */
  readonly requests: RecordedRequest[];
  /** The model-list reads (`GET /v1/models`, as configureModel sends them), kept apart so that `requests` holds the calls runs make. */
  readonly listRequests: RecordedRequest[];
  /** Appends turns; each chat completion request consumes the next one. */
  enqueue(...turns: FakeTurn[]): void;
  /** Number of turns not yet consumed. */
  pending(): number;
  /** Resolves once no response is being written (streams finished or aborted). */
  idle(): Promise<void>;
  /**
   * What `GET /v1/models` answers from now on: these model names, or an HTTP error (`status` ≥ 400
   * with `errorBody`, as a turn's). `reset()` goes back to FAKE_MODELS.
   */
  setModelList(answer: readonly string[] | { status: number; errorBody?: unknown }): void;
  /** Forgets recorded requests and unconsumed turns, and lists FAKE_MODELS again. */
  reset(): void;
  /** Stops the server, dropping open connections. */
  close(): Promise<void>;
}

/** Models listed by `GET /v1/models`. */
export const FAKE_MODELS = ['fake-model', 'fake-model-mini', 'fake-model-large'] as const;

/** The text of a message's content: a string or an array of `{ type: 'text', text }` parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) => (p && typeof p === 'object' && 'text' in p && typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join(' ');
}

/** Splits after whitespace so the pieces concatenate back exactly: "a b c" → ["a ", "b ", "c"]. */
const splitWords = (text: string) => (text ? text.split(/(?<=\s)(?=\S)/) : []);

/** Splits a string into 2 or 3 non-empty fragments (a single character stays whole). */
function fragments(s: string): string[] {
  const n = Math.min(3, s.length);
  const size = Math.ceil(s.length / Math.max(n, 1));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length ? out : [''];
}

const apiError = (message: string, type: string) => ({ error: { message, type, param: null, code: null } });

/** Starts the fake server on 127.0.0.1 (random port). */
export async function startOpenAiServer(): Promise<FakeOpenAi> {
  const log = new RequestLog<RecordedRequest>();
  let queue: FakeTurn[] = [];
  let modelList: readonly string[] | { status: number; errorBody?: unknown } = FAKE_MODELS;
  let seq = 0;
  let inFlight = 0;
  const idleWaiters: (() => void)[] = [];

  const idle = () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));
  const done = () => {
    inFlight--;
    if (inFlight === 0) for (const w of idleWaiters.splice(0)) w();
  };

  async function chat(body: ChatRequestBody, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const turn = queue.shift() ?? {};
    if (turn.delayMs) await sleep(turn.delayMs, undefined, { signal });
    if (turn.status && turn.status >= 400) {
      return sendJson(
        res,
        turn.status,
        turn.errorBody ?? apiError(`Scripted failure (${turn.status})`, 'server_error'),
      );
    }
    const messages = body.messages ?? [];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const toolCalls = (turn.toolCalls ?? []).map((c) => ({
      id: `call_${++seq}`,
      name: c.name,
      args: JSON.stringify(c.arguments),
    }));
    const text = turn.text ?? (toolCalls.length ? undefined : `echo: ${textOf(lastUser?.content)}`);
    const prompt =
      turn.usage?.prompt ??
      Math.max(
        1,
        messages.reduce((n, m) => n + words(textOf(m.content)), 0),
      );
    const completion = turn.usage?.completion ?? Math.max(1, words(text ?? ''));
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    const finish_reason = toolCalls.length ? 'tool_calls' : 'stop';
    const base = {
      id: `chatcmpl-${++seq}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? FAKE_MODELS[0],
    };

    if (!body.stream) {
      const tool_calls = toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.args },
      }));
      const message = { role: 'assistant', content: text ?? null, ...(tool_calls.length ? { tool_calls } : {}) };
      return sendJson(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason }],
        usage,
      });
    }

    const deltas: Record<string, unknown>[] = splitWords(text ?? '').map((content) => ({ content }));
    toolCalls.forEach((c, index) => {
      deltas.push({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
      for (const a of fragments(c.args)) deltas.push({ tool_calls: [{ index, function: { arguments: a } }] });
    });
    const chunks: Record<string, unknown>[] = deltas.map((delta, i) => ({
      choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', ...delta } : delta, finish_reason: null }],
    }));
    chunks.push({ choices: [{ index: 0, delta: {}, finish_reason }] });
    if (body.stream_options?.include_usage) chunks.push({ choices: [], usage });

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0 && turn.chunkDelayMs) await sleep(turn.chunkDelayMs, undefined, { signal });
      if (signal.aborted) return;
      if (turn.failAfterChunks !== undefined && i >= turn.failAfterChunks) {
        // What was written reaches the client first; then the connection drops without the stream's end.
        await new Promise<void>((resolve) => res.write('', () => resolve()));
        return void res.destroy();
      }
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...chunk })}\n\n`);
    }
    if (turn.failAfterUsage) {
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      return void res.destroy();
    }
    res.end('data: [DONE]\n\n');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      path: pathOf(req),
      headers: req.headers,
      body: {},
      receivedAt: Date.now(),
    };
    const closed = new AbortController();
    res.on('close', () => {
      entry.endedAt = Date.now();
      if (!res.writableFinished) {
        entry.aborted = true;
        closed.abort();
      }
      done();
    });
    inFlight++;

    if (!(await log.record(req, entry)))
      return sendJson(res, 400, apiError('Request body is not valid JSON', 'invalid_request_error'));
    if (isModelList(entry)) {
      if (!Array.isArray(modelList)) {
        const failure = modelList as { status: number; errorBody?: unknown };
        return sendJson(
          res,
          failure.status,
          failure.errorBody ?? apiError(`Scripted failure (${failure.status})`, 'server_error'),
        );
      }
      const data = modelList.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake-openai' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (entry.method === 'POST' && entry.path === '/v1/chat/completions') return chat(entry.body, res, closed.signal);
    sendJson(res, 404, apiError(`Unknown route ${entry.method} ${entry.path}`, 'invalid_request_error'));
  }

  const server = await startProviderServer(handle, {
    failure: (err) => apiError(String(err), 'server_error'),
    ignore: closedByClient,
    drained: idle,
  });

  return {
    url: server.url,
    requests: log.requests,
    listRequests: log.listRequests,
    enqueue: (...turns) => void queue.push(...turns),
    pending: () => queue.length,
    idle,
    setModelList: (answer) => void (modelList = answer),
    reset: () => {
      log.clear();
      queue = [];
      modelList = FAKE_MODELS;
    },
    close: server.close,
  };
}

/** An AbortError from a sleep cut short because the client disconnected. */
const closedByClient = (err: unknown) => err instanceof Error && err.name === 'AbortError';
