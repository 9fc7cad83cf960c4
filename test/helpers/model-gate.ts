import { createServer, request } from 'node:http';
import { listenOnLoopback } from './local-server.js';
import type { FakeOpenAi } from './openai-server.js';

/**
 * An OpenAI-compatible address in front of a FakeOpenAi that can hold model calls: while shut, every
 * request waits at the gate until `open()`. Tests of concurrency limits use it instead of a slow
 * answer, so "these calls are still running" is a state the test sets, not a race against a delay.
 */
export interface ModelGate {
  /** Base URL ending in `/v1`, like FakeOpenAi's. */
  readonly url: string;
  /** Holds every later request until `open()`; resets `maxInFlight`. */
  shut(): void;
  /** Lets held and later requests through. */
  open(): void;
  /** Requests waiting at the gate now. */
  held(): number;
  /** The most requests in flight at once (arrived, answer not yet ended) since the last `shut()`. */
  maxInFlight(): number;
  close(): Promise<void>;
}

/** Starts a gate (open) forwarding to `target`. */
export async function startModelGate(target: Pick<FakeOpenAi, 'url'>): Promise<ModelGate> {
  const origin = new URL(target.url).origin;
  let isOpen = true;
  let waiting: (() => void)[] = [];
  let inFlight = 0;
  let max = 0;
  const server = createServer((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    res.once('close', () => inFlight--);
    const forward = () => {
      const upstream = request(
        new URL(req.url ?? '/', origin),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          // A model that breaks off mid-answer breaks off behind the gate too.
          answer.once('close', () => {
            if (!answer.complete) res.destroy();
          });
          answer.pipe(res);
        },
      );
      upstream.once('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (isOpen) forward();
    else waiting.push(forward);
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    shut: () => {
      isOpen = false;
      max = inFlight;
    },
    open: () => {
      isOpen = true;
      const go = waiting;
      waiting = [];
      for (const forward of go) forward();
    },
    held: () => waiting.length,
    maxInFlight: () => max,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
