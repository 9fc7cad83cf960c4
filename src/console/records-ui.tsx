import { Alert, Button, Group, Modal, Stack, Table, Text, type AlertProps } from '@mantine/core';
import type { ReactNode } from 'react';

// Small pieces the Document API, Webhooks and API Keys tabs share.

/** A date-time as the member's locale writes it; an empty value as a dash. */
export function when(iso: string | null | undefined, empty = '—'): string {
  if (!iso) return empty;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** The value of an `<input type="datetime-local">` as an ISO date-time (null when empty or not a date). */
export function isoOfLocal(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The text of a JSON value for a table cell or a code block. */
export function jsonText(value: unknown, indent?: number): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, indent);
}

/** A confirmation dialog: what will happen, a cancel and a (red) confirm button. */
export function ConfirmModal({
  opened,
  title,
  children,
  confirmLabel,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <Text size="sm">{children}</Text>
        {error ? (
          <Text size="sm" c="red.8" role="alert">
            {error}
          </Text>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" onClick={onConfirm} loading={busy ?? false}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/**
 * An alert whose title is in the text colour: Mantine's light alerts write it in the colour's
 * shade 6, below the 4.5:1 contrast WCAG AA asks for on their tinted background.
 */
export function Notice(props: AlertProps) {
  return <Alert variant="light" {...props} styles={{ title: { color: 'var(--mantine-color-black)' } }} />;
}

/**
 * A table that scrolls sideways on a narrow screen: its scrolling box takes the keyboard focus (so
 * that it can be scrolled without a mouse, even when the table holds nothing focusable).
 */
export function ScrollTable({ minWidth, label, children }: { minWidth: number; label: string; children: ReactNode }) {
  return (
    <Table.ScrollContainer type="native" minWidth={minWidth} tabIndex={0} role="region" aria-label={label}>
      {children}
    </Table.ScrollContainer>
  );
}
