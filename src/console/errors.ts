import type { CombinedError } from '@urql/core';

/** True when the answer says that there is no valid session (sign in again). */
export function isUnauthenticated(error: CombinedError | undefined): boolean {
  if (!error) return false;
  if (error.response && (error.response as Response).status === 401) return true;
  return error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
}

/**
 * Splits a GraphQL error into messages by the input field they name (`extensions.field`, such as
 * `name` or `input.name`) and the rest, which the form shows above its buttons.
 */
export function fieldErrors(error: CombinedError | undefined): {
  fields: Record<string, string>;
  other: string | null;
} {
  const fields: Record<string, string> = {};
  const other: string[] = [];
  if (!error) return { fields, other: null };
  if (error.networkError) other.push('The service could not be reached. Try again.');
  for (const e of error.graphQLErrors) {
    const field = e.extensions?.field;
    if (typeof field === 'string' && field) {
      // The message starts with the field's path ("input.name: must not be empty"); the form shows it under that field.
      const message = e.message.startsWith(`${field}: `) ? e.message.slice(field.length + 2) : e.message;
      fields[field.replace(/^input\./, '').split('.')[0]!] = message.charAt(0).toUpperCase() + message.slice(1);
    } else other.push(e.message);
  }
  return { fields, other: other.length ? other.join(' ') : null };
}

/** The message to show for a failed query. */
export function messageOf(error: CombinedError): string {
  if (error.networkError) return 'The service could not be reached. Try again.';
  return error.graphQLErrors.map((e) => e.message).join(' ') || error.message;
}

/**
 * The error a field carries, with the line and column the service gives (`extensions.line` and
 * `extensions.column`, as a script's save-time syntax error has), for the code editor.
 */
export function errorAt(
  error: CombinedError | undefined,
  field: string,
): { message: string; line?: number; column?: number } | null {
  const e = error?.graphQLErrors.find((g) => g.extensions?.field === field);
  return e ? positionedError(e) : null;
}

/** A field's error for the code editor: its message without the field's name, capitalised, and its line and column when given. */
export function positionedError(e: CombinedError['graphQLErrors'][number]): {
  message: string;
  line?: number;
  column?: number;
} {
  const field = String(e.extensions?.field);
  const message = e.message.startsWith(`${field}: `) ? e.message.slice(field.length + 2) : e.message;
  const line = e.extensions?.line;
  const column = e.extensions?.column;
  return {
    message: message.charAt(0).toUpperCase() + message.slice(1),
    ...(typeof line === 'number' ? { line } : {}),
    ...(typeof column === 'number' ? { column } : {}),
  };
}
