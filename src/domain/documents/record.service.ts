import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { Document, FieldDef } from './document.entities.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import { databaseDocument, resolveDocument, type Target, type Via } from './document-access.js';
import type { Repositories, Store } from '../ports.js';
import type { StoredRecord } from './document.ports.js';
import { parse } from '../validation.js';
import { validateFilter, validateSort } from './record-filter.js';
import { guardedFilter, sameFields, stripNullish } from './record-rules.js';
import { decodeCursor, encodeCursor } from './record-cursor.js';
import { validatePatch, validateRecord } from './records.js';

/**
 * A record operation whose every refusal that needs no work has been checked (the document exists
 * and is reachable, the permission, the input against the field schema); `run` does the database
 * work. The Document API holds admission only around `run`, so a refused request takes no slot.
 */
export interface Prepared<T> {
  /** The document as it was checked (its name and kind name the operation's span). */
  document: Document;
  run(): Promise<T>;
}

/** A record query as callers send it; everything is checked here. */
export interface QueryInput {
  filter?: unknown;
  sort?: unknown;
  limit?: unknown;
  offset?: unknown;
  cursor?: unknown;
}

const paging = z.object({
  limit: z.number().int().min(1, 'must be between 1 and 1000').max(1000, 'must be between 1 and 1000').default(100),
  offset: z.number().int().min(0, 'must be 0 or more').max(10_000_000).default(0),
});
const contentPatch = z
  .object({
    content: z
      .string()
      .max(5 * 1024 * 1024)
      .optional(),
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
  })
  .strict();
const MAX_INSERT = 1000;

/**
 * Reading and writing document content and database records. Each operation comes in two steps,
 * `prepareX` (checks) and `run` (work); `x` does both at once for callers without admission.
 */
