import { z } from 'zod';
import { Invalid } from './errors.js';

/**
 * Parses input with a zod schema; the first problem becomes an Invalid naming its field. An unknown
 * field of a strict object is named with the fields that object takes.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const pathParts = [...(prefix ? [prefix] : []), ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') {
    const unknown = issue.keys[0]!;
    const known = objectKeysAt(schema, issue.path);
    const field = [...pathParts, unknown].join('.');
    const where = pathParts.length ? `${pathParts.join('.')}: unknown` : 'Unknown';
    throw new Invalid(`${where} field '${unknown}'${known ? `; the fields are ${known.join(', ')}` : ''}`, field);
  }
  const field = pathParts.join('.') || undefined;
  throw new Invalid(field ? `${field}: ${issue.message}` : issue.message, field);
}

/** The keys of the object schema at `path` inside `schema` (through optional, default, array and record), if it is one. */
function objectKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  type Def = {
    type: string;
    innerType?: unknown;
    in?: unknown;
    shape?: Record<string, unknown>;
    element?: unknown;
    valueType?: unknown;
  };
  const defOf = (s: unknown) => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;
  const unwrap = (s: unknown): unknown => {
    for (let d = defOf(s); d; d = defOf(s)) {
      if (d.innerType !== undefined) s = d.innerType;
      else if (d.type === 'pipe') s = d.in;
      else break;
    }
    return s;
  };
  let at = unwrap(schema);
  for (const key of path) {
    const d = defOf(at);
    if (d?.type === 'object') at = d.shape?.[String(key)];
    else if (d?.type === 'array') at = d.element;
    else if (d?.type === 'record') at = d.valueType;
    else return undefined;
    at = unwrap(at);
  }
  const d = defOf(at);
  return d?.type === 'object' && d.shape ? Object.keys(d.shape) : undefined;
}

export const nonEmpty = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
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
