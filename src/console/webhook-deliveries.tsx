import { Badge, Button, Group, Select, Stack, Switch, Table, Text } from '@mantine/core';
import { Fragment, useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messageOf } from './errors.js';
import { DeliveriesQuery, ReplayMutation, type Delivery, type Status } from './webhook-deliveries-query.js';
import { DeliveryDetail } from './webhook-delivery-detail.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';
import { when, jsonText } from './format.js';
import { ScrollTable } from './ui.js';
import { TableHead } from './table-parts.js';
import { PageButtons } from './page-buttons.js';

// The Webhooks tab's deliveries: newest first, filtered by integration and status, a page at a
// time; each with its status, attempts, next attempt and the output of its latest run; replay; a
// refresh while some are still pending or running.

const POLL_MS = 2000;
const IDLE_POLL_MS = 5000;
const RUN_ENTRY_GRACE_MS = 30_000;
const ALL = '';
const STATUS_COLOR: Record<Status, string> = { PENDING: 'grape.9', RUNNING: 'blue.9', DONE: 'teal.9', FAILED: 'red.9' };

/**
 * A delivery whose outcome is still to come: pending or running, or just finished with its run's
 * activity entry not written yet (the log is written in batches, a moment after the run).
 */
function awaitingOutcome(d: Delivery): boolean {
  if (d.status === 'PENDING' || d.status === 'RUNNING') return true;
  return (
    d.runId !== null &&
    d.run === null &&
    d.completedAt !== null &&
    Date.now() - new Date(d.completedAt).getTime() < RUN_ENTRY_GRACE_MS
  );
}

export function Deliveries({ agentId, integrations }: { agentId: string; integrations: string[] }) {
  const [integration, setIntegration] = useState(ALL);
  const [status, setStatus] = useState<Status | typeof ALL>(ALL);
  // The cursors of the pages before this one (Previous goes back one).
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  const [after, setAfter] = useState<string | null>(null);
  const [auto, setAuto] = useState(true);
  const [open, setOpen] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const context = useMemo(() => ({ additionalTypenames: ['WebhookDelivery'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({
    query: DeliveriesQuery,
    variables: { agentId, after, integration: integration || null, status: status || null },
    context,
  });
  const [replay, replayDelivery] = useMutation(ReplayMutation);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const nodes = data?.webhookDeliveries.nodes ?? [];
  const busy = nodes.some(awaitingOutcome);

  // While some delivery is pending or running, every 2 s (to show its outcome); otherwise every 5 s
  // on the first page (to show new deliveries). Later pages stay still unless something is pending.
  const onFirstPage = after === null;
  useEffect(() => {
    if (!auto || (!busy && !onFirstPage)) return;
    const t = setInterval(() => refetch({ requestPolicy: 'network-only' }), busy ? POLL_MS : IDLE_POLL_MS);
    return () => clearInterval(t);
  }, [auto, busy, onFirstPage, refetch]);

  const filter = (apply: () => void) => {
    apply();
    setCursors([]);
    setAfter(null);
  };

  const doReplay = async (d: Delivery) => {
    setNotice(null);
    const result = await replayDelivery({ id: d.id });
    if (result.data) {
      setNotice(`Replay of ${d.id} queued as ${result.data.replayWebhookDelivery.id}.`);
      // The replay is the newest delivery: show the first page.
      setCursors([]);
      setAfter(null);
      reload();
    }
  };

  return (
    <Stack>
      <Group align="flex-end" wrap="wrap">
        <Select
          label="Integration"
          data={[{ value: ALL, label: 'All integrations' }, ...integrations.map((i) => ({ value: i, label: i }))]}
          value={integration}
          onChange={(v) => filter(() => setIntegration(v ?? ALL))}
          allowDeselect={false}
          w={200}
        />
        <Select
          label="Status"
          data={[
            { value: ALL, label: 'Any status' },
            { value: 'PENDING', label: 'Pending' },
            { value: 'RUNNING', label: 'Running' },
            { value: 'DONE', label: 'Done' },
            { value: 'FAILED', label: 'Failed' },
          ]}
          value={status}
          onChange={(v) => filter(() => setStatus((v ?? ALL) as Status | typeof ALL))}
          allowDeselect={false}
          w={160}
        />
        <Button variant="default" onClick={reload} loading={fetching && Boolean(data)}>
          Refresh
        </Button>
        <Switch label="Auto-refresh" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} mb={8} />
      </Group>
      <Text size="sm" role="status" aria-live="polite" c={replay.error ? 'red.8' : 'teal.9'}>
        {replay.error ? messageOf(replay.error) : (notice ?? '')}
      </Text>
      {fetching && !data ? (
        <LoadingState label="Loading deliveries…" />
      ) : error && !data ? (
        <ErrorState error={error} retry={reload} />
      ) : nodes.length === 0 ? (
        <EmptyState title="No deliveries">
          {integration || status
            ? 'None matches these filters.'
            : 'When a sender posts to an integration URL, its deliveries are listed here.'}
        </EmptyState>
      ) : (
        <ScrollTable minWidth={820} label="Deliveries table">
          <Table aria-label="Deliveries">
            <TableHead columns={['Received', 'Integration', 'Status', 'Attempts', 'Next attempt', 'Output']} actions />
            <Table.Tbody>
              {nodes.map((d) => {
                const expanded = open === d.id;
                const detailId = `delivery-${d.id}`;
                return (
                  <Fragment key={d.id}>
                    <Table.Tr data-delivery={d.id}>
                      <Table.Td>
                        {when(d.createdAt, '—')}
                        {d.replayOf ? (
                          <Text size="xs" c="dimmed">
                            Replay of {d.replayOf}
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td>{d.integration}</Table.Td>
                      <Table.Td>
                        <Badge color={STATUS_COLOR[d.status]} variant="outline">
                          {d.status}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        {d.attempts}
                        {d.failures ? ` (${d.failures} failed)` : ''}
                      </Table.Td>
                      <Table.Td>{when(d.nextAttemptAt, '—')}</Table.Td>
                      <Table.Td maw={280}>
                        <Text
                          size="xs"
                          ff="monospace"
                          lineClamp={2}
                          c={d.run?.error || d.lastError ? 'red.8' : undefined}
                        >
                          {d.run ? (d.run.error ?? jsonText(d.run.output)) : (d.lastError ?? '—')}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Button
                            size="compact-xs"
                            variant="default"
                            onClick={() => setOpen(expanded ? null : d.id)}
                            aria-expanded={expanded}
                            aria-controls={detailId}
                            aria-label={`${expanded ? 'Hide details' : 'Details'} of ${d.id}`}
                          >
                            {expanded ? 'Hide' : 'Details'}
                          </Button>
                          <Button
                            size="compact-xs"
                            variant="light"
                            onClick={() => void doReplay(d)}
                            disabled={Boolean(d.bodyDroppedAt) || replay.fetching}
                            aria-label={`Replay ${d.id}`}
                            title={d.bodyDroppedAt ? 'Its body was dropped after the replay window' : undefined}
                          >
                            Replay
                          </Button>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                    <Table.Tr id={detailId} hidden={!expanded}>
                      <Table.Td colSpan={7} p={0}>
                        {expanded ? <DeliveryDetail d={d} /> : null}
                      </Table.Td>
                    </Table.Tr>
                  </Fragment>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <PageButtons
        pages={{ cursors, setCursors, after, setAfter }}
        page={data?.webhookDeliveries}
        previous="Previous"
        next="Next"
      />
    </Stack>
  );
}
