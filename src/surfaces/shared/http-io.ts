import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { Invalid, PayloadTooLarge, UnsupportedMediaType } from '../../domain/errors.js';
import { isCredentialHeader } from '../../domain/core/credentials.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/json-depth.js';
import type { Json } from '../../domain/json.js';
import { malformedJsonMessage } from '../../rest/json-syntax.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export { canNameEntity, printableParam } from '../../domain/ids.js';

/** Request headers for the run input: credential headers are left out entirely. */
export function runHeaders(ctx: Koa.Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.headers)) {
    if (v === undefined || isCredentialHeader(k)) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * Reads the raw body, refusing more than 1 MiB (by Content-Length up front, or while reading). A
 * refused body is left unread, so the answer closes the connection: a client must not reuse it.
 */
export async function readRaw(ctx: Koa.Context, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = () => {
    ctx.set('Connection', 'close');
    return new PayloadTooLarge(`Request body is too large (limit ${limit / 1024 / 1024} MiB)`);
  };
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw tooLarge();
  try {
    return await collect(ctx.req, limit, tooLarge);
  } catch (err) {
    // The caller closed the connection before its body was sent: its choice, not a fault of the
    // service (the request log says it went away), so not a logged 500.
    if (!(err instanceof PayloadTooLarge) && ctx.req.destroyed)
      throw new Invalid('The request was cut off: the caller closed the connection before its body arrived');
    throw err;
  }
}

/**
 * The request's bytes up to its end, as `for await` over it reads them (a request that fails or
 * closes early rejects; one that passes `limit` is destroyed and rejects with `tooLarge()`), with
 * one listener per event: an async iterator and its end-of-stream watch cost a small request more
 * than its body does.
 */
function collect(req: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    if (req.destroyed) return reject(new Error('The request stream was closed before its end'));
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = () => void req.off('data', onData).off('end', onEnd).off('error', fail).off('close', onClose);
    const fail = (err: Error) => {
      settle();
      reject(err);
    };
    const onClose = () => fail(new Error('The request stream was closed before its end'));
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limit) return void chunks.push(chunk);
      const err = tooLarge();
      // As `for await` leaves a server request early (Node's stream destroyer): the request is
      // destroyed without its socket, which stays open for the 413 (whose answer closes it).
      settle();
      (req as { socket: unknown }).socket = null;
      req.destroy();
      reject(err);
    };
    const onEnd = () => {
      settle();
      resolve(Buffer.concat(chunks));
    };
    req.on('data', onData).on('end', onEnd).on('error', fail).on('close', onClose);
  });
}

function hasBody(ctx: Koa.Context): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || Boolean(ctx.get('transfer-encoding'));
}

/**
 * The JSON body of a request, or `undefined` when there is none. A body must be sent as
 * application/json (or `+json`): anything else is 415; unparsable JSON is 400; over 1 MiB is 413;
 * nested more than MAX_JSON_DEPTH levels deep is 400.
 */
export async function readJson(ctx: Koa.Context): Promise<Json | undefined> {
  if (!hasBody(ctx)) return undefined;
  const type = ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new UnsupportedMediaType(`Unsupported content type '${type || 'none'}': send the body as application/json`);
  }
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding && encoding !== 'identity')
    throw new UnsupportedMediaType(`Unsupported content encoding '${encoding}': send the body uncompressed`);
  const raw = await readRaw(ctx);
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new Invalid(
      `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; send at most ${MAX_JSON_DEPTH} levels`,
    );
  }
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new Invalid(malformedJsonMessage(text));
  }
}

/** An AbortSignal that fires when the client goes away before the response is complete. */
export function abortOnClose(ctx: Koa.Context): AbortSignal {
  return lazyAbortOnClose(ctx)();
}

/**
 * {@link abortOnClose}, made only when first asked for. Making an AbortSignal costs more than the
 * rest of a refused request's body handling, and a request refused before its run never needs
 * one. A signal made after the client went away is made aborted.
 */
export function lazyAbortOnClose(ctx: Koa.Context): () => AbortSignal {
  let ac: AbortController | undefined;
  let gone = false;
  ctx.res.on('close', () => {
    if (ctx.res.writableFinished) return;
    gone = true;
    ac?.abort();
  });
  return () => {
    if (!ac) {
      ac = new AbortController();
      if (gone) ac.abort();
    }
    return ac.signal;
  };
}

/** Whether the client asked for a server-sent event stream. */
export function wantsEventStream(ctx: Koa.Context): boolean {
  return /\btext\/event-stream\b/i.test(ctx.get('accept'));
}

/** The URL-decoded path segments after `prefix` (400 on a malformed escape). */
export function segmentsAfter(path: string, prefix: string): string[] {
  const rest = trimSlashes(path.slice(prefix.length));
  if (!rest) return [];
  // Without a percent sign there is nothing to decode.
  if (!rest.includes('%')) return rest.split('/');
  try {
    return rest.split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw new Invalid('The request path has a malformed percent-escape');
  }
}

/**
 * The endpoint path of an HTTP API request as segments: each raw segment URL-decoded, then split
 * again on the slashes it decoded to. An encoded slash (`%2F`) separates segments like a plain one,
 * because generated clients and the docs page's "Try it out" encode a multi-segment `{path}` whole
 * (`orders%2F42%2Fsummary`); both spellings then reach the same endpoint. A segment that decodes to
 * `.` or `..` is kept as it is: no endpoint path has one and a parameter never captures one (see
 * HttpApiService), so such a request matches nothing.
 */
export function endpointSegments(path: string, prefix: string): string[] {
  const segments = segmentsAfter(path, prefix);
  // Only a decoded `%2F` can put a slash inside a segment.
  return path.includes('%') ? segments.flatMap((s) => s.split('/')) : segments;
}

/** `text` without its leading and trailing slashes. */
function trimSlashes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 47) start++;
  while (end > start && text.charCodeAt(end - 1) === 47) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
