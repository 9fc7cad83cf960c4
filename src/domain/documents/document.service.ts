import type { Clock } from '../clock.js';
import { Conflict, Invalid, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Document, DocumentExposure } from './document.entities.js';
import { loadAgent, readableAgentIds } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import { parse, stripUndefined } from '../validation.js';
import { documentInput, documentPatch, EXPOSURE_EMPTY, exposureChange } from './document.schemas.js';

/** Documents of an agent and their exposure on the Document API and the MCP server. */
export class DocumentService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Creates a TEXT or DATABASE document owned by the agent. Members only. */
  async create(p: Principal, agentId: string, input: unknown): Promise<Document> {
    const v = parse(documentInput, input, 'input');
    if (v.kind === 'TEXT' && v.fields.length)
      throw new Invalid('input.fields: only DATABASE documents have fields', 'input.fields');
    return this.store.transaction(async (r) => {
      const agent = await loadAgent(r, p, agentId, 'configure');
      const now = this.clock.now();
      return r.documents.insert({
        id: newId('doc'),
        workspaceId: agent.workspaceId,
        agentId,
        ...v,
        createdAt: now,
        updatedAt: now,
      });
    });
  }

  /** Updates name, description, content or (for databases) the field schema. Members only. */
  async update(p: Principal, id: string, input: unknown): Promise<Document> {
    const v = stripUndefined(parse(documentPatch, input, 'input'));
    return this.store.transaction(async (r) => {
      const doc = await this.load(r, p, id, 'configure');
      if (doc.kind === 'TEXT' && v.fields?.length)
        throw new Invalid('input.fields: only DATABASE documents have fields', 'input.fields');
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

  /**
   * Exposes one of the agent's documents on the Document API and/or the MCP server (or changes its
   * permissions). `read` and `write` default to true and false; `mcp` left out keeps its value.
   */
  async expose(
    p: Principal,
    agentId: string,
    documentId: string,
    input: { read?: unknown; write?: unknown; mcp?: unknown },
  ): Promise<DocumentExposure> {
    const v = parse(exposureChange, stripUndefined(input));
    const exposeOnce = () =>
      this.store.transaction(async (r) => {
        await loadAgent(r, p, agentId, 'manageSurfaces');
        const doc = await r.documents.get(documentId);
        if (!doc || doc.agentId !== agentId) throw new NotFound('Document', documentId);
        const existing = await r.exposures.find(agentId, documentId);
        const permissions = { read: v.read, write: v.write, mcp: v.mcp ?? existing?.mcp ?? false };
        if (!permissions.read && !permissions.write && !permissions.mcp) throw new Invalid(EXPOSURE_EMPTY);
        if (existing) return r.exposures.update({ ...existing, ...permissions });
        return r.exposures.insert({
          id: newId('exp'),
          agentId,
          documentId,
          ...permissions,
          createdAt: this.clock.now(),
        });
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

  /** Removes a document from the Document API and the MCP server; true when it was exposed. */
  async unexpose(p: Principal, agentId: string, documentId: string): Promise<boolean> {
    return this.store.transaction(async (r) => {
      await loadAgent(r, p, agentId, 'manageSurfaces');
      const existing = await r.exposures.find(agentId, documentId);
      if (!existing) throw new NotFound('Document exposure', documentId);
      return r.exposures.delete(existing.id);
    });
  }

  /** The documents of those agents the principal may read (others are left out), in one read. */
  async listForAgents(p: Principal, agentIds: readonly string[]): Promise<Document[]> {
    const readable = await readableAgentIds(this.store.repos, p, agentIds);
    return readable.size ? this.store.repos.documents.listByAgents([...readable]) : [];
  }

  /** The Document API exposures of those agents the principal may read (others are left out), in one read. */
  async exposuresForAgents(p: Principal, agentIds: readonly string[]): Promise<DocumentExposure[]> {
    const readable = await readableAgentIds(this.store.repos, p, agentIds);
    return readable.size ? this.store.repos.exposures.listByAgents([...readable]) : [];
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
