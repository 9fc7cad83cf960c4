import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Forbidden, Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Document } from '../model.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories, Store, StoredRecord } from '../ports.js';
import { parse } from '../validation.js';
import { validateFilter, validatePatch, validateRecord } from './records.js';


export type DocumentAccess = 'read' | 'write';

/**
 * How the caller reaches documents: through the Document API (exposure permissions apply) or as the
 * agent itself (script host API and Documents capability: its own documents, no exposure needed).
 */
export type Via = 'documentApi' | 'agent';

const paging = z.object({
  limit: z.number().int().min(1, 'must be between 1 and 1000').max(1000, 'must be between 1 and 1000').default(100),
  offset: z.number().int().min(0, 'must be 0 or more').max(10_000_000).default(0),
});
const MAX_INSERT = 1000;

/** Reading and writing document content and database records. */
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

  /** A document with, for databases, a page of its records. */
  async read(p: Principal, agentId: string, documentId: string, via: Via, page: { limit?: unknown; offset?: unknown } = {}) {
    const pg = parse(paging, stripNullish(page));
    const doc = await this.resolve(this.store.repos, p, agentId, documentId, 'read', via);
    const base = { id: doc.id, name: doc.name, description: doc.description, kind: doc.kind, content: doc.content };
    if (doc.kind !== 'DATABASE') return base;
    const { records, totalCount } = await this.store.repos.records.query(doc.id, {}, pg.limit, pg.offset);
    return { ...base, data: { fields: doc.fields, records, totalCount } };
  }

  /** Replaces content, name or description of a document. */
  async write(p: Principal, agentId: string, documentId: string, via: Via, input: unknown): Promise<Document> {
    const v = parse(
      z.object({ content: z.string().max(5 * 1024 * 1024).optional(), name: z.string().trim().min(1).max(200).optional(), description: z.string().max(2000).optional() }).strict(),
      input,
    );
    return this.store.transaction(async (r) => {
      const doc = await this.resolve(r, p, agentId, documentId, 'write', via);
      return r.documents.update({ ...doc, ...stripNullish(v), updatedAt: this.clock.now() });
    });
  }

  /** Records of a database document matching `filter` (equality; arrays mean any of). */
  async query(p: Principal, agentId: string, documentId: string, via: Via, input: { filter?: unknown; limit?: unknown; offset?: unknown }) {
    const pg = parse(paging, stripNullish({ limit: input.limit, offset: input.offset }));
    const doc = await this.database(this.store.repos, p, agentId, documentId, 'read', via);
    const filter = validateFilter(doc.fields, input.filter);
    return this.store.repos.records.query(doc.id, filter, pg.limit, pg.offset);
  }

  /** Inserts records atomically: every item is validated first; any error inserts nothing. */
  async insert(p: Principal, agentId: string, documentId: string, via: Via, items: unknown): Promise<{ inserted: number; records: StoredRecord[] }> {
    if (!Array.isArray(items) || items.length === 0) throw new Invalid('items: give a non-empty array of records', 'items');
    if (items.length > MAX_INSERT) throw new Invalid(`items: at most ${MAX_INSERT} records per call`, 'items');
    return this.store.transaction(async (r) => {
      const doc = await this.database(r, p, agentId, documentId, 'write', via);
      const rows = items.map((item, i) => ({ id: newId('rec'), data: validateRecord(doc.fields, item, `items.${i}`) }));
      const records = await r.records.insertMany(doc.id, rows, this.clock.now());
      return { inserted: records.length, records };
    });
  }

  /** Sets fields on the records matching `filter`; an empty filter needs `all: true`. */
  async update(p: Principal, agentId: string, documentId: string, via: Via, input: { filter?: unknown; set?: unknown; all?: unknown }): Promise<{ updated: number }> {
    return this.store.transaction(async (r) => {
      const doc = await this.database(r, p, agentId, documentId, 'write', via);
      const filter = this.guardedFilter(doc, input.filter, input.all);
      const set = validatePatch(doc.fields, input.set);
      for (const f of doc.fields) {
        if (f.required && f.name in set && set[f.name] === null) throw new Invalid(`set.${f.name}: '${f.name}' is required`, `set.${f.name}`);
      }
      return { updated: await r.records.update(doc.id, filter, set, this.clock.now()) };
    });
  }

  /** Deletes the records matching `filter`; an empty filter needs `all: true`. */
  async delete(p: Principal, agentId: string, documentId: string, via: Via, input: { filter?: unknown; all?: unknown }): Promise<{ deleted: number }> {
    return this.store.transaction(async (r) => {
      const doc = await this.database(r, p, agentId, documentId, 'write', via);
      const filter = this.guardedFilter(doc, input.filter, input.all);
      return { deleted: await r.records.delete(doc.id, filter) };
    });
  }

  private guardedFilter(doc: Document, rawFilter: unknown, all: unknown) {
    const filter = validateFilter(doc.fields, rawFilter);
    if (all !== undefined && typeof all !== 'boolean') throw new Invalid('all: must be true or false', 'all');
    if (Object.keys(filter).length === 0 && all !== true) {
      throw new Invalid('filter: an empty filter matches every record; send "all": true to mean that', 'filter');
    }
    return filter;
  }

  private async database(r: Repositories, p: Principal, agentId: string, documentId: string, access: DocumentAccess, via: Via): Promise<Document> {
    const doc = await this.resolve(r, p, agentId, documentId, access, via);
    if (doc.kind !== 'DATABASE') throw new Invalid(`Document '${documentId}' is a TEXT document; records exist only in DATABASE documents`, 'documentId');
    return doc;
  }

  private async resolve(r: Repositories, p: Principal, agentId: string, documentId: string, access: DocumentAccess, via: Via): Promise<Document> {
    if (via === 'agent') {
      await loadAgent(r, p, agentId, p.kind === 'agentSelf' ? 'useDocuments' : 'read');
      const doc = await r.documents.get(documentId);
      if (!doc || doc.agentId !== agentId) throw new NotFound('Document', documentId);
      return doc;
    }
    // Document API: the principal was authenticated for this agent by the surface.
    const exposure = await r.exposures.find(agentId, documentId);
    const doc = exposure ? await r.documents.get(documentId) : null;
    if (!exposure || !doc || doc.agentId !== agentId) throw new NotFound('Document', documentId);
    if (access === 'read' && !exposure.read) throw new Forbidden(`Document '${documentId}' is not readable through the Document API`);
    if (access === 'write' && !exposure.write) throw new Forbidden(`Document '${documentId}' is not writable through the Document API`);
    return doc;
  }
}

function stripNullish<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
