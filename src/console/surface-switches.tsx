import { Alert, Badge, Group, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from 'urql';
import { messageOf } from './errors.js';
import { graphql } from './graphql.js';
import { LoadingState } from './states.js';

export type SurfaceName =
  'HTTP_API' | 'DOCUMENT_API' | 'MCP' | 'WIDGET' | 'WEBHOOKS' | 'OPENAI' | 'A2A' | 'EMAIL' | 'SMS' | 'SCHEDULE';

const SurfacesQuery = graphql(`
  query AgentSurfaces($id: ID!) {
    agent(id: $id) {
      id
      surfaces {
        surface
        enabled
        activityLogging
      }
    }
  }
`);

const SetSurface = graphql(`
  mutation SetSurface($agentId: ID!, $surface: Surface!, $enabled: Boolean, $activityLogging: Boolean) {
    setSurface(agentId: $agentId, surface: $surface, enabled: $enabled, activityLogging: $activityLogging) {
      id
      surfaces {
        surface
        enabled
        activityLogging
      }
    }
  }
`);

/**
 * What arrives on a surface (one, many), what the switch does with it, and what becomes of it while
 * the surface is off: every card says the same things in the same places.
 */
const WORDS: Record<SurfaceName, { one: string; many: string; verb: string; on?: string; off: string }> = {
  HTTP_API: { one: 'call', many: 'calls', verb: 'Answer', off: 'get 403' },
  DOCUMENT_API: { one: 'call', many: 'calls', verb: 'Answer', off: 'get 403' },
  MCP: { one: 'call', many: 'calls', verb: 'Answer', off: 'get 403' },
  OPENAI: { one: 'call', many: 'calls', verb: 'Answer', off: 'get 403' },
  A2A: { one: 'call', many: 'calls', verb: 'Answer', off: 'get 403' },
  WIDGET: { one: 'chat message', many: 'chat messages', verb: 'Answer', off: 'get 403' },
  WEBHOOKS: { one: 'delivery', many: 'deliveries', verb: 'Accept', on: 'run their handler', off: 'get 403' },
  EMAIL: { one: 'email', many: 'emails', verb: 'Receive', on: 'reach the agent', off: 'are refused' },
  SMS: { one: 'text message', many: 'text messages', verb: 'Receive', on: 'reach the agent', off: 'are refused' },
  SCHEDULE: { one: 'scheduled run', many: 'scheduled runs', verb: 'Start', on: 'start on time', off: 'do not start' },
};

/**
 * A surface's switch card, the same on every surface tab: its name with On or Off, the switch that
 * turns it on, and whether what arrives on it is logged in the Activity tab. The switch is named by
 * what it does ("Answer calls"), never by a state it may not be in.
 */
export function SurfaceSwitches({ agentId, surface, label }: { agentId: string; surface: SurfaceName; label: string }) {
  const [{ data, error, fetching }] = useQuery({ query: SurfacesQuery, variables: { id: agentId } });
  const [{ fetching: saving, error: saveError }, save] = useMutation(SetSurface);
  const setting = data?.agent.surfaces.find((s) => s.surface === surface);
  const words = WORDS[surface];
  const titleId = `surface-${surface.toLowerCase()}-title`;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={titleId}>
      <Stack gap="sm">
        <Group gap="xs">
          <Title order={3} size="h4" id={titleId}>
            {label}
          </Title>
          {setting ? (
            <Badge variant={setting.enabled ? 'filled' : 'outline'} color={setting.enabled ? 'teal.9' : 'gray.7'}>
              {setting.enabled ? 'On' : 'Off'}
            </Badge>
          ) : null}
        </Group>
        {fetching && !data ? (
          <LoadingState label="Loading the switches…" />
        ) : error && !data ? (
          <Alert variant="outline" color="red.9" role="alert">
            {messageOf(error)}
          </Alert>
        ) : setting ? (
          <Group gap="xl" wrap="wrap" align="flex-start">
            <Switch
              label={`${words.verb} ${words.many}`}
              description={
                setting.enabled
                  ? `On: ${words.many} ${words.on ?? 'are answered'}`
                  : `Off: ${words.many} ${words.off} until you turn it on`
              }
              checked={setting.enabled}
              disabled={saving}
              onChange={(e) => void save({ agentId, surface, enabled: e.currentTarget.checked })}
            />
            <Switch
              label="Activity logging"
              description={
                setting.activityLogging
                  ? `On: each ${words.one} is a row in the Activity tab`
                  : `Off: ${words.many} are not logged`
              }
              checked={setting.activityLogging}
              disabled={saving}
              onChange={(e) => void save({ agentId, surface, activityLogging: e.currentTarget.checked })}
            />
          </Group>
        ) : null}
        {saveError ? (
          <Text size="sm" c="red.8" role="alert">
            {messageOf(saveError)}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}
