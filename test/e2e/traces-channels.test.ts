import { expect } from 'chai';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { channelAgent, startChannelPeers, PEER_DOMAIN, type ChannelPeers } from '../helpers/channel-peers.js';
import { startE2eService, type E2eService } from '../helpers/surface-service.js';
import { until } from '../helpers/until.js';

// Traces through the channels (issue 53): a message received in one call and answered later links
// the answering run to the receipt's span, and the answer's send carries the run's trace to the
// smarthost (a `Traceparent` header) and to Twilio (`traceparent`).

const SERVER = 2; // OTLP SpanKind
const CLIENT = 3;

describe('e2e: traces through email and SMS', function () {
  this.timeout(90_000);
  let receiver: OtlpReceiver;
  let svc: E2eService;
  let peers: ChannelPeers;

  before(async () => {
    receiver = await startOtlpReceiver();
    peers = await startChannelPeers();
    svc = await startE2eService('traces-channels', {
      env: {
        ...peers.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'aes-traces-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
  });

  after(async () => {
    await svc?.stop();
    await receiver?.close();
    await peers?.close();
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
