import type { CatalogueKey, Refusal } from '../../domain/error-catalogue.js';
import { encodeHttpError, type HttpErrorAnswer } from '../shared/http.errors.js';

/** JSON-RPC's code for a server-defined error: a refusal by one of the agent's limits. */
const LIMIT_CODE = -32000;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** Where this service's reasons are defined, for the error details (google.rpc.ErrorInfo). */
const ERROR_DOMAIN = 'agent-exposure-service';

/** A JSON-RPC error object. */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** The google.rpc.ErrorInfo of a refusal, as A2A 1.0 carries error details. */
function errorInfo(r: Refusal): Record<string, unknown>[] {
  const metadata: Record<string, string> = {};
  if (r.retryAfterSeconds !== undefined) metadata.retryAfterSeconds = String(r.retryAfterSeconds);
  return [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: r.reason ?? r.key, domain: ERROR_DOMAIN, metadata },
  ];
}

const plain =
  (code: number) =>
  (r: Refusal): JsonRpcError => ({ code, message: r.message });

/** Each refusal kind's JSON-RPC error (A2A's JSON-RPC binding). */
const JSON_RPC: Record<CatalogueKey, (r: Refusal) => JsonRpcError> = {
  INVALID: plain(INVALID_PARAMS),
  UNAUTHENTICATED: plain(INTERNAL_ERROR),
  FORBIDDEN: plain(INTERNAL_ERROR),
  NOT_FOUND: plain(INTERNAL_ERROR),
  METHOD_NOT_ALLOWED: plain(INTERNAL_ERROR),
  CONFLICT: plain(INTERNAL_ERROR),
  PAYLOAD_TOO_LARGE: plain(INVALID_PARAMS),
  UNSUPPORTED_MEDIA_TYPE: plain(INVALID_PARAMS),
  LIMIT_EXCEEDED: (r) => ({ code: LIMIT_CODE, message: r.message, data: errorInfo(r) }),
  RUN_FAILED: plain(INTERNAL_ERROR),
  UNAVAILABLE: plain(INTERNAL_ERROR),
};

/**
 * A refusal on A2A's JSON-RPC binding: the error object (answered with HTTP 200, in the body) and
 * the headers of the HTTP answer (Retry-After for a limit).
 */
export function encodeA2aJsonRpcError(r: Refusal): { error: JsonRpcError; headers: Record<string, string> } {
  return {
    error: JSON_RPC[r.key](r),
    headers: r.key === 'LIMIT_EXCEEDED' ? { 'Retry-After': String(r.retryAfterSeconds) } : {},
  };
}

/**
 * A refusal on A2A's HTTP+JSON binding: the agent surfaces' HTTP answer (DESIGN §6 body, the
 * catalogue's status). The SDK's own errors (task not found, …) keep its google.rpc.Status body.
 */
export function encodeA2aRestError(r: Refusal): HttpErrorAnswer {
  return encodeHttpError(r);
}
