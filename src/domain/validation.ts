import { z } from 'zod';
import { Invalid } from './errors.js';

/** Parses input with a zod schema; the first problem becomes an Invalid naming its field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const pathParts = [...(prefix ? [prefix] : []), ...issue.path.map(String)];
  const field = pathParts.join('.') || undefined;
  throw new Invalid(field ? `${field}: ${issue.message}` : issue.message, field);
}

export const nonEmpty = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
export const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/** A model reference: the name of a configured model or a provider model name. */
export const modelRef = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200)
  .regex(/^[A-Za-z0-9._:/@+-]+$/, 'may contain letters, digits and . _ : / @ + - only');

export const idSchema = z.string().min(1).max(100);

/** A copy of `o` without its undefined properties (for partial updates). */
export function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
