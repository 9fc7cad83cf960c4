import { Alert, Badge, Button, Code, CopyButton, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from 'urql';
import { JsonBlock, RedactedText, formatCredits, statusColor, utcTime } from '../../activity-view.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { RunTimeline, RunTimelineFields } from './run-timeline.js';

// One activity entry in the Activity tab's drawer: its bodies are asked for this entry alone, so
// that no page of the list can weigh more than the GraphQL answer limit.

const EntryQuery = graphql(
  `
    query AgentActivityEntry($agentId: ID!, $id: ID!) {
      agent(id: $agentId) {
        id
        activityEntry(id: $id) {
          id
          kind
          surface
          entry
          method
          path
          status
          requestHeaders
          requestBody
          response
          truncated
          credits
          durationMs
          keyId
          oauthClientId
          grantedBy
          runId
          requestId
          error
          createdAt
          protocol
          deliveryId
          deliveryRun {
            id
            error
            runId
            credits
          }
          ...RunTimelineFields
        }
      }
    }
  `,
  [RunTimelineFields],
);

const MembersQuery = graphql(`
  query ActivityEntryMembers {
    workspace {
      id
      members {
        id
        name
        email
      }
    }
  }
`);

export type Surface = NonNullable<ResultOf<typeof EntryQuery>['agent']['activityEntry']>['surface'];

/** What the console calls each surface. */
export const SURFACE_LABELS: Record<Surface, string> = {
  HTTP_API: 'HTTP API',
  DOCUMENT_API: 'Document API',
  MCP: 'MCP',
  WIDGET: 'Chat widget',
  WEBHOOKS: 'Webhooks',
  OPENAI: 'OpenAI-compatible API',
  A2A: 'A2A server',
  EMAIL: 'Email',
  SMS: 'SMS',
  SCHEDULE: 'Schedules',
};

/** How a webhook receipt's delivery ran: its latest run (null while none has ended). */
export interface DeliveryOutcome {
  run: { error: string | null } | null;
}

/**
 * An entry's HTTP status (or `run`), with an `error` badge when it failed. Protocol traffic is gray
 * whatever its status (the 405 a stream probe expects is no failure) and says `protocol`; a webhook
 * receipt adds how its delivery ran: `run ok`, `run failed`, or `run queued` while no run has ended.
 */
export function StatusBadge({
  status,
  error,
  protocol = false,
  delivery,
}: {
  status: number | null;
  error: string | null;
  protocol?: boolean;
  delivery?: DeliveryOutcome;
}) {
  const run = delivery?.run;
  return (
    <Group gap={4} wrap="nowrap">
      <Badge variant="outline" color={protocol ? 'gray.7' : statusColor(status)} size="sm">
        {status ?? 'run'}
      </Badge>
      {error ? (
        <Badge variant="outline" color="red.9" size="sm" title={error}>
          error
        </Badge>
      ) : null}
      {delivery ? (
        <Badge
          variant="outline"
          size="sm"
          color={run ? (run.error ? 'red.9' : 'teal.9') : 'gray.7'}
          title={run?.error ?? undefined}
        >
          {run ? (run.error ? 'run failed' : 'run ok') : 'run queued'}
        </Badge>
      ) : null}
      {protocol ? (
        <Badge variant="outline" color="gray.7" size="sm">
          protocol
        </Badge>
      ) : null}
    </Group>
  );
}

function Id({ label, value }: { label: string; value: string | null }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Text size="sm" fw={600} w={96} style={{ flexShrink: 0 }}>
        {label}
      </Text>
      {value ? (
        <>
          <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
            {value}
          </Text>
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button variant="subtle" size="compact-xs" onClick={copy} aria-label={`Copy the ${label.toLowerCase()}`}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </>
      ) : (
        <Text size="sm" c="dimmed">
          none
        </Text>
      )}
    </Group>
  );
}

/** Who called, for an OAuth call: the client, and the member whose approval it used (by name once known). */
function OAuthCaller({ clientId, grantedBy }: { clientId: string; grantedBy: string | null }) {
  const [{ data }] = useQuery({ query: MembersQuery, pause: !grantedBy });
  const member = data?.workspace.members.find((m) => m.id === grantedBy);
  return (
    <Text size="sm" data-testid="oauth-caller" style={{ wordBreak: 'break-all' }}>
      OAuth client <Code>{clientId}</Code>
      {grantedBy ? (
        <>
          , approved by member{' '}
          <Text span fw={600}>
            {member ? `${member.name} (${member.email})` : grantedBy}
          </Text>
        </>
      ) : null}
    </Text>
  );
}

