import { Badge, Button, Code, Group, Select, Stack, Table, Text } from '@mantine/core';
import { Fragment, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql, type ResultOf } from '../../graphql.js';
import { when } from '../../format.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { TableHead } from '../../table-parts.js';
import { ScrollTable } from '../../ui.js';

// The Channels tab's messages: both directions, newest first, filtered by direction and channel, a
// page at a time (with the exact number matching). A body is shown as text only: an email's HTML is
// never rendered here (React writes the text, it does not parse it).

// The page size is written in the query (20): the operation limits weigh a page by its size, and a
// size given by a variable would count as the largest page.
const PAGE_SIZE = 20;
const MessagesQuery = graphql(`
  query AgentMessages($id: ID!, $page: Int!, $direction: MessageDirection, $channel: MessageChannel) {
    agent(id: $id) {
      id
      messages(page: $page, pageSize: 20, direction: $direction, channel: $channel) {
        nodes {
          id
          direction
          channel
          from
          to
          subject
          body
          sentAt
          threadId
          status
          attempts
          lastError
        }
        totalCount
        page
        pageSize
      }
    }
  }
`);

type Message = ResultOf<typeof MessagesQuery>['agent']['messages']['nodes'][number];
type Direction = Message['direction'];
type Channel = Message['channel'];
const ANY = '';

const STATUS_COLOR: Record<string, string> = {
  FAILED: 'red.9',
  UNDELIVERED: 'red.9',
  DEFERRED: '#9c3d00',
  IGNORED: 'gray.8',
  ANSWERED: 'teal.9',
  SENT: 'teal.9',
  DELIVERED: 'teal.9',
};

/** The agent's email and SMS messages with their filters and pages. */
export function ChannelMessages({ agentId }: { agentId: string }) {
  const [direction, setDirection] = useState<Direction | typeof ANY>(ANY);
  const [channel, setChannel] = useState<Channel | typeof ANY>(ANY);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const context = useMemo(() => ({ additionalTypenames: ['Message'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({
    query: MessagesQuery,
    variables: { id: agentId, page, direction: direction || null, channel: channel || null },
    context,
  });
  const result = data?.agent.messages;
  const pages = result ? Math.max(1, Math.ceil(result.totalCount / PAGE_SIZE)) : 1;
  const filter = (apply: () => void) => {
    apply();
    setPage(1);
  };

  return (
    <Stack>
      <Group align="flex-end" wrap="wrap">
        <FilterSelect
          label="Direction"
          options={[
            [ANY, 'Both directions'],
            ['INBOUND', 'Received'],
            ['OUTBOUND', 'Sent'],
          ]}
          value={direction}
          onChange={(v) => filter(() => setDirection(v as Direction | typeof ANY))}
        />
        <FilterSelect
          label="Channel"
          options={[
            [ANY, 'Email and SMS'],
            ['EMAIL', 'Email'],
            ['SMS', 'SMS'],
          ]}
          value={channel}
          onChange={(v) => filter(() => setChannel(v as Channel | typeof ANY))}
        />
        <Button variant="default" onClick={() => refetch({ requestPolicy: 'network-only' })} loading={fetching}>
          Refresh
        </Button>
      </Group>
      {fetching && !data ? (
        <LoadingState label="Loading the messages…" />
      ) : !result ? (
        <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : result.nodes.length === 0 ? (
        <EmptyState title={direction || channel || page > 1 ? 'None matches these filters.' : 'No messages yet'}>
          {direction || channel
            ? null
            : 'Messages the agent receives and sends on its channels appear here, both directions.'}
        </EmptyState>
      ) : (
        <>
          <Text size="sm" role="status" data-testid="message-count">
            {result.totalCount === 1 ? '1 message' : `${result.totalCount} messages`} · page {result.page} of {pages}
          </Text>
          <ScrollTable minWidth={900} label="Messages">
            <Table>
              <TableHead
                columns={['Sent', 'Channel', 'From → To', 'Subject', 'Status', 'Thread', 'Last error']}
                actions
              />
              <Table.Tbody>
                {result.nodes.map((m) => (
                  <Fragment key={m.id}>
                    <MessageRow
                      message={m}
                      open={open === m.id}
                      onToggle={() => setOpen(open === m.id ? null : m.id)}
                    />
                    {open === m.id ? (
                      <Table.Tr>
                        <Table.Td colSpan={8}>
                          <Code
                            block
                            aria-label={`Body of ${m.id}`}
                            data-testid="message-body"
                            style={{
                              whiteSpace: 'pre-wrap',
                              wordBreak: 'break-word',
                              maxHeight: 320,
                              overflow: 'auto',
                            }}
                            tabIndex={0}
                          >
                            {m.body}
                          </Code>
                        </Table.Td>
                      </Table.Tr>
                    ) : null}
                  </Fragment>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        </>
      )}
      <Group justify="space-between">
        <Button variant="default" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Newer messages
        </Button>
        <Button variant="default" disabled={!result || page >= pages} onClick={() => setPage(page + 1)}>
          Older messages
        </Button>
      </Group>
    </Stack>
  );
}

/** One filter of the list: a labelled choice whose first option means "any". */
function FilterSelect({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: [string, string][];
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <Select
      label={label}
      data={options.map(([v, l]) => ({ value: v, label: l }))}
      value={value}
      onChange={(v) => onChange(v ?? ANY)}
      allowDeselect={false}
      w={200}
    />
  );
}

function MessageRow({ message: m, open, onToggle }: { message: Message; open: boolean; onToggle: () => void }) {
  const inbound = m.direction === 'INBOUND';
  return (
    <Table.Tr data-message={m.id}>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(m.sentAt)}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Badge variant="outline" color={inbound ? 'indigo.8' : 'teal.9'}>
            {inbound ? 'Received' : 'Sent'}
          </Badge>
          <Text size="sm">{m.channel === 'EMAIL' ? 'Email' : 'SMS'}</Text>
        </Group>
      </Table.Td>
      <Table.Td style={{ wordBreak: 'break-all' }}>
        {m.from} → {m.to}
      </Table.Td>
      <Table.Td>{m.subject ?? '—'}</Table.Td>
      <Table.Td>
        {m.status ? (
          <Badge variant="outline" color={STATUS_COLOR[m.status] ?? 'gray.8'}>
            {m.status}
          </Badge>
        ) : (
          '—'
        )}
        {m.attempts > 1 ? <Text size="xs">{m.attempts} attempts</Text> : null}
      </Table.Td>
      <Table.Td>
        <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
          {m.threadId ?? '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" c={m.lastError ? 'red.9' : undefined}>
          {m.lastError ?? '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Button size="xs" variant="light" onClick={onToggle} aria-expanded={open} aria-label={`Body of ${m.id}`}>
          Body
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}
