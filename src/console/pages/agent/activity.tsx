import {
  Autocomplete,
  Button,
  Drawer,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue, useDocumentVisibility, useMediaQuery } from '@mantine/hooks';
import { useEffect, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import type { VariablesOf } from '../../graphql.js';
import { ActivityQuery } from './activity-query.js';
import { ActivityTable } from './activity-table.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import { EntryDetail, SURFACE_LABELS, type Surface } from './activity-entry.js';
import type { AgentTabProps } from './tab-props.js';
import { ErrorNotice } from '../../ui.js';

// The agent's activity log: filters (surface, status, entry, UTC days), a live tail (the first page
// asked again every 2 seconds while "Live" is on and the page is visible; the service stores its
// batched entries before it answers a page), pages of 50 newest first, and a drawer with one entry's
// headers, bodies and ids. The list asks light fields only; the drawer asks one entry's bodies
// (`activityEntry`), so no page can weigh more than the GraphQL answer limit.

/** The page size (a literal in the query: a variable would count as the largest page against the cost limit). */
const PAGE = 50;
/** How often the live tail asks for the first page again. */
export const LIVE_INTERVAL_MS = 2000;

const STATUS_SUGGESTIONS = ['2xx', '3xx', '4xx', '5xx', 'error'];

/** The day after a `YYYY-MM-DD` day. */
function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

export default function ActivityTab({ agentId }: AgentTabProps) {
  const [surface, setSurface] = useState<Surface | null>(null);
  const [status, setStatus] = useState('');
  const [entry, setEntry] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [live, setLive] = useState(true);
  // Protocol traffic (an MCP handshake, notifications, the stream probe) is left out unless asked.
  const [protocol, setProtocol] = useState(false);
  // Cursors of the pages before the one shown (empty: the first page, newest entries).
  const [cursors, setCursors] = useState<string[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [typedStatus] = useDebouncedValue(status.trim(), 350);
  const [typedEntry] = useDebouncedValue(entry.trim(), 350);
  const visible = useDocumentVisibility() === 'visible';

  const filters = useMemo(
    () => ({
      surface: surface ?? undefined,
      status: typedStatus || undefined,
      entry: typedEntry || undefined,
      since: /^\d{4}-\d{2}-\d{2}$/.test(from) ? `${from}T00:00:00.000Z` : undefined,
      until: /^\d{4}-\d{2}-\d{2}$/.test(to) ? `${nextDay(to)}T00:00:00.000Z` : undefined,
    }),
    [surface, typedStatus, typedEntry, from, to],
  );
  // Another filter: back to the first page.
  useEffect(() => setCursors([]), [filters]);
  useEffect(() => setCursors([]), [protocol]);
  const after = cursors[cursors.length - 1];
  const variables: VariablesOf<typeof ActivityQuery> = useMemo(
    () => ({ id: agentId, after, ...filters, includeProtocol: protocol }),
    [agentId, after, filters, protocol],
  );
  const [{ data, error, fetching }, refetch] = useQuery({
    query: ActivityQuery,
    variables,
    requestPolicy: 'cache-and-network',
  });

  const { fields, other } = fieldErrors(error);
  const filterError = Object.keys(fields).length > 0;
  // A filter the service refused is not asked again until it changes.
  const tailing = live && cursors.length === 0 && visible && !filterError;
  useEffect(() => {
    if (!tailing) return;
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), LIVE_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [tailing, refetch]);

  const page = data?.agent.activity;
  const mobile = useMediaQuery('(max-width: 48em)');

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Title order={3}>Activity</Title>
        <Group gap="lg" align="flex-start">
          <Switch
            label="Protocol traffic"
            description="Handshakes, notifications, stream probes"
            checked={protocol}
            onChange={(e) => setProtocol(e.currentTarget.checked)}
          />
          <Switch
            label="Live"
            description={cursors.length ? 'On the first page' : 'New entries appear as they come'}
            checked={live}
            onChange={(e) => setLive(e.currentTarget.checked)}
          />
        </Group>
      </Group>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} role="group" aria-label="Filters">
        <Select
          label="Surface"
          placeholder="Every surface"
          data={Object.entries(SURFACE_LABELS).map(([value, label]) => ({ value, label }))}
          value={surface}
          onChange={(v) => setSurface(v as Surface | null)}
          clearable
          error={fields.surface}
        />
        <Autocomplete
          label="Status"
          placeholder="429, 4xx or error"
          data={STATUS_SUGGESTIONS}
          value={status}
          onChange={setStatus}
          error={fields.status}
        />
        <TextInput
          label="Entry"
          placeholder="Endpoint, tool or integration"
          value={entry}
          onChange={(e) => setEntry(e.currentTarget.value)}
          error={fields.entry}
        />
        <TextInput
          label="From (UTC day)"
          type="date"
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value)}
          error={fields.since}
        />
        <TextInput
          label="To (UTC day)"
          type="date"
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
          error={fields.until}
        />
      </SimpleGrid>

      {fetching && !data && !error ? (
        <LoadingState label="Loading the activity log…" />
      ) : error && !filterError && !page ? (
        <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : filterError ? (
        <Text size="sm" c="dimmed">
          Correct the filter to see the log.
        </Text>
      ) : page && page.nodes.length === 0 ? (
        <EmptyState
          title={cursors.length || Object.values(filters).some(Boolean) ? 'No entries match' : 'No activity yet'}
        >
          {Object.values(filters).some(Boolean)
            ? 'No entry of the log matches these filters.'
            : 'Calls to the agent’s surfaces appear here as they come (surfaces whose activity logging is off write nothing).'}
        </EmptyState>
      ) : page ? (
        <>
          <ErrorNotice light>{other}</ErrorNotice>
          <ActivityTable nodes={page.nodes} agentId={agentId} onSelect={setSelected} />
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {cursors.length ? `Page ${cursors.length + 1}` : tailing ? 'Newest first, live' : 'Newest first'} · up to{' '}
              {PAGE} a page
            </Text>
            <Group gap="xs">
              <Button
                variant="default"
                size="xs"
                disabled={cursors.length === 0}
                onClick={() => setCursors(cursors.slice(0, -1))}
              >
                Newer
              </Button>
              <Button
                variant="default"
                size="xs"
                disabled={!page.hasNextPage || !page.endCursor}
                onClick={() => page.endCursor && setCursors([...cursors, page.endCursor])}
              >
                Older
              </Button>
            </Group>
          </Group>
        </>
      ) : null}

      <Drawer
        opened={selected !== null}
        onClose={() => setSelected(null)}
        position="right"
        size={mobile ? '100%' : 'xl'}
        title="Activity entry"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {selected ? <EntryDetail agentId={agentId} id={selected} /> : null}
      </Drawer>
    </Stack>
  );
}
