import type { Knex } from 'knex';
import type { RecordRepo, StoredRecord } from '../../domain/ports.js';
import { q } from './pg-errors.js';

type Conn = Knex | Knex.Transaction;

/**
 * Applies a record filter. Each field is matched by JSONB containment (`data @> {"f": v}`), which
 * the GIN index (jsonb_path_ops) serves; a list of values means any of them; `id` matches the key.
 */
function applyFilter(qb: Knex.QueryBuilder, filter: Record<string, unknown>): Knex.QueryBuilder {
  for (const [field, wanted] of Object.entries(filter)) {
    if (field === 'id') {
      const ids = (Array.isArray(wanted) ? wanted : [wanted]).map(String);
      qb.whereIn('id', ids);
      continue;
    }
    const values = Array.isArray(wanted) ? wanted : [wanted];
    qb.where((w) => {
      for (const v of values) w.orWhereRaw('data @> ?::jsonb', [JSON.stringify({ [field]: v })]);
    });
  }
  return qb;
}

const toRecord = (r: { id: string; data: unknown }): StoredRecord => {
  const data = r.data as Record<string, unknown>;
  return { id: r.id, ...data };
};

export function recordRepo(db: Conn): RecordRepo {
  return {
    query: (documentId, filter, limit, offset) =>
      q(async () => {
        const base = () => applyFilter(db('document_records').where({ document_id: documentId }), filter);
        const [rows, count] = await Promise.all([
          base().select('id', 'data').orderBy('seq').limit(limit).offset(offset),
          base().count<{ n: number }[]>('* as n'),
        ]);
        return { records: rows.map(toRecord), totalCount: Number(count[0]?.n ?? 0) };
      }),
    insertMany: (documentId, rows, now) =>
      q(async () => {
        if (rows.length === 0) return [];
        const inserted = await db('document_records')
          .insert(rows.map((r) => ({ id: r.id, document_id: documentId, data: JSON.stringify(r.data), created_at: now, updated_at: now })))
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
      q(async () => (await applyFilter(db('document_records').where({ document_id: documentId }), filter).delete().returning('id')).length),
  };
}
