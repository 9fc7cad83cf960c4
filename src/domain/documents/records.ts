import { Invalid } from '../errors.js';
import type { FieldDef } from '../entities.js';

// Validation of database records against a document's field schema. Field names come from the
// request, so every map built here has no prototype: a field named `constructor` or `toString` is
// an ordinary key, never an inherited method, and `__proto__` is a key like any other.

export type RecordData = Record<string, unknown>;
/** field → wanted value; an array means "any of". */
export type RecordFilter = Record<string, unknown>;

/**
 * How large a filter may be. Each value becomes one bind parameter of each statement that applies
 * the filter (PostgreSQL allows 65,535) and one branch the database plans and evaluates, so the
 * total is bounded, not only each list: 1,000 values cost a query about as much as one list did.
 */
export const MAX_FILTER_FIELDS = 20;
export const MAX_FILTER_VALUES = 1000;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An empty map without a prototype, for field names taken from a request. */
const emptyMap = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

function checkValue(field: FieldDef, value: unknown, where: string): unknown {
  if (value === null) {
    if (field.required) throw new Invalid(`${where}: '${field.name}' is required`, where);
    return null;
  }
  switch (field.type) {
    case 'STRING':
      if (typeof value !== 'string') throw new Invalid(`${where}: '${field.name}' must be a string`, where);
      if (value.length > 100_000) throw new Invalid(`${where}: '${field.name}' is longer than 100000 characters`, where);
      return value;
    case 'NUMBER':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new Invalid(`${where}: '${field.name}' must be a number`, where);
      return value;
    case 'BOOLEAN':
      if (typeof value !== 'boolean') throw new Invalid(`${where}: '${field.name}' must be true or false`, where);
      return value;
    case 'DATETIME':
      if (typeof value !== 'string' || !ISO_DATE.test(value) || Number.isNaN(Date.parse(value))) {
        throw new Invalid(`${where}: '${field.name}' must be an ISO 8601 date or date-time string`, where);
      }
      return value;
    case 'JSON':
      return value;
  }
}

/** Validates a whole record for insertion: known fields only, types, required fields present. */
export function validateRecord(fields: FieldDef[], item: unknown, where: string): RecordData {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Invalid(`${where}: each item must be an object`, where);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const out = emptyMap();
  for (const [k, v] of Object.entries(item)) {
    if (k === 'id') continue; // ids are assigned by the service
    const f = byName.get(k);
    if (!f) throw new Invalid(`${where}.${k}: unknown field '${k}' (fields: ${fields.map((x) => x.name).join(', ') || 'none'})`, `${where}.${k}`);
    out[k] = checkValue(f, v, `${where}.${k}`);
  }
  for (const f of fields) {
    if (f.required && (out[f.name] === undefined || out[f.name] === null)) throw new Invalid(`${where}.${f.name}: '${f.name}' is required`, `${where}.${f.name}`);
  }
  return out;
}

/** Validates a partial record (the `set` of an update); a required field cannot be set to null. */
export function validatePatch(fields: FieldDef[], set: unknown): RecordData {
  if (typeof set !== 'object' || set === null || Array.isArray(set)) throw new Invalid('set: must be an object of field values', 'set');
  if (Object.keys(set).length === 0) throw new Invalid('set: give at least one field', 'set');
  const byName = new Map(fields.map((f) => [f.name, f]));
  const out = emptyMap();
  for (const [k, v] of Object.entries(set)) {
    const f = byName.get(k);
    if (!f) throw new Invalid(`set.${k}: unknown field '${k}'`, `set.${k}`);
    out[k] = checkValue(f, v, `set.${k}`);
  }
  return out;
}

/**
 * Validates a filter: known fields (or `id`), scalar or JSON values, arrays meaning "any of"; at
 * most MAX_FILTER_FIELDS fields and MAX_FILTER_VALUES values in all (a scalar counts as one).
 */
export function validateFilter(fields: FieldDef[], filter: unknown): RecordFilter {
  const out = emptyMap();
  if (filter === undefined || filter === null) return out;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw new Invalid('filter: must be an object mapping field names to values', 'filter');
  const entries = Object.entries(filter);
  if (entries.length > MAX_FILTER_FIELDS) {
    throw new Invalid(`filter: at most ${MAX_FILTER_FIELDS} fields per filter (this one has ${entries.length})`, 'filter');
  }
  const names = new Set(fields.map((f) => f.name));
  let values = 0;
  for (const [k, v] of entries) {
    if (k !== 'id' && !names.has(k)) throw new Invalid(`filter.${k}: unknown field '${k}'`, `filter.${k}`);
    if (Array.isArray(v) && (v.length === 0 || v.length > MAX_FILTER_VALUES)) {
      throw new Invalid(`filter.${k}: a list of values must have 1 to ${MAX_FILTER_VALUES} entries`, `filter.${k}`);
    }
    values += Array.isArray(v) ? v.length : 1;
    out[k] = v;
  }
  if (values > MAX_FILTER_VALUES) {
    throw new Invalid(`filter: at most ${MAX_FILTER_VALUES} values in all, over every field (this one has ${values})`, 'filter');
  }
  return out;
}
