import type Koa from 'koa';
import type { RunEvent } from '../../domain/runtime/run.types.js';
import { encodeRunEvent, type RunEventEncoder, type SseFrame } from './run-events.js';

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

/** Writes encoded frames on the stream. */
export function writeFrames(stream: EventStream, frames: readonly SseFrame[]): void {
  for (const f of frames) {
    if (f.event === undefined) stream.data(f.data);
    else stream.send(f.event, f.data);
  }
}

/**
 * Streams a run whose id is `runId` as `encoder` frames it (chat, HTTP API). Without a `start`
 * frame the run's first step comes before the status line, so a failure before its first event is
 * still an ordinary JSON error answer; after the stream has started, an unexpected failure ends it
 * with the encoder's `error` frames and is rethrown for the error log. `keepAliveMs`: a comment
 * line on an idle stream this often, so that proxies do not close it.
 */
export async function streamRun(
  ctx: Koa.Context,
  runId: string,
  events: AsyncGenerator<RunEvent>,
  encoder: RunEventEncoder,
  keepAliveMs?: number,
): Promise<void> {
  let next = encoder.start === undefined ? await events.next() : undefined;
  const stream = openEventStream(ctx, runId);
  const keepAlive = keepAliveMs ? setInterval(() => ctx.res.write(': keep-alive\n\n'), keepAliveMs) : undefined;
  keepAlive?.unref();
  try {
    if (encoder.start) writeFrames(stream, encoder.start());
    for (next ??= await events.next(); !next.done; next = await events.next())
      writeFrames(stream, encodeRunEvent(encoder, next.value));
  } catch (err) {
    writeFrames(stream, encoder.error());
    throw err;
  } finally {
    clearInterval(keepAlive);
    stream.end();
  }
}
