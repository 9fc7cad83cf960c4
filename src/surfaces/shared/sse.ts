import type Koa from 'koa';
import type { RunEvent, RunResult } from '../../domain/runtime/run.types.js';

/** A server-sent event stream on a response: `event: <name>` + `data: <json>` records. */
export interface EventStream {
  send(event: string, data: unknown): void;
  /** A record of data only (no event name), as OpenAI's Chat Completions stream frames its chunks; a string is sent as is. */
  data(data: unknown): void;
  end(): void;
}

/**
 * Takes the response over from Koa and starts a `text/event-stream` answer with status 200. The
 * run's id goes out in `X-Run-Id` with the status line: the only moment a header can still be sent.
 */
export function openEventStream(ctx: Koa.Context, runId: string): EventStream {
  ctx.status = 200;
  ctx.respond = false;
  ctx.res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'X-Run-Id': runId,
  });
  return {
    send: (event, data) => void ctx.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
    data: (data) => void ctx.res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`),
    end: () => void ctx.res.end(),
  };
}

/** How a surface frames a run on its stream. */
export interface RunFraming {
  /** A `start` event sent as soon as the stream opens, before the run's first event (chat). */
  start?: unknown;
  done(r: RunResult): unknown;
  error(r: RunResult): unknown;
  /** The `error` event of a run that failed unexpectedly after the stream opened. */
  failed: unknown;
  /** A comment line on an idle stream this often, so that proxies do not close it. */
  keepAliveMs?: number;
}

/** The HTTP API's framing: `done` {output, runId, credits}, `error` {error, runId}. */
export function httpApiFraming(runId: string): RunFraming {
  return {
    done: (r) => ({ output: r.output, runId: r.runId, credits: r.credits }),
    error: (r) => ({ error: r.error!.message, runId: r.runId }),
    failed: { error: 'The run failed', runId },
  };
}

/**
 * Streams a run whose id is `runId`: `delta` {text}… then `done` or `error` — a script's run is its
 * one `done` (or `error`). Without a `start` event the run's first step comes before the status
 * line, so a failure before its first event is still an ordinary JSON error answer; after the
 * stream has started, an unexpected failure ends it with the framing's `failed` event and is
 * rethrown for the error log.
 */
export async function streamRun(
  ctx: Koa.Context,
  runId: string,
  events: AsyncGenerator<RunEvent>,
  framing: RunFraming = httpApiFraming(runId),
): Promise<void> {
  let next = framing.start === undefined ? await events.next() : undefined;
  const stream = openEventStream(ctx, runId);
  const keepAlive = framing.keepAliveMs
    ? setInterval(() => ctx.res.write(': keep-alive\n\n'), framing.keepAliveMs)
    : undefined;
  keepAlive?.unref();
  try {
    if (framing.start !== undefined) stream.send('start', framing.start);
    for (next ??= await events.next(); !next.done; next = await events.next()) {
      const ev = next.value;
      if (ev.type === 'delta') stream.send('delta', { text: ev.text });
      else if (ev.result.error) stream.send('error', framing.error(ev.result));
      else stream.send('done', framing.done(ev.result));
    }
  } catch (err) {
    stream.send('error', framing.failed);
    throw err;
  } finally {
    clearInterval(keepAlive);
    stream.end();
  }
}
