import type { FieldDef } from './document.entities.js';
import { Invalid } from '../errors.js';
import { validateFilter } from './record-filter.js';

// The small rules of RecordService's operations, apart from it.

/** A validated filter of an update or delete; an empty one must be confirmed with `all: true`. */
export function guardedFilter(fields: FieldDef[], rawFilter: unknown, all: unknown) {
  const filter = validateFilter(fields, rawFilter);
  if (all !== undefined && typeof all !== 'boolean') throw new Invalid('all: must be true or false', 'all');
  if (Object.keys(filter).length === 0 && all !== true) {
    throw new Invalid('filter: an empty filter matches every record; send "all": true to mean that', 'filter');
  }
  return filter;
}

/** Whether two field schemas are the same (names, types, required, in order). */
export function sameFields(a: FieldDef[], b: FieldDef[]): boolean {
  return (
    a.length === b.length &&
    a.every((f, i) => f.name === b[i]!.name && f.type === b[i]!.type && f.required === b[i]!.required)
  );
}

/** `o` without its undefined and null values. */
export function stripNullish<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
