import { Button, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import { when } from './format.js';

/** A column heading: its text, or its text and `right` for a column of numbers. */
export type Column = string | { label: string; align: 'right' };

/**
 * A table's row of column headings (`scope="col"`); `actions` adds a last column for the row's
 * buttons, named "Actions" for screen readers only.
 */
export function TableHead({ columns, actions = false }: { columns: readonly Column[]; actions?: boolean }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((c) =>
          typeof c === 'string' ? (
            <Table.Th key={c} scope="col">
              {c}
            </Table.Th>
          ) : (
            <Table.Th key={c.label} scope="col" style={{ textAlign: c.align }}>
              {c.label}
            </Table.Th>
          ),
        )}
        {actions ? (
          // Positioned, so that the hidden text (absolutely placed) stays inside the table's scroll
          // container instead of widening the page on a phone.
          <Table.Th scope="col" style={{ position: 'relative' }}>
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        ) : null}
      </Table.Tr>
    </Table.Thead>
  );
}

/** A row's Edit and Remove buttons, named after what the row shows (`Edit /orders`, `Remove /orders`). */
export function EditRemoveButtons({
  name,
  onEdit,
  onRemove,
}: {
  name: string;
  onEdit: () => void;
  onRemove: () => void;
}) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="xs" variant="light" onClick={onEdit} aria-label={`Edit ${name}`}>
        Edit
      </Button>
      <Button size="xs" variant="outline" color="red.9" onClick={onRemove} aria-label={`Remove ${name}`}>
        Remove
      </Button>
    </Group>
  );
}

/** The visible part of a key or token: its prefix and last four characters. */
export function KeyMask({ prefix, last4 }: { prefix: string; last4: string }) {
  return (
    <Text ff="monospace" size="sm">
      {prefix}…{last4}
    </Text>
  );
}

/** A key's Revoke button (`label` names the key for screen readers). */
export function RevokeButton({ label, onRevoke }: { label: string; onRevoke: () => void }) {
  return (
    <Button size="xs" color="red" variant="light" onClick={onRevoke} aria-label={label}>
      Revoke
    </Button>
  );
}

/** A key's last cell: when it was revoked, or its Revoke button. */
export function RevokeCell({
  revokedAt,
  label,
  onRevoke,
}: {
  revokedAt: string | null;
  label: string;
  onRevoke: () => void;
}) {
  return (
    <Table.Td>
      {revokedAt ? (
        <Text size="sm" c="dimmed">
          Revoked {when(revokedAt)}
        </Text>
      ) : (
        <RevokeButton label={label} onRevoke={onRevoke} />
      )}
    </Table.Td>
  );
}
