import { expect } from 'chai';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';

// Traces (issue 53): message content goes on the run span only when asked for, after the agent's
// redaction (a service of its own: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is read at start).
// The other trace cases are in traces.test.ts.

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
