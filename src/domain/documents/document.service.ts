import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Conflict, Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { FIELD_TYPES, type Document, type DocumentExposure } from '../entities.js';
import { loadAgent } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import { nonEmpty, optionalText, parse, stripUndefined } from '../validation.js';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const fieldsInput = z
  .array(
    z.object({
      name: z.string().regex(FIELD_NAME, 'must start with a letter or _ and contain only letters, digits and _ (max 64)'),
      type: z.enum(FIELD_TYPES),
      required: z.boolean().default(false),
    }),
  )
  .max(200)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (f.name === 'id') ctx.addIssue({ code: 'custom', message: "'id' is reserved for the record id", path: [i, 'name'] });
      // A JSON key `__proto__` sets the prototype in most JavaScript clients instead of holding a
      // value, and parsers drop or refuse it: such a field could not be read back reliably.
      if (f.name === '__proto__') ctx.addIssue({ code: 'custom', message: "'__proto__' cannot be a field name: JavaScript clients could not hold it as a value", path: [i, 'name'] });
      if (seen.has(f.name)) ctx.addIssue({ code: 'custom', message: `field '${f.name}' appears twice`, path: [i, 'name'] });
      seen.add(f.name);
    });
  });

const MAX_CONTENT = 5 * 1024 * 1024;
const documentInput = z.object({
  name: nonEmpty(200),
  description: optionalText(2000).default(''),
  kind: z.enum(['TEXT', 'DATABASE']).default('TEXT'),
  content: optionalText(MAX_CONTENT).default(''),
  fields: fieldsInput.default([]),
});
const documentPatch = z.object({
  name: nonEmpty(200).optional(),
  description: optionalText(2000).optional(),
  content: optionalText(MAX_CONTENT).optional(),
  fields: fieldsInput.optional(),
});
const exposureInput = z
  .object({ read: z.boolean().default(true), write: z.boolean().default(false) })
  .refine((e) => e.read || e.write, 'give read, write or both');

/** Documents of an agent and their exposure on the Document API. */
export class DocumentService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Creates a TEXT or DATABASE document owned by the agent. Members only. */
  async create(p: Principal, agentId: string, input: unknown): Promise<Document> {
    const v = parse(documentInput, input, 'input');
    if (v.kind === 'TEXT' && v.fields.length) throw new Invalid('input.fields: only DATABASE documents have fields', 'input.fields');
    return this.store.transaction(async (r) => {
      const agent = await loadAgent(r, p, agentId, 'configure');
      const now = this.clock.now();
      return r.documents.insert({ id: newId('doc'), workspaceId: agent.workspaceId, agentId, ...v, createdAt: now, updatedAt: now });
    });
  }

  /** Updates name, description, content or (for databases) the field schema. Members only. */
  async update(p: Principal, id: string, input: unknown): Promise<Document> {
    const v = stripUndefined(parse(documentPatch, input, 'input'));
    return this.store.transaction(async (r) => {
      const doc = await this.load(r, p, id, 'configure');
      if (doc.kind === 'TEXT' && v.fields?.length) throw new Invalid('input.fields: only DATABASE documents have fields', 'input.fields');
      return r.documents.update({ ...doc, ...v, updatedAt: this.clock.now() });
    });
  }

  /** Deletes a document with its records and exposures. Members only. */
  async delete(p: Principal, id: string): Promise<boolean> {
    return this.store.transaction(async (r) => {
      await this.load(r, p, id, 'configure');
      return r.documents.delete(id);
    });
  }

  /** Exposes one of the agent's documents on the Document API (or changes its permissions). */
  async expose(p: Principal, agentId: string, documentId: string, input: { read?: unknown; write?: unknown }): Promise<DocumentExposure> {
    const v = parse(exposureInput, stripUndefined(input));
    const exposeOnce = () =>
      this.store.transaction(async (r) => {
        await loadAgent(r, p, agentId, 'manageSurfaces');
        const doc = await r.documents.get(documentId);
        if (!doc || doc.agentId !== agentId) throw new NotFound('Document', documentId);
        const existing = await r.exposures.find(agentId, documentId);
        if (existing) return r.exposures.update({ ...existing, read: v.read, write: v.write });
        return r.exposures.insert({ id: newId('exp'), agentId, documentId, read: v.read, write: v.write, createdAt: this.clock.now() });
      });
    try {
      return await exposeOnce();
    } catch (err) {
      // A concurrent exposeDocument inserted the exposure first (unique agent + document); it is
      // committed by now, so a second run finds it and changes its permissions instead.
      if (err instanceof Conflict) return exposeOnce();
      throw err;
    }
  }

  /** Removes a document from the Document API; true when it was exposed. */
  async unexpose(p: Principal, agentId: string, documentId: string): Promise<boolean> {
    return this.store.transaction(async (r) => {
      await loadAgent(r, p, agentId, 'manageSurfaces');
      const existing = await r.exposures.find(agentId, documentId);
      if (!existing) throw new NotFound('Document exposure', documentId);
      return r.exposures.delete(existing.id);
    });
  }

  private async load(r: Repositories, p: Principal, id: string, action: 'read' | 'configure'): Promise<Document> {
    const doc = await r.documents.get(id);
    if (!doc || doc.workspaceId !== p.workspaceId) throw new NotFound('Document', id);
    try {
      await loadAgent(r, p, doc.agentId, action);
    } catch (err) {
      if (err instanceof NotFound) throw new NotFound('Document', id);
      throw err;
    }
    return doc;
  }
}
