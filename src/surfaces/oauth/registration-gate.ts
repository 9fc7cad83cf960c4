import type http from 'node:http';
import type Koa from 'koa';
import type { RegistrationAdmission } from '../../infra/oauth/registration-limits.js';
import { REGISTRATION_BOUNDS, registrationProblem } from './registration-bounds.js';

/** Admits one registration from a remote address (counted in the database, see registration-limits.ts). */
export type AdmitRegistration = (address: string) => Promise<RegistrationAdmission>;

/**
 * The gate of anonymous dynamic registration (`POST /oauth/register`, issue 49 item 1) before the
 * provider: the body at most 8 KB, the metadata's bounds, the per-address rate and the cap on
 * unapproved clients. Answers a refusal itself (400 `invalid_client_metadata` as RFC 7591 §3.2.2
 * says, or 429 with Retry-After) and returns null; otherwise returns the request for the provider,
 * its body read once here and given back to it.
 */
export async function passRegistration(
  ctx: Koa.Context,
  admit: AdmitRegistration | undefined,
): Promise<http.IncomingMessage | null> {
  const refuse = (status: number, error: string, description: string, extra: Record<string, unknown> = {}) => {
    ctx.status = status;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error, error_description: description, ...extra };
    return null;
  };
  const tooBig = `The registration request must be at most ${REGISTRATION_BOUNDS.bodyBytes} bytes`;
  const length = ctx.request.length;
  // Refused unread, and the connection closed after the answer: the body is never read into memory.
  if (length !== undefined && length > REGISTRATION_BOUNDS.bodyBytes) {
    ctx.set('Connection', 'close');
    return refuse(400, 'invalid_client_metadata', tooBig);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false })) {
    received += (chunk as Buffer).length;
    if (received > REGISTRATION_BOUNDS.bodyBytes) {
      ctx.set('Connection', 'close');
      return refuse(400, 'invalid_client_metadata', tooBig);
    }
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks, received);
  let metadata: unknown;
  try {
    metadata = ctx.is('application/json') ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    // Not JSON: the provider answers it as it always has (invalid_request).
  }
  const problem = registrationProblem(metadata);
  if (problem) return refuse(400, 'invalid_client_metadata', problem);
  if (admit) {
    const admission = await admit(ctx.ip);
    if (!admission.ok) {
      ctx.set('Retry-After', String(admission.retryAfter));
      return refuse(429, 'temporarily_unavailable', admission.description, { reason: admission.reason });
    }
  }
  return replay(ctx.req, body);
}

/**
 * The request as the provider reads it: the same request (headers, socket, URL) whose body is the
 * bytes already read. The provider reads a readable request itself; a request already read would
 * make it fall back to a parsed body, with a warning meant for apps that put a body parser before it.
 */
function replay(req: http.IncomingMessage, body: Buffer): http.IncomingMessage {
  return Object.create(req, {
    readable: { value: true },
    readableEncoding: { value: null },
    iterator: {
      value: async function* () {
        if (body.length) yield body;
      },
    },
  }) as http.IncomingMessage;
}
