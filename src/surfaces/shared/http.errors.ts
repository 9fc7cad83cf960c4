import type { CatalogueKey, Refusal } from '../../domain/error-catalogue.js';

/** An error answer over HTTP: its status, its headers and its JSON body. */
export interface HttpErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: string; reason?: string };
}

type Headers = Record<string, string>;
const none = (): Headers => ({});

/** The headers each refusal kind adds to its answer (DESIGN §6). */
const HEADERS: Record<CatalogueKey, (r: Refusal) => Headers> = {
  INVALID: none,
  UNAUTHENTICATED: none,
  FORBIDDEN: none,
  NOT_FOUND: none,
  METHOD_NOT_ALLOWED: (r): Headers => (r.allowed ? { Allow: r.allowed.join(', ') } : {}),
  CONFLICT: none,
  PAYLOAD_TOO_LARGE: none,
  UNSUPPORTED_MEDIA_TYPE: none,
  LIMIT_EXCEEDED: (r) => ({
    'Retry-After': String(r.retryAfterSeconds),
    // IETF RateLimit header (draft-ietf-httpapi-ratelimit-headers): nothing remains until reset.
    RateLimit: `"${r.reason}";r=0;t=${r.retryAfterSeconds}`,
  }),
  RUN_FAILED: (r): Headers => (r.runId ? { 'X-Run-Id': r.runId } : {}),
  UNAVAILABLE: (r) => ({ 'Retry-After': String(r.retryAfterSeconds) }),
};

/**
 * A refusal as the agent surfaces' HTTP answer (DESIGN §6): the catalogue's status, `{"error":
 * message}` (+ `reason` on a 429), Retry-After on 429 and 503, Allow on 405, X-Run-Id on a failed
 * run's 500.
 */
export function encodeHttpError(r: Refusal): HttpErrorAnswer {
  return {
    status: r.status,
    headers: HEADERS[r.key](r),
    body: r.key === 'LIMIT_EXCEEDED' ? { error: r.message, reason: r.reason! } : { error: r.message },
  };
}
