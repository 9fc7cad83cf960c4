import type { Span } from '../tracing/call-trace.js';
import type { Document } from './document.entities.js';

// A document operation of the Document API or an MCP resource read as a span of its own
// (docs/tracing.md): `{operation} {document}`, in the spirit of the database conventions'
// `{db.operation.name} {target}`, but with the service's own names (a document is our collection).

/** The operations, as the span names them: the Document API's (`GET` is `get`, `PUT` is `put`). */
export type DocumentOperation = 'get' | 'put' | 'query' | 'insert' | 'update' | 'delete';

/** What a finished operation says of its records: how many it returned or changed. */
export interface DocumentOutcome {
  results?: number;
  affected?: number;
}

/**
 * Runs `work` (guardrails, admission and the database work of one operation on `doc`) in an
 * INTERNAL span under `parent` (the call's span), handed to `work` so that the guardrails and
 * admission spans become its children. Without a parent (no call is traced) it only runs `work`.
 * A failure is recorded with the error catalogue's code and thrown on.
 */
export async function tracedDocumentOp<T>(
  op: DocumentOperation,
  doc: Pick<Document, 'id' | 'name' | 'kind'>,
  parent: Span | undefined,
  work: (span?: Span) => Promise<T>,
  outcome?: (result: T) => DocumentOutcome,
): Promise<T> {
  if (!parent) return work();
  const span = parent.child(`${op} ${doc.name}`, {
    attributes: {
      'aes.document.operation': op,
      'aes.document.collection': doc.name,
      'aes.document.id': doc.id,
      'aes.document.kind': doc.kind,
    },
  });
  try {
    const result = await work(span);
    const o = outcome?.(result);
    span.set({ 'aes.document.result_count': o?.results, 'aes.document.affected_count': o?.affected });
    return result;
  } catch (err) {
    span.fail(err);
    throw err;
  } finally {
    span.end();
  }
}
