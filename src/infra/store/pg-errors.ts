import { Conflict, DomainError, Invalid } from '../../domain/errors.js';

const CONSTRAINT_MESSAGES: Record<string, { message: string; field?: string }> = {
  http_endpoints_agent_id_path_shape_unique: { message: 'This agent already has an HTTP endpoint with that path (parameter names do not make paths different)', field: 'path' },
  mcp_tools_agent_id_name_unique: { message: 'This agent already has an MCP tool with that name', field: 'name' },
  webhooks_agent_id_integration_unique: { message: 'This agent already has a webhook with that integration name', field: 'integration' },
  secrets_workspace_id_name_unique: { message: 'A secret with that name already exists', field: 'name' },
  models_workspace_id_name_unique: { message: 'A model with that name already exists', field: 'name' },
  teams_workspace_id_name_unique: { message: 'A team with that name already exists', field: 'name' },
  members_workspace_id_email_unique: { message: 'A member with that email already exists', field: 'email' },
  document_exposures_agent_id_document_id_unique: { message: 'That document is already exposed', field: 'documentId' },
};

/** Translates PostgreSQL errors into domain errors; never lets SQL text reach a client. */
export function translatePgError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
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
