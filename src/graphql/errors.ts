import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { DomainError } from '../domain/errors.js';

const CODES: Record<DomainError['code'], string> = {
  INVALID: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  PAYLOAD_TOO_LARGE: 'BAD_USER_INPUT',
  METHOD_NOT_ALLOWED: 'BAD_USER_INPUT',
  UNSUPPORTED_MEDIA_TYPE: 'BAD_USER_INPUT',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  RUN_FAILED: 'RUN_FAILED',
};

export interface ErrorLogger {
  error(obj: object, msg: string): void;
}

/**
 * The one GraphQL error mapper: domain errors keep their client-safe message and get a stable
 * `extensions.code` (and `field` for invalid input); GraphQL's own errors (syntax, validation) pass
 * through; anything else becomes a generic INTERNAL_SERVER_ERROR and is logged.
 */
export function formatError(logger: ErrorLogger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof DomainError) {
      const extensions: Record<string, unknown> = { code: CODES[original.code] };
      if (original.details) Object.assign(extensions, original.details);
      return { message: original.message, locations: formatted.locations, path: formatted.path, extensions };
    }
    const code = formatted.extensions?.code;
    if (original instanceof GraphQLError && code && code !== 'INTERNAL_SERVER_ERROR') {
      return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
    }
    logger.error({ err: original }, 'graphql resolver failed');
    return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}
