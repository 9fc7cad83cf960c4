import { expect } from 'chai';
import type { CallOpening } from '../../src/domain/calls/call-lifecycle.js';
import { CallSpan } from '../../src/domain/calls/call-span.js';
import { Tracer } from '../../src/domain/tracing/call-trace.js';
import { mcpOpening } from '../../src/surfaces/mcp/mcp-opening.js';

const META_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const META_SPAN = '00f067aa0ba902b7';
const HEADER = { traceId: 'b'.repeat(32), spanId: 'c'.repeat(16), traceFlags: 1 };

const http: CallOpening = {
  name: 'POST /agents/:agentId/mcp',
  parent: HEADER,
  attributes: { 'http.request.method': 'POST', 'http.route': '/agents/:agentId/mcp' },
};

function call(params: Record<string, unknown>, method = 'tools/call', id: unknown = 7) {
  return { jsonrpc: '2.0', id, method, params };
}

describe('traces: an MCP request’s server span from its JSON-RPC body', () => {
  it('a tools/call: named after its tool, a child of the `_meta` traceparent, the HTTP one only linked', () => {
    const o = mcpOpening(
      http,
      call({ name: 'get_weather', _meta: { traceparent: `00-${META_TRACE}-${META_SPAN}-01`, tracestate: 'v=1' } }),
      { sessionId: 'sess-1', protocolVersion: '2025-11-25' },
    );
    expect(o.name).to.equal('tools/call get_weather');
    expect(o.parent).to.deep.equal({ traceId: META_TRACE, spanId: META_SPAN, traceFlags: 1, traceState: 'v=1' });
    expect(o.links).to.deep.equal([HEADER]);
    expect(o.attributes).to.deep.include({
      'http.request.method': 'POST',
      'http.route': '/agents/:agentId/mcp',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'mcp.session.id': 'sess-1',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
  });

  it('a prompt’s name is its target; a resource’s URI is an attribute, not in the name', () => {
    expect(mcpOpening(http, call({ name: 'summary' }, 'prompts/get', 'r-1'))).to.deep.include({
      name: 'prompts/get summary',
    });
    const read = mcpOpening(http, call({ uri: 'doc://x/1' }, 'resources/read'));
    expect(read.name).to.equal('resources/read');
    expect(read.attributes).to.include({ 'mcp.resource.uri': 'doc://x/1', 'jsonrpc.request.id': '7' });
    expect(read.attributes['gen_ai.tool.name']).to.equal(undefined);
  });

  it('a malformed or oversized `_meta` value keeps the header’s parent (never a refusal)', () => {
    for (const meta of [
      { traceparent: 'not-a-traceparent' },
      { traceparent: `00-${'0'.repeat(32)}-${META_SPAN}-01` },
      { traceparent: `00-${META_TRACE}-${META_SPAN}-01`.padEnd(300, ' ') },
      { traceparent: 42 },
      'a string',
      null,
    ]) {
      const o = mcpOpening(http, call({ name: 'x', _meta: meta }));
      expect(o.parent, JSON.stringify(meta)).to.equal(HEADER);
      expect(o.links).to.equal(undefined);
    }
    // No header either: a new trace.
    expect(mcpOpening({ ...http, parent: null }, call({ name: 'x', _meta: { traceparent: 'x' } })).parent).to.equal(
      null,
    );
    // An oversized tracestate is dropped, the traceparent kept.
    const big = mcpOpening(
      http,
      call({ _meta: { traceparent: `00-${META_TRACE}-${META_SPAN}-01`, tracestate: 'a'.repeat(600) } }),
    );
    expect(big.parent).to.deep.equal({ traceId: META_TRACE, spanId: META_SPAN, traceFlags: 1 });
  });

  it('a notification, a batch or a body that is not JSON-RPC keeps the HTTP opening', () => {
    const meta = { _meta: { traceparent: `00-${META_TRACE}-${META_SPAN}-01` } };
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized', params: meta },
      [call(meta)],
      call(meta, 'tools/call', null),
      call(meta, 'x'.repeat(65)),
      'text',
      undefined,
    ])
      expect(mcpOpening(http, body), JSON.stringify(body)).to.equal(http);
  });

  it('a method MCP does not have keeps the HTTP name (no span name per made-up method), and its `_meta` parent', () => {
    const o = mcpOpening(http, call({ _meta: { traceparent: `00-${META_TRACE}-${META_SPAN}-01` } }, 'made/up'));
    expect(o.name).to.equal(http.name);
    expect(o.parent).to.deep.include({ traceId: META_TRACE });
    expect(o.attributes).to.include({ 'mcp.method.name': 'made/up' });
  });

  it('bounds what it keeps: an oversized tool name, id or session id is left out', () => {
    const o = mcpOpening(http, call({ name: 'n'.repeat(129) }, 'tools/call', 'i'.repeat(129)), {
      sessionId: 's'.repeat(129),
    });
    expect(o).to.equal(http); // an id past the bound is no request id: the HTTP opening
    const p = mcpOpening(http, call({ name: 'n'.repeat(129) }), { sessionId: 's'.repeat(129) });
    expect(p.name).to.equal('tools/call');
    expect(p.attributes['gen_ai.tool.name']).to.equal(undefined);
    expect(p.attributes['mcp.session.id']).to.equal(undefined);
  });
});

describe('traces: a call’s span begun when first asked for', () => {
  it('takes a refined opening until it has begun, and is timed from the call’s start', async () => {
    const pending = new CallSpan(new Tracer(), http);
    const before = Date.now();
    await new Promise((r) => setTimeout(r, 15));
    expect(pending.refine((o) => ({ ...o, name: 'tools/call x', parent: null }))).to.equal(true);
    const span = pending.span();
    expect(span.name).to.equal('tools/call x');
    expect(span.trace.traceId).to.not.equal(HEADER.traceId);
    expect(pending.span()).to.equal(span);
    expect(pending.refine((o) => ({ ...o, name: 'late' }))).to.equal(false);
    span.end();
    const [record] = span.trace.spans().spans;
    expect(record!.startMs).to.be.below(before + 5);
    expect(record!.durationMs).to.be.at.least(10);
  });
});
