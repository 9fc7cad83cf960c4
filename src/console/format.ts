// Values as the console writes them, and form inputs as GraphQL takes them.

// Every time the console shows is UTC and says so: the activity log, its date filters and the
// usage days are UTC days, and a zone named once per value cannot be misread.

/** A date-time as a short text in the browser's language, in UTC and saying so; an empty value as `empty`. */
export function when(iso: string | null | undefined, empty = '—'): string {
  if (!iso) return empty;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })} UTC`;
}

/** The time of day of a date-time (hours, minutes, seconds), in UTC and saying so. */
export function clockTime(at: string | number | Date): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  return `${d.toLocaleTimeString(undefined, { timeZone: 'UTC' })} UTC`;
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

/**
 * The value of an `<input type="datetime-local">` read as UTC (the console's one zone), as an ISO
 * date-time; null when empty or not a date.
 */
export function isoOfUtcInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(/(?:Z|[+-]\d\d:\d\d)$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The text of a JSON value for a table cell or a code block (a string as it is). */
export function jsonText(value: unknown, indent?: number): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, indent);
}