export class RecordService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** The agent's documents (as the agent itself). */
  async listDocuments(p: Principal, agentId: string): Promise<Document[]> {
    await loadAgent(this.store.repos, p, agentId, 'useDocuments');
    return this.store.repos.documents.listByAgents([agentId]);
  }

  /** A document the caller may read `via` that way (its content, without records). Throws NotFound, Forbidden. */
  readable(p: Principal, agentId: string, documentId: string, via: Via): Promise<Document> {
    return resolveDocument(this.store.repos, { p, agentId, documentId, access: 'read', via });
  }

  /** A document with, for databases, a page of its records. Throws NotFound, Forbidden, Invalid. */
  read(p: Principal, agentId: string, documentId: string, via: Via, page: { limit?: unknown; offset?: unknown } = {}) {
    return this.prepareRead(p, agentId, documentId, via, page).then((op) => op.run());
  }

  async prepareRead(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    page: { limit?: unknown; offset?: unknown } = {},
  ) {
    const pg = parse(paging, stripNullish(page));
    const doc = await resolveDocument(this.store.repos, { p, agentId, documentId, access: 'read', via });
    const base = { id: doc.id, name: doc.name, description: doc.description, kind: doc.kind, content: doc.content };
    return {
      document: doc,
      run: async () => {
        if (doc.kind !== 'DATABASE') return base;
        const { records, totalCount } = await this.store.repos.records.query(
          doc.id,
          {},
          { limit: pg.limit, offset: pg.offset },
        );
        return { ...base, data: { fields: doc.fields, records, totalCount } };
      },
    };
  }

  /** Replaces content, name or description of a document. Throws NotFound, Forbidden, Invalid. */
  write(p: Principal, agentId: string, documentId: string, via: Via, input: unknown): Promise<Document> {
    return this.prepareWrite(p, agentId, documentId, via, input).then((op) => op.run());
  }

  async prepareWrite(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    input: unknown,
  ): Promise<Prepared<Document>> {
    const v = stripNullish(parse(contentPatch, input));
    const target: Target = { p, agentId, documentId, access: 'write', via };
    const document = await resolveDocument(this.store.repos, target);
    return {
      document,
      run: () =>
        this.store.transaction(async (r) => {
          const doc = await resolveDocument(r, target);
          return r.documents.update({ ...doc, ...v, updatedAt: this.clock.now() });
        }),
    };
  }

  /**
   * Records of a database document matching `filter` (values, lists, operators; see
   * record-filter.ts) in `sort` order, a page at a time: by `offset`, or after the `cursor` a
   * previous page returned as `nextCursor` (null on the last page).
   */
  query(p: Principal, agentId: string, documentId: string, via: Via, input: QueryInput) {
    return this.prepareQuery(p, agentId, documentId, via, input).then((op) => op.run());
  }

  async prepareQuery(p: Principal, agentId: string, documentId: string, via: Via, input: QueryInput) {
    const pg = parse(paging, stripNullish({ limit: input.limit, offset: input.offset }));
    const doc = await databaseDocument(this.store.repos, { p, agentId, documentId, access: 'read', via });
    const filter = validateFilter(doc.fields, input.filter);
    const sort = validateSort(doc.fields, input.sort);
    if (input.cursor !== undefined && input.cursor !== null && input.offset !== undefined && input.offset !== null) {
      throw new Invalid('cursor: give either a cursor or an offset, not both', 'cursor');
    }
    const after =
      input.cursor === undefined || input.cursor === null ? undefined : decodeCursor(input.cursor, filter, sort);
    return {
      document: doc,
      run: async () => {
        const { records, totalCount, last } = await this.store.repos.records.query(doc.id, filter, {
          limit: pg.limit,
          offset: pg.offset,
          sort,
          ...(after ? { after } : {}),
        });
        return { records, totalCount, nextCursor: last ? encodeCursor(last, filter, sort) : null };
      },
    };
  }

  /** Inserts records atomically: every item is validated first; any error inserts nothing. */
  insert(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    items: unknown,
  ): Promise<{ inserted: number; records: StoredRecord[] }> {
    return this.prepareInsert(p, agentId, documentId, via, items).then((op) => op.run());
  }

  async prepareInsert(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    items: unknown,
  ): Promise<Prepared<{ inserted: number; records: StoredRecord[] }>> {
    if (!Array.isArray(items) || items.length === 0)
      throw new Invalid('items: give a non-empty array of records', 'items');
    if (items.length > MAX_INSERT) throw new Invalid(`items: at most ${MAX_INSERT} records per call`, 'items');
    const validate = (fields: FieldDef[]) => items.map((item, i) => validateRecord(fields, item, `items.${i}`));
    const target: Target = { p, agentId, documentId, access: 'write', via };
    const checked = await this.checked(target, validate);
    return {
      document: checked.doc,
      run: () =>
        this.store.transaction(async (r) => {
          const { doc, input } = await this.recheck(r, target, checked, validate);
          const records = await r.records.insertMany(
            doc.id,
            input.map((data) => ({ id: newId('rec'), data })),
            this.clock.now(),
          );
          return { inserted: records.length, records };
        }),
    };
  }

  /** Sets fields on the records matching `filter`; an empty filter needs `all: true`. */
  update(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    input: { filter?: unknown; set?: unknown; all?: unknown },
  ): Promise<{ updated: number }> {
    return this.prepareUpdate(p, agentId, documentId, via, input).then((op) => op.run());
  }

  async prepareUpdate(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    input: { filter?: unknown; set?: unknown; all?: unknown },
  ): Promise<Prepared<{ updated: number }>> {
    const validate = (fields: FieldDef[]) => ({
      filter: guardedFilter(fields, input.filter, input.all),
      set: validatePatch(fields, input.set),
    });
    const target: Target = { p, agentId, documentId, access: 'write', via };
    const checked = await this.checked(target, validate);
    return {
      document: checked.doc,
      run: () =>
        this.store.transaction(async (r) => {
          const { doc, input: v } = await this.recheck(r, target, checked, validate);
          return { updated: await r.records.update(doc.id, v.filter, v.set, this.clock.now()) };
        }),
    };
  }

  /** Deletes the records matching `filter`; an empty filter needs `all: true`. */
  delete(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    input: { filter?: unknown; all?: unknown },
  ): Promise<{ deleted: number }> {
    return this.prepareDelete(p, agentId, documentId, via, input).then((op) => op.run());
  }

  async prepareDelete(
    p: Principal,
    agentId: string,
    documentId: string,
    via: Via,
    input: { filter?: unknown; all?: unknown },
  ): Promise<Prepared<{ deleted: number }>> {
    const validate = (fields: FieldDef[]) => guardedFilter(fields, input.filter, input.all);
    const target: Target = { p, agentId, documentId, access: 'write', via };
    const checked = await this.checked(target, validate);
    return {
      document: checked.doc,
      run: () =>
        this.store.transaction(async (r) => {
          const { doc, input: filter } = await this.recheck(r, target, checked, validate);
          return { deleted: await r.records.delete(doc.id, filter) };
        }),
    };
  }

  /** The database document of a write, and the input validated against its field schema. */
  private async checked<V>(target: Target, validate: (fields: FieldDef[]) => V): Promise<{ doc: Document; input: V }> {
    const doc = await databaseDocument(this.store.repos, target);
    return { doc, input: validate(doc.fields) };
  }

  /**
   * Inside the write's transaction: the document as it is now — it may have been unexposed or
   * deleted since it was checked — with the input validated again only if its fields changed.
   */
  private async recheck<V>(
    r: Repositories,
    target: Target,
    checked: { doc: Document; input: V },
    validate: (fields: FieldDef[]) => V,
  ): Promise<{ doc: Document; input: V }> {
    const doc = await databaseDocument(r, target);
    return { doc, input: sameFields(doc.fields, checked.doc.fields) ? checked.input : validate(doc.fields) };
  }
}
