// Values as the console writes them, and form inputs as GraphQL takes them.

/** A date-time as a short text in the browser's own language and time zone; an empty value as `empty`. */
export function when(iso: string | null | undefined, empty = '—'): string {
  if (!iso) return empty;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Credits as people read them (up to three decimals). */
export function credits(n: number): string {
  return n.toLocaleString('en', { maximumFractionDigits: 3 });
}

/** An optional number input's value for GraphQL: an empty field is null. */
export function numberOrNull(v: string | number): number | null {
  if (v === '' || v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The value of an `<input type="datetime-local">` as an ISO date-time (null when empty or not a date). */
export function isoOfLocal(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The text of a JSON value for a table cell or a code block (a string as it is). */
export function jsonText(value: unknown, indent?: number): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, indent);
}
