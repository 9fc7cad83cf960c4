// "Try it": one real request to an agent surface from the browser, with what came back as it
// came — status, headers, the body or, for an event stream, each event as it arrives.
import { EventStreamParser } from '../../packages/cli/src/shared/sse.js';
import { clockTime } from './format.js';

/** One server-sent event as it arrived. */
export interface StreamEvent {
  event: string;
  data: string;
  /** `data` parsed as JSON, when it is JSON. */
  json?: unknown;
}

export interface TryItResult {
  status: number;
  statusText: string;
  headers: [string, string][];
  /** The body as text (for a stream: everything received). */
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** The events of a `text/event-stream` answer. */
  events: StreamEvent[];
  streamed: boolean;
  durationMs: number;
}

export interface TryItRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Called with the result so far whenever more of it arrives (streams). */
  onProgress?: ((partial: TryItResult) => void) | undefined;
}

function parsed(text: string): { json?: unknown } {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

/** Sends the request; never throws for an HTTP status (only when the service cannot be reached, or on abort). */
export async function sendTryIt(req: TryItRequest): Promise<TryItResult> {
  const started = performance.now();
  const res = await fetch(req.url, {
    method: req.method,
    headers: req.headers,
    ...(req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD' ? { body: req.body } : {}),
    credentials: 'omit',
    cache: 'no-store',
    ...(req.signal ? { signal: req.signal } : {}),
  });
  const result: TryItResult = {
    status: res.status,
    statusText: res.statusText,
    headers: [...res.headers.entries()],
    text: '',
    events: [],
    streamed: (res.headers.get('content-type') ?? '').startsWith('text/event-stream'),
    durationMs: 0,
  };
  if (result.streamed && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const parser = new EventStreamParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      result.text += chunk;
      const events = parser.push(chunk).map((e) => ({ ...e, ...parsed(e.data) }));
      if (events.length) {
        result.events = [...result.events, ...events];
        result.durationMs = Math.round(performance.now() - started);
        req.onProgress?.({ ...result });
      }
    }
  } else {
    result.text = await res.text();
    Object.assign(result, parsed(result.text));
  }
  result.durationMs = Math.round(performance.now() - started);
  return result;
}

/** A response header (case-insensitive). */
export function headerOf(result: TryItResult, name: string): string | undefined {
  return result.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

/** "Try again in 3 hours" from a Retry-After of seconds (or an HTTP date). */
export function retryText(retryAfter: string | undefined): string | null {
  if (!retryAfter) return null;
  let s = Number(retryAfter);
  if (!Number.isFinite(s)) {
    const at = Date.parse(retryAfter);
    if (Number.isNaN(at)) return null;
    s = Math.max(0, (at - Date.now()) / 1000);
  }
  const when =
    s < 90
      ? `${Math.ceil(s)} seconds`
      : s < 5400
        ? `${Math.ceil(s / 60)} minutes`
        : `${Math.round((s / 3600) * 10) / 10} hours`;
  const at = new Date(Date.now() + s * 1000);
  return `Try again in ${when} (Retry-After: ${retryAfter}; at ${clockTime(at)})`;
}

/** Where a JSON.parse error points, as 1-based line and column of `text`. */
export function jsonErrorAt(text: string): { message: string; line?: number; column?: number } | null {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    const message = err instanceof Error ? err.message : 'Not valid JSON';
    const pos = /position (\d+)/.exec(message);
    const lc = /line (\d+) column (\d+)/.exec(message);
    if (lc) return { message, line: Number(lc[1]), column: Number(lc[2]) };
    if (!pos) return { message };
    const before = text.slice(0, Number(pos[1]));
    const lines = before.split('\n');
    return { message, line: lines.length, column: lines[lines.length - 1]!.length + 1 };
  }
}
