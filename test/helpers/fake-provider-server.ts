import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './local-server.js';

// What the local stand-ins for model providers (openai-server.ts, anthropic-server.ts) share: the
// loopback server, the request log that keeps model-list reads apart from the calls runs make, the
// JSON body read once, and a close that drops open connections. Each keeps its own wire format.

/** Fields every recorded request has; each provider server adds its own. */
export interface RecordedBase {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: object;
}

/** Counts the words of a text, the fake servers' token usage. */
export const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** Answers with a JSON body (a string is sent as is, as text/plain). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
  res.end(text);
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });

/** Whether a request is a model-list read (`GET /v1/models`), logged apart from the run calls. */
export const isModelList = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/v1/models';

/** The requests a provider server received: run calls in `requests`, model-list reads in `listRequests`. */
export class RequestLog<R extends RecordedBase> {
  readonly requests: R[] = [];
  readonly listRequests: R[] = [];

  /** Logs the request `entry` describes and reads its body into it; false when it is not JSON. */
  async record(req: IncomingMessage, entry: R): Promise<boolean> {
    (isModelList(entry) ? this.listRequests : this.requests).push(entry);
    const raw = await readBody(req);
    if (!raw) return true;
    try {
      entry.body = JSON.parse(raw) as object;
      return true;
    } catch {
      return false;
    }
  }

  clear(): void {
    this.requests.length = 0;
    this.listRequests.length = 0;
  }
}

/** The path of a request, without its query. */
export const pathOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://localhost').pathname;

export interface ProviderServer {
  /** Base URL ending in `/v1`. */
  url: string;
  /** Stops the server, dropping open connections; resolves after `drained` (answers still being written). */
  close(): Promise<void>;
}

/**
 * Starts a provider stand-in on 127.0.0.1 (random port). A handler that throws answers 500 with
 * `failure(err)` — or, once the headers went out, drops the connection; `ignore` names errors that
 * are the client going away (nothing to answer).
 */
export async function startProviderServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  opts: { failure: (err: unknown) => unknown; ignore?: (err: unknown) => boolean; drained?: () => Promise<void> },
): Promise<ProviderServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (opts.ignore?.(err) || res.destroyed) return;
      if (!res.headersSent) sendJson(res, 500, opts.failure(err));
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      const stopped = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeAllConnections();
      await Promise.all([stopped, opts.drained?.()]);
    },
  };
}
