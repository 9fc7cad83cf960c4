import type { Knex } from 'knex';
import type { Condition, RecordFilter, SortKey } from '../../domain/documents/record-filter.js';
import type { RecordPosition } from '../../domain/documents/record-cursor.js';
import { DATE_TIME_PATTERN, ZONED_PATTERN } from '../../domain/documents/records.js';
import type { RecordRepo, StoredRecord } from '../../domain/documents/document.ports.js';
import { q } from './pg-errors.js';

type Conn = Knex | Knex.Transaction;

/** A piece of SQL and its bindings. Field names and values are always bound, never spliced in. */
interface Sql {
  sql: string;
  b: unknown[];
}
const sql = (s: string, ...b: unknown[]): Sql => ({ sql: s, b });
const join = (parts: Sql[], sep: string): Sql => ({
  sql: parts.map((p) => p.sql).join(sep),
  b: parts.flatMap((p) => p.b),
});

/**
 * A field's value as a typed SQL expression, NULL where the stored value is missing, null or not of
 * the field's type (a field's type may have changed since a record was written). Strings compare in
 * code-point order (collation "C"), the same on every server. Date-times are cast only when they
 * match the pattern their validation uses, so an impossible date stored long ago cannot fail a
 * query; a value without a time zone is read as UTC.
 */
function typed(field: string, type: SortKey['type']): Sql {
  switch (type) {
    case 'NUMBER':
      return sql(`(case when jsonb_typeof(data -> ?) = 'number' then (data ->> ?)::numeric end)`, field, field);
    case 'STRING':
      return sql(`(case when jsonb_typeof(data -> ?) = 'string' then data ->> ? end) collate "C"`, field, field);
    case 'BOOLEAN':
      return sql(`(case when jsonb_typeof(data -> ?) = 'boolean' then (data ->> ?)::boolean end)`, field, field);
    case 'DATETIME':
      return sql(
        `(case when (data ->> ?) ~ ? then (case when (data ->> ?) ~ ? then (data ->> ?)::timestamptz else (data ->> ?)::timestamp at time zone 'UTC' end) end)`,
        field,
        DATE_TIME_PATTERN,
        field,
        ZONED_PATTERN,
        field,
        field,
      );
  }
}

/** Characters of a string value that decide its place in a sort (and that a cursor carries). */
export const STRING_SORT_CHARS = 1000;

/**
 * A field's value as sorted: `typed`, except that strings sort by their first STRING_SORT_CHARS
 * characters (longer values sharing those stay in insertion order), so that a page's cursor stays
 * small whatever the records hold.
 */
function sortKey(field: string, type: SortKey['type']): Sql {
  const e = typed(field, type);
  return type === 'STRING' ? { sql: `left(${e.sql}, ${STRING_SORT_CHARS}) collate "C"`, b: e.b } : e;
}

/** A bound value of a type, to compare with `typed`. */
function operand(type: SortKey['type'], v: unknown): Sql {
  switch (type) {
    case 'NUMBER':
      return sql('?::numeric', String(v));
    case 'STRING':
      return sql('?::text', v);
    case 'BOOLEAN':
      return sql('?::boolean', v);
    case 'DATETIME':
      return sql(
        `(case when ?::text ~ ? then ?::timestamptz else ?::timestamp at time zone 'UTC' end)`,
        v,
        ZONED_PATTERN,
        v,
        v,
      );
  }
}

const contains = (field: string, v: unknown): Sql => sql('data @> ?::jsonb', JSON.stringify({ [field]: v }));
const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * One condition. Equality is JSONB containment (`data @> {"f": v}`), which the GIN index
 * (jsonb_path_ops) serves; `ne` is its negation, so it also matches a missing or null field. The
 * other operators compare typed values within the document's records (the (document_id, seq) index
 * narrows to them).
 */
function condition(field: string, c: Condition): Sql {
  if (c.type === 'ID') {
    if (c.op === 'in') return sql(`id in (${c.values.map(() => '?').join(', ')})`, ...c.values);
    if (c.op === 'ne') return sql('id <> ?', c.value);
    throw new Error(`operator ${c.op} on id`); // refused by validateFilter
  }
  switch (c.op) {
    case 'in': {
      const any = join(
        c.values.map((v) => contains(field, v)),
        ' or ',
      );
      return c.values.length === 1 ? any : { sql: `(${any.sql})`, b: any.b };
    }
    case 'ne':
      return sql(`not (data @> ?::jsonb)`, JSON.stringify({ [field]: c.value }));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const l = typed(field, c.type as SortKey['type']);
      const r = operand(c.type as SortKey['type'], c.value);
      return { sql: `${l.sql} ${COMPARE[c.op]} ${r.sql}`, b: [...l.b, ...r.b] };
    }
    case 'contains':
      return sql(
        `(case when jsonb_typeof(data -> ?) = 'string' then position(lower(?) in lower(data ->> ?)) > 0 else false end)`,
        field,
        c.value,
        field,
      );
    case 'exists':
      return sql(`coalesce(jsonb_typeof(data -> ?), 'null') ${c.value ? '<>' : '='} 'null'`, field);
  }
}

