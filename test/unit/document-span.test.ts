import { expect } from 'chai';
import { tracedDocumentOp } from '../../src/domain/documents/document-span.js';
import { Tracer } from '../../src/domain/tracing/call-trace.js';
import { NotFound } from '../../src/domain/errors.js';

// A Document API operation or an MCP resource read as a span of the call (docs/tracing.md).

const orders = { id: 'doc_1', name: 'orders', kind: 'DATABASE' as const };

describe('tracing: a document operation’s span', () => {
  it('is a child of the call’s span, names the operation and the document, and counts the records', async () => {
    const root = new Tracer().begin('POST /agents/:agentId/documents/:documentId/data/query', null, { kind: 'server' });
    const out = await tracedDocumentOp(
      'query',
      orders,
      root,
      async () => ({ records: [1, 2, 3] }),
      (r) => ({ results: r.records.length }),
    );
    root.end();
    expect(out.records).to.have.length(3);
    const span = root.trace.spans().spans.find((s) => s.name === 'query orders')!;
    expect(span.parentSpanId).to.equal(root.context.spanId);
    expect(span.kind).to.equal('internal');
    expect(span.attributes).to.deep.equal({
      'aes.document.operation': 'query',
      'aes.document.collection': 'orders',
      'aes.document.id': 'doc_1',
      'aes.document.kind': 'DATABASE',
      'aes.document.result_count': 3,
    });
    expect(span.error).to.equal(undefined);
  });

  it('records a failure with the error catalogue’s code, anything else as INTERNAL, and throws it on', async () => {
    const root = new Tracer().begin('DELETE', null, { kind: 'server' });
    const fail = (err: Error) =>
      tracedDocumentOp('delete', orders, root, async () => {
        throw err;
      }).catch((e: unknown) => e);
    expect(await fail(new NotFound('Document', 'doc_1'))).to.be.instanceOf(NotFound);
    await fail(new Error('connection reset: host db-7'));
    const [refused, broken] = root.trace.spans().spans.filter((s) => s.name === 'delete orders');
    expect(refused!.error!.code).to.equal('NOT_FOUND');
    expect(broken!.error).to.deep.equal({ code: 'INTERNAL', message: 'Internal error' });
  });

  it('runs the work without a span when no call is traced', async () => {
    let given: unknown = 'not called';
    const out = await tracedDocumentOp('get', orders, undefined, async (span) => {
      given = span;
      return 'content';
    });
    expect(out).to.equal('content');
    expect(given).to.equal(undefined);
  });

  it('hands the operation’s span to the work: the guardrails and admission inside it are its children', async () => {
    const root = new Tracer().begin('PUT', null, { kind: 'server' });
    await tracedDocumentOp('put', orders, root, async (span) => {
      span!.child('admission').end();
    });
    const spans = root.trace.spans().spans;
    const op = spans.find((s) => s.name === 'put orders')!;
    expect(spans.find((s) => s.name === 'admission')!.parentSpanId).to.equal(op.spanId);
  });
});
