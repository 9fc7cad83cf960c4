import type Koa from 'koa';
import { Invalid, PayloadTooLarge, UnsupportedMediaType } from '../../domain/errors.js';
import { isCredentialHeader } from '../../domain/keys/credentials.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/json-depth.js';
import type { Json } from '../../domain/json.js';
import { malformedJsonMessage } from '../json-syntax.js';

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
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of ctx.req) {
      total += (chunk as Buffer).length;
      if (total > limit) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    // The caller closed the connection before its body was sent: its choice, not a fault of the
    // service (the request log says it went away), so not a logged 500.
    if (!(err instanceof PayloadTooLarge) && ctx.req.destroyed) throw new Invalid('The request was cut off: the caller closed the connection before its body arrived');
    throw err;
  }
  return Buffer.concat(chunks);
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
  if (encoding && encoding !== 'identity') throw new UnsupportedMediaType(`Unsupported content encoding '${encoding}': send the body uncompressed`);
  const raw = await readRaw(ctx);
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new Invalid(`The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; send at most ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new Invalid(malformedJsonMessage(text));
  }
}

/** An AbortSignal that fires when the client goes away before the response is complete. */
export function abortOnClose(ctx: Koa.Context): AbortSignal {
  const ac = new AbortController();
  ctx.res.on('close', () => {
    if (!ctx.res.writableFinished) ac.abort();
  });
  return ac.signal;
}

/** Whether the client asked for a server-sent event stream. */
export function wantsEventStream(ctx: Koa.Context): boolean {
  return /\btext\/event-stream\b/i.test(ctx.get('accept'));
}

/** The URL-decoded path segments after `prefix` (400 on a malformed escape). */
export function segmentsAfter(path: string, prefix: string): string[] {
  const rest = path.slice(prefix.length).replace(/^\/+|\/+$/g, '');
  if (!rest) return [];
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
  return segmentsAfter(path, prefix).flatMap((s) => s.split('/'));
}
