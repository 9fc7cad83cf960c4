import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';
import { startE2eService, type E2eService } from './surface-service.js';

/** A service exporting its spans to an OTLP receiver of the test, with one agent and its key. */
export interface TracedService {
  receiver: OtlpReceiver;
  svc: E2eService;
  agent: string;
  key: string;
}

/**
 * Starts the OTLP receiver and a service exporting to it (a short batch delay, so spans arrive
 * while the test waits), with the agent "Tracer" on the fake model: documents on, HTTP API, MCP and
 * webhooks on, and an agent key.
 */
export async function startTracedService(name: string): Promise<TracedService> {
  const receiver = await startOtlpReceiver();
  const svc = await startE2eService(name, {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'aes-traces-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
  });
  const agent = (
    await svc.gql('mutation { createAgent(input: { name: "Tracer", defaultModel: "fake-model" }) { id } }')
  ).createAgent.id;
  await svc.gql('mutation($a: ID!) { setCapabilities(agentId: $a, input: { documents: true }) { id } }', { a: agent });
  for (const surface of ['HTTP_API', 'MCP', 'WEBHOOKS'])
    await svc.gql(`mutation($a: ID!) { setSurface(agentId: $a, surface: ${surface}, enabled: true) { id } }`, {
      a: agent,
    });
  const key = (
    await svc.gql('mutation($a: ID!) { createAgentApiKey(agentId: $a, name: "traces") { key } }', { a: agent })
  ).createAgentApiKey.key;
  return { receiver, svc, agent, key };
}
