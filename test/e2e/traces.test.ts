import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import type { E2eService } from '../helpers/surface-service.js';
import { startTracedService } from '../helpers/traced-service.js';
import { until } from '../helpers/until.js';

// Traces (issue 53): a service with OTEL_EXPORTER_OTLP_ENDPOINT exports its spans over OTLP/HTTP to
// a receiver that decodes them with the official protobuf definitions; the activity entry keeps the
// same spans (`trace(runId)`).

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SERVER = 2; // OTLP SpanKind
const CLIENT = 3;

describe('e2e: OpenTelemetry traces over OTLP', function () {
  this.timeout(90_000);
  let receiver: OtlpReceiver;
  let svc: E2eService;
  let agent: string;
  let key: string;

  before(async () => {
    ({ receiver, svc, agent, key } = await startTracedService('traces'));
  });

  after(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  /** The spans of one trace, once its `root` span has arrived. */
  async function traceOf(root: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan[]> {
    const first = await receiver.waitFor(root);
    // Spans of one call are exported in the same batch or the next: wait for the run span too.
    await receiver.waitFor((s) => s.traceId === first.traceId && s.name.startsWith('invoke_agent'));
    return receiver.spans.filter((s) => s.traceId === first.traceId);
  }

  it('a prompt endpoint called with a traceparent: its spans are children of the caller’s, with GenAI attributes matching the entry', async () => {
    await svc.gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { path: 'ask', handler: { prompt: 'Answer briefly.' } },
    });
    svc.fake.enqueue({ text: 'forty-two', usage: { prompt: 11, completion: 3 } });
    const res = await fetch(`${svc.url}/agents/${agent}/api/ask`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-agent-access-key': key,
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
        tracestate: 'vendor=opaque',
      },
      body: JSON.stringify({ question: 'the answer?' }),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    const runId = res.headers.get('x-run-id') ?? ((await res.json()) as { runId?: string }).runId;

    const spans = await traceOf((s) => s.traceId === CALLER_TRACE && s.kind === SERVER);
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.parentSpanId).to.equal(CALLER_SPAN);
    expect(server.name).to.equal('POST /agents/:agentId/api{/*rest}');
    expect(server.attributes).to.include({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    expect(server.resource).to.include({ 'service.name': 'aes-traces-test', 'deployment.environment': 'test' });
    expect(server.via).to.equal('application/x-protobuf');

    const run = spans.find((s) => s.name === 'invoke_agent Tracer')!;
    expect(run.parentSpanId).to.equal(server.spanId);
    expect(run.attributes).to.include({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agent,
      'gen_ai.agent.name': 'Tracer',
      'aes.surface': 'HTTP_API',
    });
    const chat = spans.find((s) => s.name === 'chat fake-model')!;
    expect(chat.parentSpanId).to.equal(run.spanId);
    expect(chat.kind).to.equal(CLIENT);
    expect(chat.attributes).to.include({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'fake-model',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
    });
    expect(chat.attributes['gen_ai.response.finish_reasons']).to.deep.equal(['stop']);
    // No message content unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
    for (const s of spans) expect(Object.keys(s.attributes).filter((k) => k.includes('messages'))).to.deep.equal([]);

    // The model call carried the chat span on (W3C traceparent).
    const sent = svc.fake.requests.at(-1)!;
    expect(sent.headers.traceparent).to.equal(`00-${CALLER_TRACE}-${chat.spanId}-01`);

    // The activity entry keeps the same trace: its id and the spans, tokens included.
    await svc.service.services.activityLog.flush();
    const { trace } = await svc.gql(
      'query($r: ID!) { trace(runId: $r) { traceId spans { spanId parentSpanId name attributes } } }',
      { r: runId ?? (await latestRunId()) },
    );
    expect(trace.traceId).to.equal(CALLER_TRACE);
    const kept = trace.spans.find((s: any) => s.name === 'chat fake-model');
    expect(kept.spanId).to.equal(chat.spanId);
    expect(kept.attributes['gen_ai.usage.input_tokens']).to.equal(11);
    expect(kept.attributes['gen_ai.usage.output_tokens']).to.equal(3);
    expect(trace.spans.map((s: any) => s.name)).to.include.members(['invoke_agent Tracer', 'chat fake-model']);
  });

  async function latestRunId(): Promise<string> {
    const d = await svc.gql('query($a: ID!) { agent(id: $a) { activity(first: 1) { nodes { runId } } } }', {
      a: agent,
    });
    return d.agent.activity.nodes[0].runId;
  }

  it('an MCP tool whose model calls a document tool: an execute_tool span with the call’s id', async () => {
    await svc.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { name: 'research', description: 'Looks things up', handler: { prompt: 'Use your documents.' } },
    });
    svc.fake.enqueue({ toolCalls: [{ name: 'list_documents', arguments: {} }] }, { text: 'nothing stored yet' });
    const client = new Client({ name: 'traces', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/agents/${agent}/mcp`), {
        requestInit: { headers: { 'x-agent-access-key': key } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'research', arguments: { input: 'the stored documents' } });
      expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
    } finally {
      await client.close();
    }
    const tool = await receiver.waitFor((s) => s.name === 'execute_tool list_documents');
    expect(tool.attributes).to.include({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'list_documents',
    });
    expect(tool.attributes['gen_ai.tool.call.id']).to.be.a('string').and.not.equal('');
    const spans = await until('the call’s spans', async () => {
      const all = receiver.spans.filter((s) => s.traceId === tool.traceId);
      return all.filter((s) => s.name === 'chat fake-model').length === 2 && all.some((s) => s.kind === SERVER)
        ? all
        : undefined;
    });
    const run = spans.find((s) => s.name === 'invoke_agent Tracer')!;
    expect(tool.parentSpanId).to.equal(run.spanId);
    // The MCP conventions name the server span after the operation; the HTTP attributes stay.
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.name).to.equal('tools/call research');
    expect(server.attributes).to.include({ 'mcp.method.name': 'tools/call', 'http.route': '/agents/:agentId/mcp' });
  });

  /** One JSON-RPC request to the agent's MCP server, as an MCP client without the SDK sends it. */
  async function mcpPost(message: object, headers: Record<string, string> = {}): Promise<string> {
    const res = await fetch(`${svc.url}/agents/${agent}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'x-agent-access-key': key,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    return text;
  }

  it('an MCP tools/call with `_meta.traceparent`: the server span and the run join the caller’s trace, over the HTTP header’s', async () => {
    await svc.gql('mutation($a: ID!, $i: McpToolInput!) { addMcpTool(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { name: 'forecast', description: 'The weather', handler: { script: 'return "sunny";' } },
    });
    const metaTrace = 'c'.repeat(32);
    const headerTrace = 'd'.repeat(32);
    const answer = await mcpPost(
      {
        id: 'call-1',
        method: 'tools/call',
        params: {
          name: 'forecast',
          arguments: { input: 'Lisbon' },
          _meta: { traceparent: `00-${metaTrace}-${CALLER_SPAN}-01`, tracestate: 'mcp=1' },
        },
      },
      { traceparent: `00-${headerTrace}-${CALLER_SPAN}-01`, 'mcp-session-id': 'session-7' },
    );
    expect(answer).to.contain('sunny');
    const spans = await traceOf((s) => s.traceId === metaTrace && s.kind === SERVER);
    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.name).to.equal('tools/call forecast');
    expect(server.parentSpanId).to.equal(CALLER_SPAN);
    // The HTTP request's own context is linked, not the parent (the MCP conventions).
    expect(server.links).to.deep.equal([{ traceId: headerTrace, spanId: CALLER_SPAN }]);
    expect(server.attributes).to.include({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'forecast',
      'jsonrpc.request.id': 'call-1',
      'mcp.session.id': 'session-7',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'http.request.method': 'POST',
      'http.response.status_code': 200,
    });
    const run = spans.find((s) => s.name === 'invoke_agent Tracer')!;
    expect(run.parentSpanId).to.equal(server.spanId);
    expect(receiver.spans.some((s) => s.traceId === headerTrace)).to.equal(false);

    await svc.service.services.activityLog.flush();
    const { trace } = await svc.gql('query($r: ID!) { trace(runId: $r) { traceId } }', { r: await latestRunId() });
    expect(trace.traceId).to.equal(metaTrace);
  });

  it('an MCP tools/call with a malformed `_meta.traceparent`: a new trace, and the call answered all the same', async () => {
    const answer = await mcpPost({
      id: 2,
      method: 'tools/call',
      params: { name: 'forecast', arguments: { input: 'Porto' }, _meta: { traceparent: `00-${'e'.repeat(31)}-x-01` } },
    });
    expect(answer).to.contain('sunny');
    const server = await receiver.waitFor((s) => s.kind === SERVER && s.attributes['jsonrpc.request.id'] === '2');
    expect(server.name).to.equal('tools/call forecast');
    expect(server.parentSpanId).to.equal('');
    expect(server.traceId).to.not.contain('eeeeeeee');
    await svc.service.services.activityLog.flush();
    const { trace } = await svc.gql('query($r: ID!) { trace(runId: $r) { traceId } }', { r: await latestRunId() });
    expect(trace.traceId).to.equal(server.traceId);
  });
});
