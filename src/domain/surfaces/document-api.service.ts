import type { Document, FieldDef } from '../documents/document.entities.js';
import type { RecordService } from '../documents/record.service.js';
import { tracedDocumentOp } from '../documents/document-span.js';
import {
  deleteBody,
  insertBody,
  queryBody,
  readQuery,
  updateBody,
  writeDocumentBody,
} from '../documents/document-api.schemas.js';
import type { SurfaceRuns } from './surface-runs.ports.js';
import { Invalid, MethodNotAllowed, NotFound } from '../errors.js';
import { canNameEntity, printableParam } from '../ids.js';
import { parse } from '../validation.js';
import type { SurfaceCaller } from './surface-access.js';

/** Reads a request's input when the documented order gets to it: the JSON body, or the query of a read. */
export type ReadInput = () => Promise<unknown>;

/** REST JSON writes field types in lower case. */
function restFields(fields: FieldDef[]) {
  return fields.map((f) => ({ name: f.name, type: f.type.toLowerCase(), required: f.required }));
}

function restDocument(d: Document) {
  return { id: d.id, name: d.name, description: d.description, kind: d.kind, content: d.content };
}

/**
 * The body as the client sent it, once its schema accepted it. zod leaves a `__proto__` key out of
 * the objects it returns; the record rules get the field maps as sent so that such a key is refused
 * as an unknown field instead of silently disappearing from a record or narrowing a filter.
 */
const asSent = (body: unknown) => body as Record<string, unknown>;

/** What each body looks like, for the refusal of a body that is not an object. */
const EXAMPLES = {
  write: '{"content": "…"}',
  query: '{"filter": {…}}',
  insert: '{"items": [{…}, …]}',
  update: '{"filter": {…}, "set": {…}}',
  delete: '{"filter": {…}}',
} as const;

/**
 * A body must be one JSON object. An array (the records themselves, most often) or a scalar is
 * refused with the shape to send; an insert that names its records `records` is told they go in `items`.
 */
function objectBody(body: unknown, op: keyof typeof EXAMPLES): void {
  if (Array.isArray(body)) throw new Invalid(`The body is a JSON array; send one JSON object: ${EXAMPLES[op]}`);
  if (typeof body !== 'object' || body === null) throw new Invalid(`The body must be a JSON object: ${EXAMPLES[op]}`);
  if (op === 'insert' && 'records' in body && !('items' in body)) {
    throw new Invalid(`Unknown field 'records': the records to insert go in "items": ${EXAMPLES.insert}`, 'records');
  }
}

/**
 * The Document API, in the documented order: the body's shape (400) → the document exposed (404)
 * and permitted (403), records and filters against its field schema (400) → input guardrails on
 * the body (400) → admission (429) → the database work. Everything that can refuse without running
 * does so before admission, so a refused request takes no concurrency slot, lock or credit.
 */
export class DocumentApiService {
  constructor(
    private readonly records: RecordService,
    private readonly calls: SurfaceRuns,
  ) {}

  /**
   * The first steps of every request on a document: the entry and the body for the activity log,
   * the body read (as `input` refuses it), then an id no document can have (NotFound).
   */
  private async open(c: SurfaceCaller, documentId: string, input: ReadInput, logBody: boolean): Promise<unknown> {
    c.facts.entry = printableParam(documentId);
    const body = await input();
    if (logBody) c.facts.requestBody = body;
    if (!canNameEntity(documentId)) throw new NotFound('Document', printableParam(documentId));
    return body;
  }

  /** Any other method on a document's paths: MethodNotAllowed naming `allowed`, after the same first steps. */
  async notAllowed(c: SurfaceCaller, documentId: string, query: ReadInput, allowed: string[]): Promise<never> {
    await this.open(c, documentId, query, false);
    throw new MethodNotAllowed(allowed);
  }