/** One entry with its headers, bodies, credits and ids. */
export function EntryDetail({ agentId, id }: { agentId: string; id: string }) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: EntryQuery, variables: { agentId, id } });
  if (fetching && !data) return <LoadingState label="Loading the entry…" />;
  if (error && !data) return <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />;
  const e = data?.agent.activityEntry;
  if (!e)
    return (
      <EmptyState title="Entry not found">
        It may have been pruned (the workspace keeps activity for a number of days).
      </EmptyState>
    );
  const headers = Object.entries((e.requestHeaders ?? {}) as Record<string, unknown>);
  return (
    <Stack gap="md">
      <Group gap="xs">
        <StatusBadge
          status={e.status}
          error={e.error}
          protocol={e.protocol}
          delivery={e.deliveryId && e.kind === 'REQUEST' ? { run: e.deliveryRun ?? null } : undefined}
        />
        <Text size="sm">
          {SURFACE_LABELS[e.surface]} · {e.entry ?? 'no entry'} · {utcTime(e.createdAt)} UTC
        </Text>
      </Group>
      {e.method ? (
        <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
          {e.method} {e.path}
        </Text>
      ) : null}
      <SimpleGrid cols={2} spacing="xs">
        <Text size="sm">
          <Text span fw={600}>
            Credits
          </Text>{' '}
          {formatCredits(e.credits)}
        </Text>
        <Text size="sm">
          <Text span fw={600}>
            Duration
          </Text>{' '}
          {e.durationMs === null ? '—' : `${e.durationMs} ms`}
        </Text>
      </SimpleGrid>
      <Stack gap={4}>
        <Id label="Run id" value={e.runId} />
        <Id label="Request id" value={e.requestId} />
        <Id label="Key id" value={e.keyId} />
        {e.deliveryId ? <Id label="Delivery id" value={e.deliveryId} /> : null}
      </Stack>
      {e.protocol ? (
        <Text size="sm" c="dimmed">
          Protocol traffic: an exchange the client’s protocol makes around its calls (a handshake, a notification, a
          probe for a stream this server does not offer). The Activity list shows it only with “Protocol traffic” on.
        </Text>
      ) : null}
      {e.deliveryRun ? (
        <Text size="sm" data-testid="delivery-run">
          The delivery’s latest run {e.deliveryRun.error ? 'failed' : 'succeeded'} (run{' '}
          <Code>{e.deliveryRun.runId ?? e.deliveryRun.id}</Code>, {formatCredits(e.deliveryRun.credits)} credits)
          {e.deliveryRun.error ? (
            <>
              : <RedactedText text={e.deliveryRun.error} />
            </>
          ) : null}
        </Text>
      ) : null}
      {e.oauthClientId ? <OAuthCaller clientId={e.oauthClientId} grantedBy={e.grantedBy} /> : null}
      {e.error ? (
        <Alert color="red" title="Error" variant="outline">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            <RedactedText text={e.error} />
          </Text>
        </Alert>
      ) : null}
      {e.truncated ? (
        <Alert color="gray" variant="outline">
          Part of this entry was not logged: bodies over 64 KiB are cut, and values nested too deep are replaced by a
          marker.
        </Alert>
      ) : null}
      <RunTimeline entry={e} />
      <Stack gap={4}>
        <Title order={4}>Request headers</Title>
        {headers.length ? (
          <Table aria-label="Request headers" withTableBorder layout="fixed">
            <Table.Tbody>
              {headers.map(([name, value]) => (
                <Table.Tr key={name}>
                  <Table.Th
                    scope="row"
                    w="40%"
                    style={{ fontFamily: 'monospace', fontWeight: 600, wordBreak: 'break-all' }}
                  >
                    {name}
                  </Table.Th>
                  <Table.Td style={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
                    <RedactedText text={String(value)} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : (
          <Text size="sm" c="dimmed">
            None
          </Text>
        )}
      </Stack>
      <Stack gap={4}>
        <Title order={4}>Request body</Title>
        <JsonBlock value={e.requestBody} label="Request body" />
      </Stack>
      <Stack gap={4}>
        <Title order={4}>Response</Title>
        <JsonBlock value={e.response} label="Response" />
      </Stack>
    </Stack>
  );
}
