import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { type OtlpReceiver } from '../helpers/otlp-receiver.js';
import type { E2eService } from '../helpers/surface-service.js';
import { startTracedService } from '../helpers/traced-service.js';
import { until } from '../helpers/until.js';

// Traces (issue 53), continued from traces.test.ts: a refused call, webhook deliveries signed well and
// badly, Document API operations and a run past the spans an entry keeps.

const CALLER_SPAN = '00f067aa0ba902b7';
const SERVER = 2; // OTLP SpanKind
const SIGNING = 'orders-signing-secret';

describe('e2e: OpenTelemetry traces over OTLP: refusals, webhooks, documents', function () {
  this.timeout(90_000);
  let receiver: OtlpReceiver;
  let svc: E2eService;
  let agent: string;
  let key: string;

  before(async () => {
    ({ receiver, svc, agent, key } = await startTracedService('traces-operations'));
  });

  after(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  /** The run id of the agent's newest entry. */
  async function latestRunId(): Promise<string> {
    const d = await svc.gql('query($a: ID!) { agent(id: $a) { activity(first: 1) { nodes { runId } } } }', {
      a: agent,
    });
    return d.agent.activity.nodes[0].runId;
  }

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

  /** A signed webhook integration `orders` (HMAC-SHA256 over the body, as GitHub and others send it). */
  let signedHook: Promise<void> | undefined;
  function ordersHook(): Promise<void> {
    signedHook ??= (async () => {
      await svc.gql(
        'mutation($v: String!) { createSecret(name: "orders-signing", kind: WEBHOOK_SIGNING_SECRET, value: $v) { name } }',
        { v: SIGNING },
      );
      await svc.gql('mutation($a: ID!, $i: WebhookInput!) { addWebhook(agentId: $a, input: $i) { id } }', {
        a: agent,
        i: {
          integration: 'orders',
          handler: { script: 'return { seen: input.orderId };' },
          signature: { scheme: 'HMAC_SHA256', secretName: 'orders-signing' },
        },
      });
    })();
    return signedHook;
  }
  const signed = (raw: string, secret = SIGNING) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

  it('a signed webhook delivery: its run is a trace of its own, linked to the receipt’s span', async () => {
    await ordersHook();
    const raw = JSON.stringify({ orderId: 7 });
    const res = await fetch(`${svc.url}/agents/${agent}/webhook/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-256': signed(raw) },
      body: raw,
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    const receipt = await receiver.waitFor(
      (s) => s.kind === SERVER && s.name.includes('/webhook/') && s.attributes['http.response.status_code'] === 200,
    );
    const job = await receiver.waitFor((s) => s.name === 'process webhooks');
    expect(job.traceId).to.not.equal(receipt.traceId);
    expect(job.links).to.deep.equal([{ traceId: receipt.traceId, spanId: receipt.spanId }]);
    const script = await receiver.waitFor((s) => s.name === 'execute_script orders');
    expect(script.traceId).to.equal(job.traceId);
  });

  it('a badly signed webhook delivery: refused, its server span exported with the refusal, and no run', async () => {
    await ordersHook();
    const raw = JSON.stringify({ orderId: 8 });
    const trace = 'b'.repeat(32);
    const res = await fetch(`${svc.url}/agents/${agent}/webhook/orders`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature-256': signed(raw, 'not-the-secret'),
        traceparent: `00-${trace}-${CALLER_SPAN}-01`,
      },
      body: raw,
    });
    expect(res.status).to.equal(401);
    const server = await receiver.waitFor((s) => s.traceId === trace && s.kind === SERVER);
    expect(server.name).to.equal('POST /agents/:agentId/webhook/:integration');
    // HTTP conventions: a 4xx on a server span keeps the status unset and names the error in `error.type`.
    expect(server.attributes).to.include({ 'http.response.status_code': 401, 'error.type': 'UNAUTHENTICATED' });
    // Nothing ran: no run span in the receipt's trace, no delivery's run linked to it.
    await svc.service.services.activityLog.flush();
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.spans.filter((s) => s.traceId === trace).map((s) => s.name)).to.deep.equal([server.name]);
    expect(receiver.spans.filter((s) => s.links.some((l) => l.traceId === trace))).to.deep.equal([]);
  });

  it('a Document API call: its operation is a span of its own, with the document and the records’ count', async () => {
    await svc.gql('mutation($a: ID!) { setSurface(agentId: $a, surface: DOCUMENT_API, enabled: true) { id } }', {
      a: agent,
    });
    const doc = (
      await svc.gql(
        'mutation($a: ID!) { createDocument(agentId: $a, input: { name: "orders", kind: DATABASE, fields: [{ name: "ref", type: STRING, required: true }] }) { id } }',
        { a: agent },
      )
    ).createDocument.id;
    await svc.gql(
      'mutation($a: ID!, $d: ID!) { exposeDocument(agentId: $a, documentId: $d, read: true, write: true) { id } }',
      { a: agent, d: doc },
    );
    const call = (op: string, body: unknown, trace: string) =>
      fetch(`${svc.url}/agents/${agent}/documents/${doc}/data/${op}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-agent-access-key': key,
          traceparent: `00-${trace}-${CALLER_SPAN}-01`,
        },
        body: JSON.stringify(body),
      });
    expect((await call('insert', { items: [{ ref: 'A-1' }, { ref: 'A-2' }] }, 'e'.repeat(32))).status).to.equal(200);
    expect((await call('query', { filter: { ref: 'A-2' } }, 'f'.repeat(32))).status).to.equal(200);

    const insert = await receiver.waitFor((s) => s.traceId === 'e'.repeat(32) && s.name === 'insert orders');
    const server = await receiver.waitFor((s) => s.traceId === 'e'.repeat(32) && s.kind === SERVER);
    expect(insert.parentSpanId).to.equal(server.spanId);
    expect(insert.attributes).to.include({
      'aes.document.operation': 'insert',
      'aes.document.collection': 'orders',
      'aes.document.id': doc,
      'aes.document.affected_count': 2,
    });
    // Admission is part of the operation: its span is the operation's child.
    const admission = await receiver.waitFor((s) => s.traceId === 'e'.repeat(32) && s.name === 'admission');
    expect(admission.parentSpanId).to.equal(insert.spanId);
    const query = await receiver.waitFor((s) => s.traceId === 'f'.repeat(32) && s.name === 'query orders');
    expect(query.attributes).to.include({ 'aes.document.result_count': 1 });
    expect(query.status.code).to.equal(0);
  });

  it('a run past 200 spans: the entry keeps 200 and says how many it left out', async () => {
    await svc.gql('mutation($a: ID!, $i: HttpEndpointInput!) { addHttpEndpoint(agentId: $a, input: $i) { id } }', {
      a: agent,
      i: { path: 'busy', handler: { prompt: 'Look everything up.' } },
    });
    // One model step asking for 210 tool calls: 210 execute_tool spans besides the call's own.
    const calls = Array.from({ length: 210 }, () => ({ name: 'list_documents', arguments: {} }));
    svc.fake.enqueue({ toolCalls: calls }, { text: 'all looked up' });
    const res = await fetch(`${svc.url}/agents/${agent}/api/busy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agent-access-key': key },
      body: JSON.stringify({ q: 'everything' }),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    await svc.service.services.activityLog.flush();
    const runId = await latestRunId();
    const { trace } = await svc.gql(
      'query($r: ID!) { trace(runId: $r) { entryId traceId spansDropped spans { name } } }',
      {
        r: runId,
      },
    );
    expect(trace.spans).to.have.length(200);
    expect(trace.spansDropped).to.be.greaterThan(10);
    // The run and the call end last, past the bound: they are kept all the same, in place of tools.
    expect(trace.spans.map((s: { name: string }) => s.name)).to.include.members([
      'POST /agents/:agentId/api{/*rest}',
      'invoke_agent Tracer',
    ]);
    const { agent: one } = await svc.gql(
      'query($a: ID!, $e: ID!) { agent(id: $a) { activityEntry(id: $e) { spansDropped spans { spanId } } } }',
      { a: agent, e: trace.entryId },
    );
    expect(one.activityEntry.spans).to.have.length(200);
    expect(one.activityEntry.spansDropped).to.equal(trace.spansDropped);
    // The collector gets every span: the kept ones and the left-out ones.
    await until(
      'every span exported',
      async () =>
        receiver.spans.filter((s) => s.traceId === trace.traceId).length === 200 + trace.spansDropped
          ? true
          : undefined,
      30_000,
    );
  });
});
