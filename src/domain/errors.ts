/** Stable codes of the domain error family; each transport maps them once. */
export type DomainErrorCode =
  | 'INVALID'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'LIMIT_EXCEEDED'
  | 'PAYLOAD_TOO_LARGE'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNAVAILABLE'
  | 'RUN_FAILED';

/**
 * Base of every error the domain raises on purpose; `message` is safe to show to clients. It is an
 * answer, not a fault, so it carries no stack trace: capturing one cost a refused request (a 429
 * under a flood) about a tenth of its CPU time.
 */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = new.target.name;
  }
}

/** Input failed validation; `field` names the offending input path, `extra` adds details (e.g. a line and column). */
export class Invalid extends DomainError {
  constructor(
    message: string,
    readonly field?: string,
    extra?: Record<string, unknown>,
  ) {
    super('INVALID', message, field || extra ? { ...(field ? { field } : {}), ...extra } : undefined);
  }
}

export class Unauthenticated extends DomainError {
  constructor(message = 'Missing or invalid credentials') {
    super('UNAUTHENTICATED', message);
  }
}

export class Forbidden extends DomainError {
  constructor(message = 'Not allowed') {
    super('FORBIDDEN', message);
  }
}

export class NotFound extends DomainError {
  /** @param how what to do about it, appended to "<entity> '<id>' not found" */
  constructor(
    readonly entity: string,
    readonly id?: string,
    how?: string,
  ) {
    super('NOT_FOUND', `${id ? `${entity} '${id}' not found` : `${entity} not found`}${how ?? ''}`);
  }
}

export class Conflict extends DomainError {
  constructor(message: string, field?: string) {
    super('CONFLICT', message, field ? { field } : undefined);
  }
}

export type LimitReason =
  'daily_credit_limit' | 'team_credit_limit' | 'workspace_credit_limit' | 'concurrency_limit' | 'channel_daily_quota';

export class LimitExceeded extends DomainError {
  constructor(
    readonly reason: LimitReason,
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super('LIMIT_EXCEEDED', message, { reason, retryAfterSeconds });
  }
}

export class PayloadTooLarge extends DomainError {
  constructor(message = 'Request body is too large') {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

/** A dependency (database, queue) could not take the request; the caller may retry. */
export class Unavailable extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super('UNAVAILABLE', message);
  }
}

/** The path exists but not for this method; `allowed` lists the methods that are. */
export class MethodNotAllowed extends DomainError {
  constructor(readonly allowed: string[]) {
    super('METHOD_NOT_ALLOWED', `Method not allowed here; allowed: ${allowed.join(', ')}`, { allowed });
  }
}

export class UnsupportedMediaType extends DomainError {
  constructor(message = 'Unsupported content type: send application/json') {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/**
 * A handler ran and failed (script error or limit, model error, no model configured, per-run credit
 * limit): a server-side failure of the run, whose message says what to fix.
 */
export class RunFailed extends DomainError {
  constructor(
    readonly runId: string,
    readonly kind: string,
    message: string,
  ) {
    super('RUN_FAILED', message, { runId, kind });
  }
}
