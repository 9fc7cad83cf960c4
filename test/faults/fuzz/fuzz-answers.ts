import type http from 'node:http';

// What every answer of the fuzz must look like: the error body its surface documents (DESIGN §6/§7),
// and no internal failure answered in-band.

/** An answer as node:http read it. */
export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request as sent: byte for byte, duplicate headers as separate lines. */
export interface Req {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

export type Surface = 'http' | 'doc' | 'mcp' | 'chat' | 'webhook' | 'workspace' | 'graphql';

/** JSON with object keys sorted (jsonb keeps its own key order). */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    isObj(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );
}
export function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
/** The events of a complete `text/event-stream` body. */
export function sseEvents(text: string): { event: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((b) => b.trim() && !b.startsWith(':'))
    .map((b) => {
      const data = b
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return { event: /^event: ?(.*)$/m.exec(b)?.[1] ?? 'message', data: parseJson(data) };
    });
}
export const isEventStream = (r: Reply) => /^text\/event-stream/.test(r.headers['content-type'] ?? '');

/** A REST error body of the agent surfaces: JSON `{"error": string}` (+ `reason` on a 429). */
export function restErrorProblem(r: Reply, exact: boolean): string | null {
  if (!/^application\/json/.test(r.headers['content-type'] ?? '')) return `content type ${r.headers['content-type']}`;
  const body = parseJson(r.text);
  if (!isObj(body) || typeof body.error !== 'string' || !body.error) return 'no string error';
  const allowed = exact ? ['error'] : r.status === 429 ? ['error', 'reason'] : ['error'];
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length) return `extra properties ${extra.join(',')}`;
  if (r.status === 429 && !(typeof body.reason === 'string' && /^\d+$/.test(String(r.headers['retry-after']))))
    return '429 without reason and Retry-After';
  if (r.status === 405 && !r.headers.allow) return '405 without Allow';
  return null;
}
export function isRpcError(m: unknown): boolean {
  return (
    isObj(m) &&
    m.jsonrpc === '2.0' &&
    isObj(m.error) &&
    Number.isInteger(m.error.code) &&
    typeof m.error.message === 'string'
  );
}
/** The JSON-RPC messages of an MCP answer (JSON or an event stream). */
export function rpcMessages(r: Reply): unknown[] {
  if (isEventStream(r)) return sseEvents(r.text).map((e) => e.data);
  const body = parseJson(r.text);
  return body === undefined ? [] : Array.isArray(body) ? body : [body];
}

/** An error of the shape the surface documents, or what is wrong with it. */
export function errorBodyProblem(s: Surface, r: Reply): string | null {
  if (s === 'workspace') return restErrorProblem(r, true);
  if (s === 'graphql') {
    const body = parseJson(r.text);
    // Refused before GraphQL sees the request — no such route or method (404), the HTTP body
    // unreadable (400 malformed JSON, 413, 415: the app's one HTTP error mapper) — the answer is the
    // REST error body (test/integration/graphql-transport.test.ts pins it); anything GraphQL
    // itself refuses has its errors array.
    if (
      isObj(body) &&
      typeof body.error === 'string' &&
      (r.status === 404 || /^(Malformed JSON body|Request body is too large|Unsupported content type)/.test(body.error))
    )
      return restErrorProblem(r, false);
    if (
      !isObj(body) ||
      !Array.isArray(body.errors) ||
      !body.errors.length ||
      !body.errors.every((e: any) => isObj(e) && typeof e.message === 'string')
    )
      return 'no GraphQL errors array';
    return null;
  }
  if (s === 'mcp') {
    const body = parseJson(r.text);
    if (isRpcError(body)) return null;
    return restErrorProblem(r, false);
  }
  return restErrorProblem(r, false);
}

/** An internal failure answered in-band (a 200 that hides a server error). */
export function inBandFailure(s: Surface, req: Req, r: Reply): string | null {
  if (r.status >= 300 || req.method === 'HEAD') return null;
  if (s === 'mcp') {
    for (const m of rpcMessages(r))
      if (isObj(m) && isObj(m.error) && m.error.code === -32603)
        return `JSON-RPC internal error: ${JSON.stringify(m.error).slice(0, 200)}`;
  }
  if (s === 'graphql') {
    const body = parseJson(r.text);
    if (
      isObj(body) &&
      Array.isArray(body.errors) &&
      body.errors.some((e: any) => e?.extensions?.code === 'INTERNAL_SERVER_ERROR')
    )
      return `GraphQL internal error: ${r.text.slice(0, 300)}`;
  }
  if ((s === 'http' || s === 'chat') && isEventStream(r)) {
    const events = sseEvents(r.text);
    const last = events.at(-1);
    if (!last || !['done', 'error'].includes(last.event))
      return `the stream ended without done or error: ${r.text.slice(-200)}`;
    if (last.event === 'error') return `the stream ended in an error: ${JSON.stringify(last.data)}`;
  }
  return null;
}
