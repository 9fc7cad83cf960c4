import { Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../graphql.js';
import { when } from '../../format.js';
import { ListStates } from '../../ui.js';

const DeliveriesQuery = graphql(`
  query EventDeliveries($subscriptionId: ID!) {
    eventDeliveries(subscriptionId: $subscriptionId, first: 10) {
      nodes {
        id
        kind
        state
        attempts
        lastStatus
        lastResponse
        createdAt
        attemptLog {
          attempt
          status
          durationMs
        }
      }
    }
  }
`);

const SendTestMutation = graphql(`
  mutation SendTestEvent($subscriptionId: ID!) {
    sendTestEvent(subscriptionId: $subscriptionId) {
      id
    }
  }
`);

const ReplayMutation = graphql(`
  mutation ReplayEventDelivery($id: ID!) {
    replayEventDelivery(id: $id) {
      id
    }
  }
`);

const STATE_COLORS = { PENDING: 'yellow.9', DELIVERED: 'teal.9', FAILED: 'red.9' } as const;
const CONTEXT = { additionalTypenames: ['EventDelivery'] };

/** One event webhook's delivery log, newest first, with "Send test event" and "Send again" for admins. */
export function EventDeliveries({ subscriptionId, canSend }: { subscriptionId: string; canSend: boolean }) {
  const context = useMemo(() => CONTEXT, []);
  const [{ data, error, fetching }, refetch] = useQuery({
    query: DeliveriesQuery,
    variables: { subscriptionId },
    context,
  });
  const [sending, sendTest] = useMutation(SendTestMutation);
  const [, replay] = useMutation(ReplayMutation);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Delivery log</Title>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={reload}>
            Refresh
          </Button>
          {canSend ? (
            <Button size="xs" loading={sending.fetching} onClick={() => sendTest({ subscriptionId }, context)}>
              Send test event
            </Button>
          ) : null}
        </Group>
      </Group>
      <ListStates
        result={{ data, error, fetching }}
        retry={reload}
        loading="Loading deliveries…"
        forbidden="Only workspace members may see deliveries."
        isEmpty={(d) => d.eventDeliveries.nodes.length === 0}
        empty={{ title: 'No deliveries yet', text: 'Events sent to this URL are listed here.' }}
      >
        {(data) => (
          <Table.ScrollContainer minWidth={640}>
            <Table striped aria-label="Deliveries">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Event</Table.Th>
                  <Table.Th scope="col">State</Table.Th>
                  <Table.Th scope="col">Attempts</Table.Th>
                  <Table.Th scope="col">Last answer</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
                  {canSend ? <Table.Th scope="col">Actions</Table.Th> : null}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.eventDeliveries.nodes.map((d) => (
                  <Table.Tr key={d.id}>
                    <Table.Td>{d.kind}</Table.Td>
                    <Table.Td>
                      <Badge color={STATE_COLORS[d.state]}>{d.state.toLowerCase()}</Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {d.attemptLog.map((a) => `${a.status ?? 'no answer'} (${a.durationMs} ms)`).join(', ') || '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace" lineClamp={2}>
                        {d.lastResponse ?? ''}
                      </Text>
                    </Table.Td>
                    <Table.Td>{when(d.createdAt)}</Table.Td>
                    {canSend ? (
                      <Table.Td>
                        <Button size="xs" variant="light" onClick={() => replay({ id: d.id }, context)}>
                          Send again
                        </Button>
                      </Table.Td>
                    ) : null}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </ListStates>
    </Stack>
  );
}
