import { Invalid } from '../errors.js';
import type { FieldDef } from '../model.js';

// Validation of database records against a document's field schema.

export type RecordData = Record<string, unknown>;
/** field → wanted value; an array means "any of". */
export type RecordFilter = Record<string, unknown>;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

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
  const out: RecordData = {};
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

/** Validates a partial record (the `set` of an update). */
export function validatePatch(fields: FieldDef[], set: unknown): RecordData {
  if (typeof set !== 'object' || set === null || Array.isArray(set)) throw new Invalid('set: must be an object of field values', 'set');
  if (Object.keys(set).length === 0) throw new Invalid('set: give at least one field', 'set');
  const byName = new Map(fields.map((f) => [f.name, f]));
  const out: RecordData = {};
  for (const [k, v] of Object.entries(set)) {
    const f = byName.get(k);
    if (!f) throw new Invalid(`set.${k}: unknown field '${k}'`, `set.${k}`);
    out[k] = checkValue(f, v, `set.${k}`);
  }
  return out;
}

/** Validates a filter: known fields (or `id`), scalar or JSON values, arrays meaning "any of". */
export function validateFilter(fields: FieldDef[], filter: unknown): RecordFilter {
  if (filter === undefined || filter === null) return {};
  if (typeof filter !== 'object' || Array.isArray(filter)) throw new Invalid('filter: must be an object mapping field names to values', 'filter');
  const names = new Set(fields.map((f) => f.name));
  for (const [k, v] of Object.entries(filter)) {
    if (k !== 'id' && !names.has(k)) throw new Invalid(`filter.${k}: unknown field '${k}'`, `filter.${k}`);
    if (Array.isArray(v) && (v.length === 0 || v.length > 1000)) throw new Invalid(`filter.${k}: a list of values must have 1 to 1000 entries`, `filter.${k}`);
  }
  return filter as RecordFilter;
}
