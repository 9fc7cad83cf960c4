import {
  CATALOGUE_KEYS,
  ERROR_CATALOGUE,
  refusalOfKey,
  type CatalogueKey,
  type Refusal,
} from '../../domain/error-catalogue.js';

/**
 * A 429 whose Retry-After is longer than this tells OpenAI's clients not to retry (`x-should-retry:
 * false`): they would otherwise wait a minute at most and try again, into the same refusal.
 */
const CLIENT_RETRY_CEILING_SECONDS = 60;

/** OpenAI's error object, `{"error": {…}}` on the wire. */
export interface OpenAiError {
  message: string;
  type: string;
  code: string | null;
  param: string | null;
  /** The guardrail that blocked the input (this service's addition). */
  guardrail?: string;
  /** The run that failed (this service's addition). */
  run_id?: string;
}

/** Each refusal kind's OpenAI `type` and `code`. */
const TABLE: Record<CatalogueKey, { type: string; code: (r: Refusal) => string | null }> = {
  INVALID: { type: 'invalid_request_error', code: (r) => (r.guardrail ? 'guardrail_blocked' : null) },
  UNAUTHENTICATED: { type: 'authentication_error', code: () => 'invalid_api_key' },
  FORBIDDEN: { type: 'permission_error', code: () => 'surface_disabled' },
  NOT_FOUND: { type: 'invalid_request_error', code: () => 'not_found' },
  METHOD_NOT_ALLOWED: { type: 'invalid_request_error', code: () => 'method_not_allowed' },
  CONFLICT: { type: 'invalid_request_error', code: () => null },
  PAYLOAD_TOO_LARGE: { type: 'invalid_request_error', code: () => 'request_too_large' },
  UNSUPPORTED_MEDIA_TYPE: { type: 'invalid_request_error', code: () => 'unsupported_media_type' },
  // The limit's own reason (`daily_credit_limit`, `concurrency_limit`, …).
  LIMIT_EXCEEDED: { type: 'rate_limit_error', code: (r) => r.reason ?? 'rate_limit_exceeded' },
  RUN_FAILED: { type: 'server_error', code: () => 'run_failed' },
  UNAVAILABLE: { type: 'service_unavailable_error', code: () => 'unavailable' },
};

/** A field path as OpenAI's `param` writes it: `messages[0].content`. */
function paramOf(field: string | undefined): string | null {
  return field ? field.replace(/\.(\d+)(?=\.|$)/g, '[$1]') : null;
}

/**
 * A refusal as OpenAI's error object, and the headers it adds to the HTTP answer's (which keeps the
 * catalogue's status): a 429 names its limit in `code`, a guardrail's 400 names the guardrail, a
 * failed run's 500 names the run.
 */
export function encodeOpenAiError(r: Refusal): { error: OpenAiError; headers: Record<string, string> } {
  const t = TABLE[r.key];
  const error: OpenAiError = {
    message: r.message,
    type: t.type,
    code: t.code(r),
    param: r.guardrail ? null : paramOf(r.field),
  };
  if (r.guardrail) error.guardrail = r.guardrail;
  if (r.key === 'RUN_FAILED' && r.runId) error.run_id = r.runId;
  const headers: Record<string, string> =
    r.key === 'LIMIT_EXCEEDED' && (r.retryAfterSeconds ?? 0) > CLIENT_RETRY_CEILING_SECONDS
      ? { 'x-should-retry': 'false' }
      : {};
  return { error, headers };
}

/**
 * An error answered by HTTP middleware before the domain (the body parser's 400/413/415) or an
 * unexpected failure (500): the catalogue entry of that status, or a bare error object.
 */
export function openAiErrorOfStatus(status: number, message: string): OpenAiError {
  const key = CATALOGUE_KEYS.find((k) => k !== 'RUN_FAILED' && ERROR_CATALOGUE[k].status === status);
  if (key) return encodeOpenAiError(refusalOfKey(key, { message })).error;
  return { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null, param: null };
}
