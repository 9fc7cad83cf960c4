import {
  DomainError,
  LimitExceeded,
  MethodNotAllowed,
  NotFound,
  RunFailed,
  Unavailable,
  type DomainErrorCode,
  type LimitReason,
} from './errors.js';

/**
 * The one error catalogue (docs/decisions.md "Error catalogue and run-event encoders"): every kind
 * of refusal the domain answers with, defined once with what every protocol needs — its stable
 * code and HTTP status together (as Fastify's errors carry them), whether a caller may retry and
 * after how long, and a safe default message. Each protocol's encoder
 * (`src/surfaces/<name>/<name>.errors.ts`) is a table over these keys, typed
 * `Record<CatalogueKey, …>`, so an entry added here fails compilation until every protocol
 * encodes it. Protocol-free: no wire format lives here.
 */
export type CatalogueKey = DomainErrorCode;

/** What a refusal kind is, whatever the protocol. */
export interface CatalogueEntry {
  /** The stable code (the key; also GraphQL's `extensions.code` source). */
  readonly code: CatalogueKey;
  /** Its HTTP status: HTTP-like protocols answer with it, the others read it as a severity. */
  readonly status: number;
  /** Whether the same call may succeed later unchanged (a limit, a dependency down). */
  readonly retryable: boolean;
  /** The Retry-After of a retryable kind when the error itself does not say. */
  readonly retryAfterSeconds?: number;
  /** A safe message for when the error carries none of its own. */
  readonly message: string;
}

const entry = (code: CatalogueKey, status: number, message: string, retryAfterSeconds?: number): CatalogueEntry => ({
  code,
  status,
  retryable: retryAfterSeconds !== undefined,
  ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  message,
});

/** Every refusal kind, once. */
export const ERROR_CATALOGUE: Readonly<Record<CatalogueKey, CatalogueEntry>> = {
  INVALID: entry('INVALID', 400, 'Invalid input'),
  UNAUTHENTICATED: entry('UNAUTHENTICATED', 401, 'Missing or invalid credentials'),
  FORBIDDEN: entry('FORBIDDEN', 403, 'Not allowed'),
  NOT_FOUND: entry('NOT_FOUND', 404, 'Not found'),
  METHOD_NOT_ALLOWED: entry('METHOD_NOT_ALLOWED', 405, 'Method not allowed here'),
  CONFLICT: entry('CONFLICT', 409, 'Conflict'),
  PAYLOAD_TOO_LARGE: entry('PAYLOAD_TOO_LARGE', 413, 'Request body is too large'),
  UNSUPPORTED_MEDIA_TYPE: entry('UNSUPPORTED_MEDIA_TYPE', 415, 'Unsupported content type: send application/json'),
  // Concurrency answers 1 s; a credit limit says its own time (until the day turns).
  LIMIT_EXCEEDED: entry('LIMIT_EXCEEDED', 429, 'A limit of this agent was reached', 1),
  RUN_FAILED: entry('RUN_FAILED', 500, 'The run failed'),
  UNAVAILABLE: entry('UNAVAILABLE', 503, 'The service cannot take this request now; try again later', 5),
};

/** Every key, in the catalogue's order (for tests and documentation). */
export const CATALOGUE_KEYS = Object.keys(ERROR_CATALOGUE) as CatalogueKey[];

/**
 * One refusal as the encoders read it: its catalogue entry and the facts this occurrence carries.
 * Optional facts are present only for the kinds that have them.
 */
export interface Refusal {
  readonly key: CatalogueKey;
  readonly status: number;
  readonly retryable: boolean;
  /** Safe to show to the caller. */
  readonly message: string;
  /** When to try again (a retryable kind always has one). */
  readonly retryAfterSeconds?: number;
  /** Which limit refused (LIMIT_EXCEEDED). */
  readonly reason?: LimitReason;
  /** The offending input's path (INVALID, CONFLICT, a 404 of a request parameter). */
  readonly field?: string;
  /** Where in the input (a line and column of a manifest or a JSON text). */
  readonly position?: { line: number; column: number };
  /** The id of what was not found (NOT_FOUND), when the error names one. */
  readonly id?: string;
  /** The guardrail that blocked the input (an INVALID raised by the guardrails). */
  readonly guardrail?: string;
  /** The methods this path takes (METHOD_NOT_ALLOWED). */
  readonly allowed?: readonly string[];
  /** The failed run and its kind of failure (RUN_FAILED). */
  readonly runId?: string;
  readonly runErrorKind?: string;
}

/** The catalogue entry and facts of a domain error: what every encoder starts from. */
export function refusalOf(err: DomainError): Refusal {
  const e = ERROR_CATALOGUE[err.code];
  const d = err.details ?? {};
  const own = err as DomainError & { field?: unknown; guardrail?: unknown };
  const field = typeof own.field === 'string' && own.field ? own.field : d.field;
  const retryAfter =
    err instanceof LimitExceeded || err instanceof Unavailable ? err.retryAfterSeconds : e.retryAfterSeconds;
  return {
    key: e.code,
    status: e.status,
    retryable: e.retryable,
    message: err.message || e.message,
    ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    ...(err instanceof LimitExceeded ? { reason: err.reason } : {}),
    ...(typeof field === 'string' && field ? { field } : {}),
    ...(typeof d.line === 'number' && typeof d.column === 'number'
      ? { position: { line: d.line, column: d.column } }
      : {}),
    ...(err instanceof NotFound && err.id !== undefined ? { id: err.id } : {}),
    ...(typeof own.guardrail === 'string' ? { guardrail: own.guardrail } : {}),
    ...(err instanceof MethodNotAllowed ? { allowed: err.allowed } : {}),
    ...(err instanceof RunFailed ? { runId: err.runId, runErrorKind: err.kind } : {}),
  };
}

/** The refusal of a catalogue entry with no occurrence of its own (tests, protocol defaults). */
export function refusalOfKey(key: CatalogueKey, facts: Partial<Omit<Refusal, 'key' | 'status'>> = {}): Refusal {
  const e = ERROR_CATALOGUE[key];
  return {
    key,
    status: e.status,
    retryable: e.retryable,
    message: e.message,
    ...(e.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
    ...facts,
  };
}
