import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CompileCache } from './compile-cache.js';
import { PatternRefused, userPattern } from './core/patterns.js';

// JSON Schemas written by members (MCP tool input and output schemas) and the values clients send
// against them. The dialect is JSON Schema 2020-12, the default of MCP. Schemas are untrusted: a
// `pattern` runs in the same linear-time engine as the guardrail patterns (no backtracking on the
// main thread), references to other documents are not fetched, and compiled schemas are cached in
// a bounded map so many schemas cannot grow memory without end.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/**
 * `pattern` and `patternProperties` run in RE2 (case-sensitive, as JSON Schema requires). The
 * validator tells compiled patterns apart by their `toString()`, as it would RegExp objects.
 */
function linearTimeRegExp(source: string): { test: (s: string) => boolean; toString: () => string } {
  const re = userPattern(source, { ignoreCase: false });
  return { test: (s: string) => re.matcher(s).find(), toString: () => `/${source}/` };
}
linearTimeRegExp.code = 'linearTimeRegExp';

const ajv = new Ajv2020({
  strict: false,
  allErrors: false,
  // A schema is compiled on its own: its `$id` is not registered, so two agents' schemas never clash.
  addUsedSchema: false,
  code: { regExp: linearTimeRegExp },
});
addFormats(ajv);

/** A schema that cannot be used, with the reason (client-safe). */
export class SchemaRefused extends Error {}

const cache = new CompileCache<ValidateFunction, SchemaRefused>(256, SchemaRefused);

function compile(schema: Record<string, unknown>): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (err) {
    if (err instanceof PatternRefused) throw new SchemaRefused(`a pattern cannot be used: ${err.message}`);
    throw new SchemaRefused(err instanceof Error ? err.message.replace(/^schema is invalid: /, '') : String(err));
  } finally {
    // The compiler keeps every schema object it saw; the cache below is the only one kept.
    ajv.removeSchema(schema);
  }
}

/** The compiled validator of a schema, compiled once per distinct schema. Throws SchemaRefused. */
export function schemaValidator(schema: Record<string, unknown>): ValidateFunction {
  return cache.get(JSON.stringify(schema), () => compile(schema));
}

/** Why a schema cannot be used, or undefined when it can. */
export function schemaRefusal(schema: Record<string, unknown>): string | undefined {
  try {
    schemaValidator(schema);
    return undefined;
  } catch (err) {
    if (err instanceof SchemaRefused) return err.message;
    throw err;
  }
}

/** The first violation of a value against a schema, naming the field: `{field, message}`. */
export interface SchemaViolation {
  /** The JSON Pointer of the offending field (`/address/city`), or '' for the value itself. */
  field: string;
  message: string;
}

function violationOf(error: ErrorObject): SchemaViolation {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required')
    return { field: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const name = params.additionalProperty ?? params.unevaluatedProperty;
    return { field: `${error.instancePath}/${String(name)}`, message: 'is not allowed' };
  }
  return { field: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
}

/** Checks a value against a schema: null when it conforms, else its first violation. Throws SchemaRefused. */
export function schemaViolation(schema: Record<string, unknown>, value: unknown): SchemaViolation | null {
  const validate = schemaValidator(schema);
  if (validate(value)) return null;
  return violationOf(validate.errors![0]!);
}

/** A violation in words: `city: is required`, or the message alone for the whole value. */
export function describeViolation(v: SchemaViolation): string {
  const field = v.field.replace(/^\//, '').replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
  return field ? `${field}: ${v.message}` : v.message;
}
