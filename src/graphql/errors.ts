import { GraphQLError, isEnumType, isInputObjectType, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
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

// graphql-js names an unknown enum value or input field and suggests close names ("Did you mean");
// when nothing is close it says only what was wrong. These add what may be sent instead.
const UNKNOWN_ENUM_VALUE = /(?:does not exist in "(\w+)" enum|\bEnum "(\w+)" cannot represent)/;
const UNKNOWN_INPUT_FIELD = /\bField "[^"]*" is not defined by type "(\w+)"\.(?! Did you mean)/;

/** graphql-js's message, plus the enum's values or the input type's fields where it names neither. */
export function withValidChoices(message: string, schema: GraphQLSchema): string {
  const e = UNKNOWN_ENUM_VALUE.exec(message);
  const enumType = e && schema.getType((e[1] ?? e[2])!);
  if (isEnumType(enumType))
    return `${message} Valid values of ${enumType.name}: ${enumType
      .getValues()
      .map((v) => v.name)
      .join(', ')}.`;
  const f = UNKNOWN_INPUT_FIELD.exec(message);
  const inputType = f && schema.getType(f[1]!);
  if (isInputObjectType(inputType))
    return `${message} Fields of ${inputType.name}: ${Object.keys(inputType.getFields()).join(', ')}.`;
  return message;
}

/**
 * The one GraphQL error mapper: domain errors keep their client-safe message and get a stable
 * `extensions.code` (and `field` for invalid input); GraphQL's own errors (syntax, validation) pass
 * through, an unknown enum value or input field with what is valid there; anything else becomes a
 * generic INTERNAL_SERVER_ERROR and is logged.
 */
export function formatError(logger: ErrorLogger, schema: GraphQLSchema) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof DomainError) {
      const extensions: Record<string, unknown> = { code: CODES[original.code] };
      if (original.details) Object.assign(extensions, original.details);
      return { message: original.message, locations: formatted.locations, path: formatted.path, extensions };
    }
    const code = formatted.extensions?.code;
    if (original instanceof GraphQLError && code && code !== 'INTERNAL_SERVER_ERROR') {
      return {
        message: withValidChoices(formatted.message, schema),
        locations: formatted.locations,
        path: formatted.path,
        // `reason`: why a token may not act in the workspace its request names (AES-Workspace).
        extensions:
          typeof formatted.extensions?.reason === 'string' ? { code, reason: formatted.extensions.reason } : { code },
      };
    }
    logger.error({ err: original }, 'graphql resolver failed');
    return {
      message: 'Internal server error',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    };
  };
}
