import { Invalid } from '../errors.js';
import type { FieldDef } from './document.entities.js';

// Validation of database records against a document's field schema. Field names come from the
// request, so every map built here has no prototype: a field named `constructor` or `toString` is
// an ordinary key, never an inherited method, and `__proto__` is a key like any other.

export type RecordData = Record<string, unknown>;

/**
 * How large a filter may be (see record-filter.ts). Each value becomes one bind parameter of each statement that applies
 * the filter (PostgreSQL allows 65,535) and one branch the database plans and evaluates, so the
 * total is bounded, not only each list: 1,000 values cost a query about as much as one list did.
 */
export const MAX_FILTER_FIELDS = 20;
export const MAX_FILTER_VALUES = 1000;

/**
 * An ISO 8601 date or date-time whose every part is in range: month, day of the month (29 February
 * only in leap years), hour, minute, second, offset. The same source is used as a PostgreSQL regular
 * expression by the store, which casts to a timestamp only the stored values it matches — a cast of
 * an impossible date would fail the whole query, and values stored before this check existed may be
 * impossible dates that Date.parse rolled over.
 */
export const DATE_TIME_PATTERN =
  '^(?!0000)(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
  '|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)' +
  '(?:[T ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?(?:Z|[+-](?:0\\d|1[0-4]):?[0-5]\\d)?)?$';
/** The end of a value with a time zone designator; values without one are read as UTC. */
export const ZONED_PATTERN = '(?:Z|[+-]\\d{2}:?\\d{2})$';
const ISO_DATE = new RegExp(DATE_TIME_PATTERN);

/** An empty map without a prototype, for field names taken from a request. */
const emptyMap = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

/** A value checked against a field's type (`where` names it in the error). */
export function checkValue(field: FieldDef, value: unknown, where: string): unknown {
  if (value === null) {
    if (field.required) throw new Invalid(`${where}: '${field.name}' is required`, where);
    return null;
  }
  switch (field.type) {
    case 'STRING':
      if (typeof value !== 'string') throw new Invalid(`${where}: '${field.name}' must be a string`, where);
      if (value.length > 100_000)
        throw new Invalid(`${where}: '${field.name}' is longer than 100000 characters`, where);
      return value;
    case 'NUMBER':
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new Invalid(`${where}: '${field.name}' must be a number`, where);
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
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    throw new Invalid(`${where}: each item must be an object`, where);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const out = emptyMap();
  for (const [k, v] of Object.entries(item)) {
    if (k === 'id') continue; // ids are assigned by the service
    const f = byName.get(k);
    if (!f)
      throw new Invalid(
        `${where}.${k}: unknown field '${k}' (fields: ${fields.map((x) => x.name).join(', ') || 'none'})`,
        `${where}.${k}`,
      );
    out[k] = checkValue(f, v, `${where}.${k}`);
  }
  for (const f of fields) {
    if (f.required && (out[f.name] === undefined || out[f.name] === null))
      throw new Invalid(`${where}.${f.name}: '${f.name}' is required`, `${where}.${f.name}`);
  }
  return out;
}

/** Validates a partial record (the `set` of an update); a required field cannot be set to null. */
export function validatePatch(fields: FieldDef[], set: unknown): RecordData {
  if (typeof set !== 'object' || set === null || Array.isArray(set))
    throw new Invalid('set: must be an object of field values', 'set');
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
