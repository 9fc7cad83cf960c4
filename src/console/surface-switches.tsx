import { Alert, Group, Paper, Stack, Switch, Text } from '@mantine/core';
import { useMutation, useQuery } from 'urql';
import { messageOf } from './errors.js';
import { graphql } from './graphql.js';
import { LoadingState } from './states.js';

export type SurfaceName =
  'HTTP_API' | 'DOCUMENT_API' | 'MCP' | 'WIDGET' | 'WEBHOOKS' | 'OPENAI' | 'A2A' | 'EMAIL' | 'SMS';

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

/** A surface's two switches: on or off (off answers 403), and whether its requests go to the activity log. */
export function SurfaceSwitches({ agentId, surface, label }: { agentId: string; surface: SurfaceName; label: string }) {
  const [{ data, error, fetching }] = useQuery({ query: SurfacesQuery, variables: { id: agentId } });
  const [{ fetching: saving, error: saveError }, save] = useMutation(SetSurface);
  const setting = data?.agent.surfaces.find((s) => s.surface === surface);
  return (
    <Paper withBorder p="md" component="section" aria-label={`${label} switches`}>
      {fetching && !data ? (
        <LoadingState label="Loading the switches…" />
      ) : error && !data ? (
        <Alert variant="outline" color="red.9" role="alert">
          {messageOf(error)}
        </Alert>
      ) : setting ? (
        <Stack gap="xs">
          <Group gap="xl" wrap="wrap">
            <Switch
              label={`${label} enabled`}
              description={setting.enabled ? 'Calls are answered' : 'Calls get 403'}
              checked={setting.enabled}
              disabled={saving}
              onChange={(e) => void save({ agentId, surface, enabled: e.currentTarget.checked })}
            />
            <Switch
              label="Activity logging"
              description={setting.activityLogging ? 'Each call is in the Activity tab' : 'Calls are not logged'}
              checked={setting.activityLogging}
              disabled={saving}
              onChange={(e) => void save({ agentId, surface, activityLogging: e.currentTarget.checked })}
            />
          </Group>
          {saveError ? (
            <Text size="sm" c="red.8" role="alert">
              {messageOf(saveError)}
            </Text>
          ) : null}
        </Stack>
      ) : null}
    </Paper>
  );
}