function applyFilter(qb: Knex.QueryBuilder, filter: RecordFilter): Knex.QueryBuilder {
  for (const [field, conditions] of Object.entries(filter)) {
    for (const c of conditions) {
      const s = condition(field, c);
      qb.whereRaw(s.sql, s.b as Knex.RawBinding[]);
    }
  }
  return qb;
}

/**
 * Records after a position in the sort order (missing values last in both directions, insertion
 * order breaking ties): a lexicographic comparison of the sort keys, then the insertion number.
 */
function after(sort: SortKey[], pos: RecordPosition, i = 0): Sql {
  if (i === sort.length) return sql('seq > ?::bigint', pos.seq);
  const key = sort[i]!;
  const e = sortKey(key.field, key.type);
  const v = pos.keys[i] ?? null;
  const rest = after(sort, pos, i + 1);
  if (v === null) return { sql: `(${e.sql} is null and ${rest.sql})`, b: [...e.b, ...rest.b] };
  const o = castKey(key.type, v);
  const cmp = key.direction === 'asc' ? '>' : '<';
  return {
    sql: `(${e.sql} ${cmp} ${o.sql} or ${e.sql} is null or (${e.sql} = ${o.sql} and ${rest.sql}))`,
    b: [...e.b, ...o.b, ...e.b, ...e.b, ...o.b, ...rest.b],
  };
}

/** A sort key's value as the query returned it (text), back in its type. */
function castKey(type: SortKey['type'], v: string): Sql {
  return sql(
    `?::${type === 'NUMBER' ? 'numeric' : type === 'BOOLEAN' ? 'boolean' : type === 'DATETIME' ? 'timestamptz' : 'text'}`,
    v,
  );
}

const toRecord = (r: { id: string; data: unknown }): StoredRecord => {
  const data = r.data as Record<string, unknown>;
  return { id: r.id, ...data };
};

export function recordRepo(db: Conn): RecordRepo {
  return {
    query: (documentId, filter, page) =>
      q(async () => {
        const sort = page.sort ?? [];
        const base = () => applyFilter(db('document_records').where({ document_id: documentId }), filter);
        const rowsQ = base().select('id', 'data', db.raw('seq::text as position'));
        sort.forEach((k, i) => {
          const e = sortKey(k.field, k.type);
          // Date-times leave as UTC ISO 8601 whatever the session's time zone, as record-filter.ts checks them.
          const text =
            k.type === 'DATETIME'
              ? `to_char(${e.sql} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
              : `(${e.sql})::text`;
          rowsQ.select(db.raw(`${text} as ??`, [...e.b, `k${i}`] as Knex.RawBinding[]));
        });
        if (page.after) {
          const a = after(sort, page.after);
          rowsQ.whereRaw(a.sql, a.b as Knex.RawBinding[]);
        }
        for (const k of sort) {
          const e = sortKey(k.field, k.type);
          rowsQ.orderByRaw(`${e.sql} ${k.direction} nulls last`, e.b as Knex.RawBinding[]);
        }
        rowsQ
          .orderBy('seq')
          .limit(page.limit + 1)
          .offset(page.offset);
        const [rows, count] = await Promise.all([
          rowsQ as Promise<Record<string, unknown>[]>,
          base().count<{ n: number }[]>('* as n'),
        ]);
        const more = rows.length > page.limit;
        const shown = more ? rows.slice(0, page.limit) : rows;
        const lastRow = shown[shown.length - 1];
        const last =
          more && lastRow
            ? { keys: sort.map((_, i) => (lastRow[`k${i}`] as string | null) ?? null), seq: String(lastRow.position) }
            : undefined;
        return {
          records: shown.map((r) => toRecord(r as { id: string; data: unknown })),
          totalCount: Number(count[0]?.n ?? 0),
          ...(last ? { last } : {}),
        };
      }),
    insertMany: (documentId, rows, now) =>
      q(async () => {
        if (rows.length === 0) return [];
        const inserted = await db('document_records')
          .insert(
            rows.map((r) => ({
              id: r.id,
              document_id: documentId,
              data: JSON.stringify(r.data),
              created_at: now,
              updated_at: now,
            })),
          )
          .returning(['id', 'data']);
        const byId = new Map(inserted.map((r: { id: string; data: unknown }) => [r.id, toRecord(r)]));
        return rows.map((r) => byId.get(r.id)!);
      }),
    update: (documentId, filter, set, now) =>
      q(async () => {
        const rows = await applyFilter(db('document_records').where({ document_id: documentId }), filter)
          .update({ data: db.raw('data || ?::jsonb', [JSON.stringify(set)]), updated_at: now })
          .returning('id');
        return rows.length;
      }),
    delete: (documentId, filter) =>
      q(
        async () =>
          (
            await applyFilter(db('document_records').where({ document_id: documentId }), filter)
              .delete()
              .returning('id')
          ).length,
      ),
  };
}