  /** `GET`: the document, or a page of its records (as the query string asks). */
  async read(c: SurfaceCaller, documentId: string, query: ReadInput) {
    const q = parse(readQuery, await this.open(c, documentId, query, false));
    const op = await this.records.prepareRead(c.principal, c.agent.id, documentId, 'documentApi', q);
    return tracedDocumentOp(
      'get',
      op.document,
      c.facts.span?.span(),
      (span) =>
        this.calls.guard(
          c.agent,
          '',
          async () => {
            const doc = await op.run();
            return 'data' in doc && doc.data
              ? { ...doc, data: { ...doc.data, fields: restFields(doc.data.fields) } }
              : doc;
          },
          span,
        ),
      (doc) => ('data' in doc && doc.data ? { results: doc.data.records.length } : {}),
    );
  }

  /** `PUT`: changes the document's content, name or description. */
  async write(c: SurfaceCaller, documentId: string, input: ReadInput) {
    const body = await this.open(c, documentId, input, true);
    objectBody(body, 'write');
    const v = parse(writeDocumentBody, body);
    const op = await this.records.prepareWrite(c.principal, c.agent.id, documentId, 'documentApi', v);
    return tracedDocumentOp('put', op.document, c.facts.span?.span(), (span) =>
      this.calls.guard(c.agent, JSON.stringify(v), async () => restDocument(await op.run()), span),
    );
  }

  /** `POST …/data/query`: the records matching a filter. */
  async query(c: SurfaceCaller, documentId: string, input: ReadInput) {
    const body = await this.open(c, documentId, input, true);
    objectBody(body, 'query');
    const v = parse(queryBody, body);
    const op = await this.records.prepareQuery(c.principal, c.agent.id, documentId, 'documentApi', {
      ...v,
      filter: asSent(body).filter,
    });
    return tracedDocumentOp(
      'query',
      op.document,
      c.facts.span?.span(),
      (span) => this.calls.guard(c.agent, JSON.stringify(v), () => op.run(), span),
      (r) => ({ results: r.records.length }),
    );
  }

  /** `POST …/data/insert`: adds records. */
  async insert(c: SurfaceCaller, documentId: string, input: ReadInput) {
    const body = await this.open(c, documentId, input, true);
    objectBody(body, 'insert');
    const v = parse(insertBody, body);
    const op = await this.records.prepareInsert(c.principal, c.agent.id, documentId, 'documentApi', asSent(body).items);
    return tracedDocumentOp(
      'insert',
      op.document,
      c.facts.span?.span(),
      (span) => this.calls.guard(c.agent, JSON.stringify(v), () => op.run(), span),
      (r) => ({ affected: r.inserted }),
    );
  }

  /** `POST …/data/update`: changes the records matching a filter. */
  async update(c: SurfaceCaller, documentId: string, input: ReadInput) {
    const body = await this.open(c, documentId, input, true);
    objectBody(body, 'update');
    const v = parse(updateBody, body);
    const op = await this.records.prepareUpdate(c.principal, c.agent.id, documentId, 'documentApi', {
      ...v,
      filter: asSent(body).filter,
      set: asSent(body).set,
    });
    return tracedDocumentOp(
      'update',
      op.document,
      c.facts.span?.span(),
      (span) => this.calls.guard(c.agent, JSON.stringify(v), () => op.run(), span),
      (r) => ({ affected: r.updated }),
    );
  }

  /** `POST …/data/delete`: removes the records matching a filter. */
  async delete(c: SurfaceCaller, documentId: string, input: ReadInput) {
    const body = await this.open(c, documentId, input, true);
    objectBody(body, 'delete');
    const v = parse(deleteBody, body);
    const op = await this.records.prepareDelete(c.principal, c.agent.id, documentId, 'documentApi', {
      ...v,
      filter: asSent(body).filter,
    });
    return tracedDocumentOp(
      'delete',
      op.document,
      c.facts.span?.span(),
      (span) => this.calls.guard(c.agent, JSON.stringify(v), () => op.run(), span),
      (r) => ({ affected: r.deleted }),
    );
  }
}
