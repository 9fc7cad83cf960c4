import { Invalid } from '../errors.js';
import type { FieldDef, FieldType } from './document.entities.js';
import { checkValue, MAX_FILTER_FIELDS, MAX_FILTER_VALUES } from './records.js';

// Record filters and sort orders, validated against a document's field schema into a typed form
// the store turns into SQL. A filter maps a field to a value (equality), a list (any of) or an
// object of operators; every operator is checked against the field's type here, so the store never
// compares a number with a string and a mistake is a 400 naming the field and the operator.

export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'exists'] as const;
export type Operator = (typeof OPERATORS)[number];
export type Ordering = 'gt' | 'gte' | 'lt' | 'lte';

/** Longest text a `contains` may search for. */
export const MAX_CONTAINS_LENGTH = 1000;
/** Sort keys per query. */
export const MAX_SORT_KEYS = 3;

/** The type a condition compares in: a document field's type, or the record id. */
export type FilterType = FieldType | 'ID';

/** One condition on one field; all conditions of a filter hold at once (AND). */
export type Condition =
  | { op: 'in'; type: FilterType; values: unknown[] } // equality: one value, or any of a list
  | { op: 'ne'; type: FilterType; value: unknown }
  | { op: Ordering; type: 'NUMBER' | 'DATETIME' | 'STRING'; value: number | string }
  | { op: 'contains'; type: 'STRING'; value: string }
  | { op: 'exists'; type: FilterType; value: boolean };

/** field → its conditions (a map without prototype: field names come from requests). */
export type RecordFilter = Record<string, Condition[]>;

export interface SortKey {
  field: string;
  type: 'NUMBER' | 'DATETIME' | 'STRING' | 'BOOLEAN';
  direction: 'asc' | 'desc';
}

/** What each operator does, with one example; the OpenAPI description and the errors use it. */
export const OPERATOR_DOCS: Record<Operator, { description: string; example: unknown }> = {
  eq: {
    description: 'equal to (a JSON field: contains this value); same as giving the value directly',
    example: { status: { eq: 'open' } },
  },
  ne: {
    description: 'not equal to; also matches records where the field is missing or null',
    example: { status: { ne: 'closed' } },
  },
  gt: { description: 'greater than (number, date-time, or string in code-point order)', example: { score: { gt: 7 } } },
  gte: { description: 'greater than or equal to', example: { due: { gte: '2026-11-01' } } },
  lt: { description: 'less than', example: { score: { lt: 3 } } },
  lte: { description: 'less than or equal to', example: { due: { lte: '2026-11-30T23:59:59Z' } } },
  in: {
    description: 'any of a list (same as giving the list directly)',
    example: { status: { in: ['open', 'waiting'] } },
  },
  contains: {
    description: 'string field contains this text, ignoring case',
    example: { title: { contains: 'invoice' } },
  },
  exists: {
    description: 'true: the field has a non-null value; false: it is missing or null',
    example: { due: { exists: true } },
  },
};

const ORDERED_TYPES: readonly FilterType[] = ['NUMBER', 'DATETIME', 'STRING'];
const OPERATORS_OF_TYPE: Record<FilterType, readonly Operator[]> = {
  STRING: OPERATORS,
  NUMBER: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  DATETIME: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  BOOLEAN: ['eq', 'ne', 'in', 'exists'],
  JSON: ['eq', 'ne', 'in', 'exists'],
  ID: ['eq', 'ne', 'in'],
};

/**
 * Whether an object given for a JSON field is meant as operators: one of its keys is an operator or
 * starts with `$` (the spelling of other databases). Any other object is a value the field must
 * contain, as before operators existed; `{"eq": {…}}` matches an object that has operator keys.
 */
const namesOperator = (v: Record<string, unknown>) =>
  Object.keys(v).some((k) => k.startsWith('$') || (OPERATORS as readonly string[]).includes(k));

const emptyMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;
const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a filter: known fields (or `id`); per field a value (equality), a list (any of) or an
 * object of operators, all checked against the field's type; at most MAX_FILTER_FIELDS fields and
 * MAX_FILTER_VALUES values in all (a list counts its entries, every other operand counts one).
 */
export function validateFilter(fields: FieldDef[], filter: unknown): RecordFilter {
  const out = emptyMap<Condition[]>();
  if (filter === undefined || filter === null) return out;
  if (typeof filter !== 'object' || Array.isArray(filter))
    throw new Invalid('filter: must be an object mapping field names to values', 'filter');
  const entries = Object.entries(filter);
  if (entries.length > MAX_FILTER_FIELDS) {
    throw new Invalid(
      `filter: at most ${MAX_FILTER_FIELDS} fields per filter (this one has ${entries.length})`,
      'filter',
    );
  }
  const byName = new Map(fields.map((f) => [f.name, f]));
  let values = 0;
  for (const [k, v] of entries) {
    const f: FieldDef | undefined = k === 'id' ? { name: 'id', type: 'STRING', required: true } : byName.get(k);
    if (!f) throw new Invalid(`filter.${k}: unknown field '${k}'`, `filter.${k}`);
    const type: FilterType = k === 'id' ? 'ID' : f.type;
    out[k] =
      isOperatorObject(v) && (type !== 'JSON' || namesOperator(v))
        ? operatorConditions(f, type, v)
        : [equality(f, type, v, `filter.${k}`)];
    values += out[k].reduce((n, c) => n + (c.op === 'in' ? c.values.length : 1), 0);
  }
  if (values > MAX_FILTER_VALUES) {
    throw new Invalid(
      `filter: at most ${MAX_FILTER_VALUES} values in all, over every field (this one has ${values})`,
      'filter',
    );
  }
  return out;
}

/** A plain value or a list: equality with it, or with any of the list. */
function equality(f: FieldDef, type: FilterType, v: unknown, where: string): Condition {
  if (!Array.isArray(v)) return { op: 'in', type, values: [operand(f, type, v, where)] };
  if (v.length === 0 || v.length > MAX_FILTER_VALUES)
    throw new Invalid(`${where}: a list of values must have 1 to ${MAX_FILTER_VALUES} entries`, where);
  return { op: 'in', type, values: v.map((x, i) => operand(f, type, x, `${where}.${i}`)) };
}

function operatorConditions(f: FieldDef, type: FilterType, ops: Record<string, unknown>): Condition[] {
  const base = `filter.${f.name}`;
  const keys = Object.keys(ops);
  if (keys.length === 0) throw new Invalid(`${base}: give at least one operator (${OPERATORS.join(', ')})`, base);
  for (const op of keys) if (!(OPERATORS as readonly string[]).includes(op)) throw unknownOperator(f, type, op, base);
  for (const op of keys) {
    if (!OPERATORS_OF_TYPE[type].includes(op as Operator)) {
      throw new Invalid(
        `${base}.${op}: '${op}' does not apply to ${typeName(type)} field '${f.name}' (operators for it: ${OPERATORS_OF_TYPE[type].join(', ')})`,
        `${base}.${op}`,
      );
    }
  }
  return keys.map((op) => condition(f, type, op as Operator, ops[op], `${base}.${op}`));
}

function unknownOperator(f: FieldDef, type: FilterType, op: string, base: string): Invalid {
  const bare = op.startsWith('$') ? op.slice(1) : op;
  const hint = bare !== op && (OPERATORS as readonly string[]).includes(bare) ? ` — write '${bare}' without '$'` : '';
  const json = type === 'JSON' ? `; to match a JSON field against an object with this key, write {"eq": {…}}` : '';
  return new Invalid(
    `${base}.${op}: unknown operator '${op}'${hint} (valid operators: ${OPERATORS.join(', ')})${json}`,
    `${base}.${op}`,
  );
}

