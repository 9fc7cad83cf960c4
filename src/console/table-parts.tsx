import { Button, Group, Table, VisuallyHidden } from '@mantine/core';
import type { CSSProperties, ReactNode } from 'react';

/** A column heading: its text, or the text and how its cells align. */
export type Column = string | { label: ReactNode; key: string; style?: CSSProperties };

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
            <Table.Th key={c.key} scope="col" style={c.style}>
              {c.label}
            </Table.Th>
          ),
        )}
        {actions ? (
          <Table.Th scope="col">
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        ) : null}
      </Table.Tr>
    </Table.Thead>
  );
}

/** A row's Edit and Remove buttons, named after what the row shows (`Edit /orders`, `Remove /orders`). */
export function EditRemoveButtons({ name, onEdit, onRemove }: { name: string; onEdit: () => void; onRemove: () => void }) {
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
