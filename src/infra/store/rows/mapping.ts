// Explicit row ↔ entity mappings, one file per table. jsonb values are written as JSON text so
// that arrays are not mistaken for PostgreSQL arrays by the driver.

export type Row = Record<string, any>;
export interface Mapping<T> {
  table: string;
  toRow(e: T): Row;
  fromRow(r: Row): T;
}

export const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
// Both drivers (pg and PGlite) return jsonb already parsed; a string here is a JSON string value.
export const parseJson = <T>(v: unknown): T => v as T;
export const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
export const dateOrNull = (v: unknown): Date | null => (v == null ? null : date(v));
export const numOrNull = (v: unknown): number | null => (v == null ? null : Number(v));
