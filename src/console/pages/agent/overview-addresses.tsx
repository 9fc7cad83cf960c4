import { Anchor, Code, List, Stack, Text } from '@mantine/core';
import { CopyBlock } from '../../copy-field.js';
import type { ResultOf } from '../../graphql.js';
import { hrefOf, linkClick } from '../../router.js';
import { Section } from '../../section.js';
import { Notice } from '../../ui.js';
import type { AgentQuery } from './agent-query.js';
import { agentAddresses, surfacesOff } from './agent-addresses.js';
import type { Dashboard } from './overview-query.js';

// The Overview's "Addresses" (the agent's id and every URL it answers on, each with a copy button)
// and "Model" (the model a prompt run uses, and where that choice comes from).

const SURFACE_NAMES: Record<string, string> = {
  HTTP_API: 'HTTP API',
  DOCUMENT_API: 'Document API',
  MCP: 'MCP server',
  WIDGET: 'Chat widget',
  WEBHOOKS: 'Webhooks',
  OPENAI: 'OpenAI API',
  A2A: 'A2A',
  EMAIL: 'Email',
  SMS: 'SMS',
  SCHEDULE: 'Schedules',
};

/** The agent's id and addresses. */
export function AgentAddresses({ dash }: { dash: Dashboard }) {
  const addresses = agentAddresses(location.origin, dash);
  const off = surfacesOff(dash);
  return (
    <Section id="agent-addresses-title" title="Addresses">
      <CopyBlock label="Agent id" value={dash.id} block={false} />
      {addresses.map((a) => (
        <CopyBlock key={`${a.label} ${a.value}`} label={a.label} value={a.value} block={false} />
      ))}
      {off.length ? (
        <Text size="xs" c="dimmed">
          Off: {off.map((s) => SURFACE_NAMES[s] ?? s).join(', ')}. Each tab turns its surface on.
        </Text>
      ) : null}
    </Section>
  );
}

type Models = ResultOf<typeof AgentQuery>['models'];
type InUse = Dashboard['modelInUse'];

/** Where the model comes from, in words. */
function sourceText(m: InUse): string {
  switch (m.source) {
    case 'AGENT':
      return "The agent's default model (Settings, below).";
    case 'WORKSPACE_DEFAULT':
      return "The workspace's default model (Workspace → Models): the agent sets none of its own.";
    case 'ENVIRONMENT':
      return `The environment's model (${m.provider === 'ANTHROPIC' ? 'ANTHROPIC_MODEL' : 'OPENAI_MODEL'}): neither the agent nor the workspace sets one.`;
    case 'ENTRY':
      return "The entry's own model.";
    default:
      return 'None: prompt handlers cannot run yet.';
  }
}

/** Where the run sends it, in words. */
function providerText(m: InUse, models: Models): string | null {
  if (!m.provider) return null;
  if (m.configured) {
    const c = models.find((x) => x.name === m.reference);
    return `A configured model: ${m.provider.toLowerCase().replace(/_/g, '-')} ${c?.model ?? m.model ?? ''}`.trim();
  }
  return m.provider === 'ANTHROPIC'
    ? "Not a configured model: sent to Anthropic with the environment's ANTHROPIC_API_KEY"
    : "Not a configured model: sent to the environment's OpenAI-compatible provider (OPENAI_BASE_URL / OPENAI_API_KEY)";
}

/** The model a prompt run uses, where it comes from, and the entries that choose their own. */
export function ModelInUseCard({ dash, models }: { dash: Dashboard; models: Models }) {
  const m = dash.modelInUse;
  const provider = providerText(m, models);
  const overrides = [
    ...dash.httpEndpoints.map((e) => ({ what: `HTTP endpoint ${e.path}`, model: e.modelOverride })),
    ...dash.mcpTools.map((t) => ({ what: `MCP tool ${t.name}`, model: t.modelOverride })),
    ...dash.webhooks.map((w) => ({ what: `Webhook ${w.integration}`, model: w.modelOverride })),
    ...dash.channels.map((c) => ({ what: `Channel ${c.address}`, model: c.modelOverride })),
  ].filter((o): o is { what: string; model: string } => !!o.model);
  const modelsRoute = { page: 'workspace', section: 'models' } as const;
  return (
    <Section id="agent-model-title" title="Model">
      <Stack gap={4} data-testid="model-in-use">
        <Text fw={700}>{m.reference ?? 'No model'}</Text>
        <Text size="sm">{sourceText(m)}</Text>
        {provider ? <Text size="sm">{provider}</Text> : null}
      </Stack>
      {m.problem ? (
        <Notice title="Prompt runs fail">
          <Text size="sm">{m.problem}</Text>
        </Notice>
      ) : null}
      {overrides.length ? (
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            Entries with a model of their own
          </Text>
          <List size="sm">
            {overrides.map((o) => (
              <List.Item key={o.what}>
                {o.what}: <Code>{o.model}</Code>
              </List.Item>
            ))}
          </List>
        </Stack>
      ) : null}
      <Text size="xs" c="dimmed">
        A prompt run takes the entry&apos;s model, else the agent&apos;s default, else the workspace&apos;s default,
        else the environment&apos;s. Script handlers use none.{' '}
        <Anchor href={hrefOf(modelsRoute)} onClick={linkClick(modelsRoute)} size="xs" underline="always">
          Workspace models
        </Anchor>
      </Text>
    </Section>
  );
}
