import type { Document, FieldDef } from '../model.js';
import type { RecordService } from '../documents/record.service.js';
import { deleteBody, insertBody, queryBody, readQuery, updateBody, writeDocumentBody } from '../documents/document-api.schemas.js';
import type { Pipeline } from '../runtime/pipeline.js';
import { parse } from '../validation.js';
import type { SurfaceCaller } from './surface-access.js';

/** REST JSON writes field types in lower case. */
function restFields(fields: FieldDef[]) {
  return fields.map((f) => ({ name: f.name, type: f.type.toLowerCase(), required: f.required }));
}

function restDocument(d: Document) {
  return { id: d.id, name: d.name, description: d.description, kind: d.kind, content: d.content };
}

/**
 * The Document API: validates request bodies, then runs the record operation through the pipeline's
 * guard (input guardrails on the body, admission) with exposure permissions enforced.
 */
export class DocumentApiService {
  constructor(
    private readonly records: RecordService,
    private readonly pipeline: Pipeline,
  ) {}

  async read(c: SurfaceCaller, documentId: string, query: unknown) {
    const q = parse(readQuery, query);
    return this.pipeline.guard(c.agent, '', async () => {
      const doc = await this.records.read(c.principal, c.agent.id, documentId, 'documentApi', q);
      return 'data' in doc && doc.data ? { ...doc, data: { ...doc.data, fields: restFields(doc.data.fields) } } : doc;
    });
  }

  async write(c: SurfaceCaller, documentId: string, body: unknown) {
    const v = parse(writeDocumentBody, body);
    return this.pipeline.guard(c.agent, JSON.stringify(v), async () => restDocument(await this.records.write(c.principal, c.agent.id, documentId, 'documentApi', v)));
  }

  async query(c: SurfaceCaller, documentId: string, body: unknown) {
    const v = parse(queryBody, body);
    return this.pipeline.guard(c.agent, JSON.stringify(v), () => this.records.query(c.principal, c.agent.id, documentId, 'documentApi', v));
  }

  async insert(c: SurfaceCaller, documentId: string, body: unknown) {
    const v = parse(insertBody, body);
    return this.pipeline.guard(c.agent, JSON.stringify(v), () => this.records.insert(c.principal, c.agent.id, documentId, 'documentApi', v.items));
  }

  async update(c: SurfaceCaller, documentId: string, body: unknown) {
    const v = parse(updateBody, body);
    return this.pipeline.guard(c.agent, JSON.stringify(v), () => this.records.update(c.principal, c.agent.id, documentId, 'documentApi', v));
  }

  async delete(c: SurfaceCaller, documentId: string, body: unknown) {
    const v = parse(deleteBody, body);
    return this.pipeline.guard(c.agent, JSON.stringify(v), () => this.records.delete(c.principal, c.agent.id, documentId, 'documentApi', v));
  }
}
