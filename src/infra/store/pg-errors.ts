import { Conflict, DomainError, Invalid, Unavailable } from '../../domain/errors.js';

const CONSTRAINT_MESSAGES: Record<string, { message: string; field?: string }> = {
  http_endpoints_agent_id_path_shape_unique: {
    message: 'This agent already has an HTTP endpoint with that path (parameter names do not make paths different)',
    field: 'path',
  },
  mcp_tools_agent_id_name_unique: { message: 'This agent already has an MCP tool with that name', field: 'name' },
  schedules_agent_name_unique: { message: 'This agent already has a schedule with that name', field: 'name' },
  webhooks_agent_id_integration_unique: {
    message: 'This agent already has a webhook with that integration name',
    field: 'integration',
  },
  channels_kind_address_unique: {
    message: 'That address already routes to an agent: an email address or number belongs to one channel',
    field: 'address',
  },
  agents_workspace_id_slug_unique: {
    message: 'Another agent of this workspace has that slug: choose another one',
    field: 'slug',
  },
  secrets_workspace_id_name_unique: { message: 'A secret with that name already exists', field: 'name' },
  models_workspace_id_name_unique: { message: 'A model with that name already exists', field: 'name' },
  teams_workspace_id_name_unique: { message: 'A team with that name already exists', field: 'name' },
  members_workspace_id_email_unique: { message: 'A member with that email already exists', field: 'email' },
  document_exposures_agent_id_document_id_unique: { message: 'That document is already exposed', field: 'documentId' },
};

/** Socket errors of a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Seconds a caller is asked to wait while the database cannot be reached. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether an error means the database cannot be reached now (as opposed to refusing a statement):
 * a refused or lost connection, a server shutting down or starting up (SQLSTATE class 08, 57P01–03),
 * no connection free in the pool in time, or the pg client's own "connection terminated".
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (CONNECTION_CODES.has(code) || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')
    return true;
  if (e.name === 'KnexTimeoutError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|not queryable|connect ECONNREFUSED/.test(message);
}

/**
 * Translates PostgreSQL errors into domain errors; never lets SQL text reach a client. An unreachable
 * database becomes Unavailable with the driver's error as its `cause` (for the logs, never an answer).
 */
export function translatePgError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  if (isDatabaseUnavailable(err))
    return Object.assign(
      new Unavailable('The database cannot be reached right now; retry shortly', DATABASE_RETRY_AFTER_SECONDS),
      { cause: err },
    );
  const e = err as { code?: string; constraint?: string };
  switch (e?.code) {
    case '23505': {
      const known = e.constraint ? CONSTRAINT_MESSAGES[e.constraint] : undefined;
      return new Conflict(known?.message ?? 'An entry with the same unique value already exists', known?.field);
    }
    case '23503':
      return new Invalid('A referenced entity does not exist');
    case '23514':
      return new Invalid('A value is outside the allowed set');
    case '22P05':
    case '22021':
      return new Invalid('A text value holds a character that cannot be stored (such as U+0000)');
    case '22001':
      return new Invalid('A value is too long');
    case '22P02':
    case '22007':
    case '22008':
      return new Invalid('A value has the wrong format');
    default:
      return err;
  }
}

/** Runs a query and translates its PostgreSQL errors. */
export async function q<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw translatePgError(err);
  }
}

/**
 * Repositories whose every call translates its errors, whichever statement, connection or pool
 * failed: no database error leaves src/infra untranslated, even from a method without `q`.
 */
export function translated<R extends object>(repos: R): R {
  const out: Record<string, unknown> = {};
  for (const [name, repo] of Object.entries(repos)) {
    const calls: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(repo as object))
      calls[k] = typeof v === 'function' ? (...args: unknown[]) => q(() => v.apply(repo, args)) : v;
    out[name] = calls;
  }
  return out as R;
}
