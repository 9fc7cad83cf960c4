import { Badge, Button, Group, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { SurfaceSwitches } from '../../surface-switches.js';
import { TableHead } from '../../table-parts.js';
import { ConfirmDialog, FormModal, ScrollTable } from '../../ui.js';
import { ScheduleForm } from './schedule-form.js';
import type { AgentTabProps } from './tab-props.js';

const SchedulesQuery = graphql(`
  query AgentSchedules($id: ID!) {
    agent(id: $id) {
      id
      schedules {
        id
        name
        cron
        timeZone
        intervalSeconds
        enabled
        catchUp
        overlap
        handler {
          kind
        }
        nextFires(count: 3)
        fires(first: 1) {
          occurrenceAt
          state
          error
        }
      }
    }
    models {
      id
      name
    }
  }
`);

const EnableScheduleMutation = graphql(`
  mutation EnableSchedule($id: ID!, $input: UpdateScheduleInput!) {
    updateSchedule(id: $id, input: $input) {
      id
      enabled
    }
  }
`);

const RemoveScheduleMutation = graphql(`
  mutation RemoveSchedule($id: ID!) {
    removeSchedule(id: $id)
  }
`);

type Schedule = ResultOf<typeof SchedulesQuery>['agent']['schedules'][number];

const STATE_WORDS: Record<string, string> = {
  RUNNING: 'Running',
  QUEUED: 'Waiting for the previous run',
  DONE: 'Done',
  FAILED: 'Failed',
  REFUSED: 'Refused',
  SKIPPED: 'Skipped',
  LOST: 'Lost (its instance stopped)',
};

const when = (s: Schedule) =>
  s.cron ? `${s.cron} (${s.timeZone})` : `Every ${s.intervalSeconds} second${s.intervalSeconds === 1 ? '' : 's'}`;
const shown = (iso: string) => new Date(iso).toLocaleString();

/** The agent's Schedules tab: the SCHEDULE switch, its schedules with their next runs and last run. */
export default function SchedulesTab({ agentId }: AgentTabProps) {
  const context = useMemo(() => ({ additionalTypenames: ['Schedule'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: SchedulesQuery, variables: { id: agentId }, context });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Schedule | null>(null);
  const [, enable] = useMutation(EnableScheduleMutation);
  const [, removeSchedule] = useMutation(RemoveScheduleMutation);

  if (fetching && !data) return <LoadingState label="Loading the schedules…" />;
  if (!data) return <ErrorState error={error} retry={reload} />;
  const schedules = data.agent.schedules;
  const remove = async () => {
    const { error: failed } = await removeSchedule({ id: removing!.id });
    if (!failed) reload();
    return failed;
  };
  const addButton = <Button onClick={() => setAdding(true)}>Add schedule</Button>;

  return (
    <Stack>
      <SurfaceSwitches agentId={agentId} surface="SCHEDULE" label="Schedules" />
      <Group justify="space-between">
        <Title order={3}>Schedules</Title>
        {schedules.length ? addButton : null}
      </Group>
      {schedules.length === 0 ? (
        <EmptyState title="No schedules yet" action={addButton}>
          A schedule runs the agent by itself: on a cron expression, or every few seconds.
        </EmptyState>
      ) : (
        <ScrollTable minWidth={820} label="Schedules">
          <Table>
            <TableHead columns={['Name', 'When', 'Next runs', 'Last run', 'On']} actions />
            <Table.Tbody>
              {schedules.map((s) => (
                <Table.Tr key={s.id} data-schedule={s.name}>
                  <Table.Td>
                    <Text fw={500}>{s.name}</Text>
                    <Badge variant="outline" color={s.handler.kind === 'SCRIPT' ? 'indigo.8' : 'teal.9'}>
                      {s.handler.kind === 'SCRIPT' ? 'Script' : 'Prompt'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff={s.cron ? 'monospace' : undefined}>
                      {when(s)}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {s.catchUp ? 'Catches up' : 'No catch-up'} ·{' '}
                      {s.overlap === 'QUEUE' ? 'waits for a run still going' : 'skips while a run goes on'}
                    </Text>
                  </Table.Td>
                  <Table.Td data-next-fires>
                    {s.nextFires.map((f) => (
                      <Text key={f} size="sm">
                        {shown(f)}
                      </Text>
                    ))}
                  </Table.Td>
                  <Table.Td>
                    {s.fires[0] ? (
                      <Text size="sm" title={s.fires[0].error ?? undefined}>
                        {STATE_WORDS[s.fires[0].state] ?? s.fires[0].state} · {shown(s.fires[0].occurrenceAt)}
                      </Text>
                    ) : (
                      <Text size="sm" c="dimmed">
                        Not run yet
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      aria-label={`${s.name} on`}
                      checked={s.enabled}
                      onChange={(e) => void enable({ id: s.id, input: { enabled: e.currentTarget.checked } })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Button variant="subtle" color="red" size="xs" onClick={() => setRemoving(s)}>
                      Remove
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <FormModal opened={adding} onClose={() => setAdding(false)} title="Add schedule" size="xl">
        {adding ? (
          <ScheduleForm
            agentId={agentId}
            models={data.models}
            onDone={() => {
              setAdding(false);
              reload();
            }}
            onCancel={() => setAdding(false)}
          />
        ) : null}
      </FormModal>
      <ConfirmDialog
        opened={removing !== null}
        title="Remove schedule"
        confirmLabel="Remove schedule"
        onConfirm={remove}
        onClose={() => setRemoving(null)}
      >
        {removing ? `Remove “${removing.name}”? It no longer runs; a run going on ends as usual.` : ''}
      </ConfirmDialog>
    </Stack>
  );
}
