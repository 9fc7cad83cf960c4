import { Anchor, Table, Text } from '@mantine/core';
import { formatCredits, utcTime } from '../../activity-view.js';
import { TableHead } from '../../table-parts.js';
import { StatusBadge, SURFACE_LABELS } from './activity-entry.js';
import type { ActivityNode } from './activity-query.js';

/** A page of the activity log as a table; a row's time opens the entry (`onSelect`). */
export function ActivityTable({
  nodes,
  agentId,
  onSelect,
}: {
  nodes: ActivityNode[];
  agentId: string;
  onSelect: (id: string) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped highlightOnHover aria-label="Activity log">
        <TableHead
          columns={[
            'Time (UTC)',
            'Surface',
            'Entry',
            'Request',
            'Status',
            { label: 'Credits', align: 'right' },
            { label: 'Duration', align: 'right' },
          ]}
        />
        <Table.Tbody>
          {nodes.map((n) => (
            <Table.Tr
              key={n.id}
              data-entry-id={n.id}
              data-protocol={n.protocol || undefined}
              // Protocol traffic is dimmed: on record, but not a call of the agent.
              style={n.protocol ? { color: 'var(--mantine-color-dimmed)' } : undefined}
            >
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Anchor
                  component="button"
                  type="button"
                  onClick={() => onSelect(n.id)}
                  size="sm"
                  aria-label={`${utcTime(n.createdAt)}: details`}
                >
                  {utcTime(n.createdAt)}
                </Anchor>
              </Table.Td>
              <Table.Td>{SURFACE_LABELS[n.surface]}</Table.Td>
              <Table.Td>{n.entry ?? '—'}</Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace" truncate="end" maw={340} title={n.path ?? undefined}>
                  {n.method ? `${n.method} ${shortPath(n.path, agentId)}` : n.kind === 'RUN' ? 'run' : '—'}
                </Text>
              </Table.Td>
              <Table.Td style={{ minWidth: 110 }}>
                <StatusBadge
                  status={n.status}
                  error={n.error}
                  protocol={n.protocol}
                  delivery={n.deliveryId && n.kind === 'REQUEST' ? { run: n.deliveryRun ?? null } : undefined}
                />
              </Table.Td>
              <Table.Td style={{ textAlign: 'right' }}>{formatCredits(n.credits)}</Table.Td>
              <Table.Td style={{ textAlign: 'right' }}>{n.durationMs === null ? '—' : `${n.durationMs} ms`}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A request's path on this agent's page, without the `/agents/<id>` every one of them starts with. */
function shortPath(path: string | null, agentId: string): string {
  if (!path) return '';
  const prefix = `/agents/${agentId}`;
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}
