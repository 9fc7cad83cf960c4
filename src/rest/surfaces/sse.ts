import type Koa from 'koa';
import type { RunEvent, RunResult } from '../../domain/runtime/run.types.js';

/** A server-sent event stream on a response: `event: <name>` + `data: <json>` records. */
export interface EventStream {
  send(event: string, data: unknown): void;
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
    end: () => void ctx.res.end(),
  };
}

/** How a surface frames the end of a run on its stream. */
export interface RunFraming {
  done(r: RunResult): unknown;
  error(r: RunResult): unknown;
}

const HTTP_API_FRAMING: RunFraming = {
  done: (r) => ({ output: r.output, runId: r.runId, credits: r.credits }),
  error: (r) => ({ error: r.error!.message, runId: r.runId }),
};

/**
 * Streams a run whose id is `runId` (the surface passed it to the pipeline as `RunOptions.runId`):
 * `delta` {text}… then `done` or `error` — a script's run is its one `done` (or `error`). The first
 * step runs the pipeline's checks and admission, so a refusal is still an ordinary JSON error
 * answer; after the stream has started, an unexpected failure ends it with a generic `error` event
 * and is rethrown for the error log.
 */
export async function streamRun(ctx: Koa.Context, runId: string, events: AsyncGenerator<RunEvent>, framing: RunFraming = HTTP_API_FRAMING): Promise<void> {
  let next = await events.next();
  const stream = openEventStream(ctx, runId);
  try {
    for (; !next.done; next = await events.next()) {
      const ev = next.value;
      if (ev.type === 'delta') stream.send('delta', { text: ev.text });
      else if (ev.result.error) stream.send('error', framing.error(ev.result));
      else stream.send('done', framing.done(ev.result));
    }
  } catch (err) {
    stream.send('error', { error: 'The run failed', runId });
    throw err;
  } finally {
    stream.end();
  }
}