function condition(f: FieldDef, type: FilterType, op: Operator, v: unknown, where: string): Condition {
  switch (op) {
    case 'eq':
      return { op: 'in', type, values: [operand(f, type, v, where)] };
    case 'in':
      if (!Array.isArray(v)) throw new Invalid(`${where}: 'in' takes a list of values`, where);
      return equality(f, type, v, where);
    case 'ne':
      return { op: 'ne', type, value: operand(f, type, v, where) };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (!ORDERED_TYPES.includes(type) || Array.isArray(v))
        throw new Invalid(`${where}: '${op}' takes one ${typeName(type)} value`, where);
      return {
        op,
        type: type as 'NUMBER' | 'DATETIME' | 'STRING',
        value: operand(f, type, v, where) as number | string,
      };
    case 'contains':
      if (typeof v !== 'string' || v.length === 0 || v.length > MAX_CONTAINS_LENGTH) {
        throw new Invalid(`${where}: 'contains' takes a text of 1 to ${MAX_CONTAINS_LENGTH} characters`, where);
      }
      return { op, type: 'STRING', value: v };
    case 'exists':
      if (typeof v !== 'boolean') throw new Invalid(`${where}: 'exists' takes true or false`, where);
      return { op, type, value: v };
  }
}

/**
 * One value compared with a field: of the field's type. Null never compares equal in SQL and a
 * stored null is "no value", so null is refused with the operator that asks for it instead.
 */
function operand(f: FieldDef, type: FilterType, v: unknown, where: string): unknown {
  if (v === null || v === undefined)
    throw new Invalid(
      `${where}: null is not a value to compare with; use {"exists": false} for a missing or null '${f.name}'`,
      where,
    );
  if (type === 'ID') {
    if (typeof v !== 'string') throw new Invalid(`${where}: a record id is a string`, where);
    return v;
  }
  if (isOperatorObject(v) && type !== 'JSON') {
    throw new Invalid(
      `${where}: operators go directly under the field (valid operators: ${OPERATORS.join(', ')})`,
      where,
    );
  }
  return checkValue({ ...f, required: false }, v, where);
}

const typeName = (t: FilterType) => (t === 'ID' ? 'the id' : `${t.toLowerCase()}`);

/**
 * Validates a sort order: one key `{field, direction}` or a list of up to MAX_SORT_KEYS; fields of
 * type STRING, NUMBER, DATETIME or BOOLEAN; direction `asc` (default) or `desc`.
 */
export function validateSort(fields: FieldDef[], sort: unknown): SortKey[] {
  if (sort === undefined || sort === null) return [];
  const list = Array.isArray(sort) ? sort : [sort];
  if (list.length === 0 || list.length > MAX_SORT_KEYS)
    throw new Invalid(`sort: give 1 to ${MAX_SORT_KEYS} sort keys`, 'sort');
  const byName = new Map(fields.map((f) => [f.name, f]));
  return list.map((key, i) => {
    const where = Array.isArray(sort) ? `sort.${i}` : 'sort';
    if (!isOperatorObject(key))
      throw new Invalid(`${where}: a sort key is {"field": name, "direction": "asc" | "desc"}`, where);
    for (const k of Object.keys(key))
      if (k !== 'field' && k !== 'direction')
        throw new Invalid(`${where}.${k}: unknown sort option '${k}' (options: field, direction)`, `${where}.${k}`);
    const name = key.field;
    const f = typeof name === 'string' ? byName.get(name) : undefined;
    if (!f) throw new Invalid(`${where}.field: unknown field '${String(name)}'`, `${where}.field`);
    if (f.type === 'JSON')
      throw new Invalid(
        `${where}.field: JSON field '${f.name}' cannot be sorted (sortable: string, number, datetime, boolean)`,
        `${where}.field`,
      );
    const direction = key.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc')
      throw new Invalid(`${where}.direction: must be "asc" or "desc"`, `${where}.direction`);
    return { field: f.name, type: f.type as SortKey['type'], direction };
  });
}
