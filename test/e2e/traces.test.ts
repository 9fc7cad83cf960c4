import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { channelAgent, startChannelPeers, PEER_DOMAIN, type ChannelPeers } from '../helpers/channel-peers.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
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
  let peers: ChannelPeers;

  before(async () => {
    receiver = await startOtlpReceiver();
    peers = await startChannelPeers();
    svc = await startE2eService('traces', {
      env: {
        ...peers.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'aes-traces-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
    agent = (await svc.gql('mutation { createAgent(input: { name: "Tracer", defaultModel: "fake-model" }) { id } }'))
      .createAgent.id;
    await svc.gql('mutation($a: ID!) { setCapabilities(agentId: $a, input: { documents: true }) { id } }', {
      a: agent,
    });
    for (const surface of ['HTTP_API', 'MCP', 'WEBHOOKS'])
      await svc.gql(`mutation($a: ID!) { setSurface(agentId: $a, surface: ${surface}, enabled: true) { id } }`, {
        a: agent,
      });
    key = (await svc.gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "traces") { key } }', { a: agent }))
      .createAgentApiKey.key;
  });

  after(async () => {
    await svc?.stop();
    await receiver?.close();
    await peers?.close();
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
    expect(spans.find((s) => s.kind === SERVER)!.name).to.equal('POST /agents/:agentId/mcp');
  });

  it('a refused call: its entry keeps the caller’s trace id but no spans (only calls that ran keep them)', async () => {
    const res = await fetch(`${svc.url}/agents/${agent}/api/ask`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-agent-access-key': 'not-a-key',
        traceparent: `00-${'a'.repeat(32)}-${CALLER_SPAN}-01`,
      },
      body: '{}',
    });
    expect(res.status).to.equal(401);
    await svc.service.services.activityLog.flush();
    const d = await svc.gql('query($a: ID!) { agent(id: $a) { activity(first: 1) { nodes { id status } } } }', {
      a: agent,
    });
    const [latest] = d.agent.activity.nodes;
    expect(latest.status).to.equal(401);
    const { agent: one } = await svc.gql(
      'query($a: ID!, $e: ID!) { agent(id: $a) { activityEntry(id: $e) { traceId spans { name } } } }',
      { a: agent, e: latest.id },
    );
    expect(one.activityEntry).to.deep.equal({ traceId: 'a'.repeat(32), spans: [] });
    // Its server span is exported all the same, refusal code and all.
    const server = await receiver.waitFor((s) => s.traceId === 'a'.repeat(32) && s.kind === SERVER);
    expect(server.attributes).to.include({ 'http.response.status_code': 401 });
    expect(server.attributes['error.type']).to.be.a('string');
  });

  it('a webhook delivery: its run is a trace of its own, linked to the receipt’s span', async () => {
    await svc.gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { integration: 'orders', handler: { script: 'return { seen: input.orderId };' } },
    });
    const res = await fetch(`${svc.url}/agents/${agent}/webhook/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: 7 }),
    });
    expect(res.status).to.equal(200);
    const receipt = await receiver.waitFor((s) => s.kind === SERVER && s.name.includes('/webhook/'));
    const job = await receiver.waitFor((s) => s.name === 'process webhooks');
    expect(job.traceId).to.not.equal(receipt.traceId);
    expect(job.links).to.deep.equal([{ traceId: receipt.traceId, spanId: receipt.spanId }]);
    const script = await receiver.waitFor((s) => s.name === 'execute_script orders');
    expect(script.traceId).to.equal(job.traceId);
  });

  it('an email answered later: the run links to the receipt’s span, and the answer carries its trace to the smarthost', async () => {
    const address = `desk@${PEER_DOMAIN}`;
    const a = await channelAgent(svc.gql, 'Mailer', 'EMAIL', address, {
      script: 'return "Got it: " + input.text.trim();',
    });
    await peers.deliver(svc.smtpPort!, { from: 'ada@customer.example', to: address, subject: 'Hi', text: 'hello' });
    const receipt = await receiver.waitFor((s) => s.name === 'receive email');
    expect(receipt.kind).to.equal(SERVER);
    expect(receipt.attributes).to.include({ 'aes.email.via': 'smtp', 'network.protocol.name': 'smtp' });
    const job = await receiver.waitFor((s) => s.name === 'process email');
    expect(job.traceId).to.not.equal(receipt.traceId);
    expect(job.links).to.deep.equal([{ traceId: receipt.traceId, spanId: receipt.spanId }]);
    // The receipt's entry keeps its trace id, as a webhook receipt's does.
    await svc.service.services.activityLog.flush();
    const entries = await svc.service.db('activity_log').where({ agent_id: a }).select('kind', 'trace_id');
    expect(entries.find((e: any) => e.kind !== 'run')?.trace_id).to.equal(receipt.traceId);

    const sent = await until('the answer at the smarthost', async () =>
      peers.sink.received.find((m) => m.mailFrom === address),
    );
    const send = await receiver.waitFor((s) => s.name === 'send email');
    const run = await receiver.waitFor((s) => s.name === 'invoke_agent Mailer');
    expect(send.kind).to.equal(CLIENT);
    expect(send.traceId).to.equal(job.traceId);
    expect(send.parentSpanId).to.equal(run.spanId);
    expect(sent.header('traceparent')).to.equal(`00-${job.traceId}-${send.spanId}-01`);
  });

  it('an SMS the agent answers with send_sms: the run links to the callback’s span; Twilio’s request carries the run’s trace', async () => {
    const number = '+14155550177';
    const a = await channelAgent(svc.gql, 'Texter', 'SMS', number, { prompt: 'Answer with send_sms.' });
    svc.fake.enqueue(
      { toolCalls: [{ name: 'send_sms', arguments: { to: '+14155550123', text: 'On it' } }] },
      { text: 'Sent.' },
    );
    const res = await peers.text(svc.url, a, { from: '+14155550123', to: number, body: 'help?', sid: 'SMtrace1' });
    expect(res.status, await res.clone().text()).to.equal(200);
    const receipt = await receiver.waitFor((s) => s.kind === SERVER && s.name === 'POST /agents/:agentId/sms');
    const job = await receiver.waitFor((s) => s.name === 'process sms');
    expect(job.links).to.deep.equal([{ traceId: receipt.traceId, spanId: receipt.spanId }]);

    const request = await until('the send at the Messages API', async () =>
      peers.api.requests.find((r) => r.form.From === number),
    );
    const send = await receiver.waitFor((s) => s.name === 'send sms');
    const run = await receiver.waitFor((s) => s.name === 'invoke_agent Texter');
    expect(send.traceId).to.equal(job.traceId);
    expect(send.parentSpanId).to.equal(run.spanId);
    expect(request.headers.traceparent).to.equal(`00-${job.traceId}-${send.spanId}-01`);
    expect(request.form.Body).to.equal('On it');
  });
});

describe('e2e: message content in traces, when asked for', function () {
  this.timeout(60_000);
  let receiver: OtlpReceiver;
  let svc: E2eService;

  before(async () => {
    receiver = await startOtlpReceiver();
    svc = await startE2eService('traces_content', {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
        OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
  });

  after(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  it('exports the prompt and the answer after the agent’s redaction, as OTLP/JSON, with the latest GenAI names', async () => {
    const agent = (
      await svc.gql('mutation { createAgent(input: { name: "Talker", defaultModel: "fake-model" }) { id } }')
    ).createAgent.id;
    await svc.gql('mutation($a: ID!) { setGuardrails(agentId: $a, input: { redactPresets: [email] }) { id } }', {
      a: agent,
    });
    await svc.gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { path: 'talk', handler: { prompt: 'Talk.' } },
    });
    const key = (
      await svc.gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "content") { key } }', { a: agent })
    ).createAgentApiKey.key;
    svc.fake.enqueue({ text: 'write to ada@example.com' });
    const res = await fetch(`${svc.url}/agents/${agent}/api/talk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
      body: JSON.stringify({ from: 'grace@example.org' }),
    });
    expect(res.status).to.equal(200);
    const run = await receiver.waitFor((s) => s.name === 'invoke_agent Talker');
    expect(run.via).to.equal('application/json');
    const input = String(run.attributes['gen_ai.input.messages']);
    const output = String(run.attributes['gen_ai.output.messages']);
    expect(input).to.not.contain('grace@example.org');
    expect(output).to.not.contain('ada@example.com');
    expect(JSON.parse(output)[0]).to.include({ role: 'assistant', finish_reason: 'stop' });
    const chat = await receiver.waitFor((s) => s.name === 'chat fake-model' && s.traceId === run.traceId);
    expect(chat.attributes).to.have.property('gen_ai.provider.name');
    expect(chat.attributes).to.not.have.property('gen_ai.system');
  });
});
