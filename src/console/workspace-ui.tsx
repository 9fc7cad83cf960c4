import { Alert, Button, Code, CopyButton, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import type { CombinedError } from '@urql/core';
import { useState, type ReactNode } from 'react';
import { messageOf } from './errors.js';

// Pieces the workspace sections share: a secret shown once with its copy button, a confirmation
// dialog, the notice a member sees instead of an admin-only list, and dates as people read them.

/** True when the service refused the operation to this member (`FORBIDDEN`: admins only). */
export function isForbidden(error: CombinedError | undefined): boolean {
  return !!error?.graphQLErrors.some((e) => e.extensions?.code === 'FORBIDDEN');
}

/**
 * A notice in the page's own colours (bordered, a bold title): Mantine's tinted alerts fall below
 * the 4.5:1 contrast of WCAG AA for their titles in most colours.
 */
export function Notice({ title, children, role = 'note', testId }: { title: string; children: ReactNode; role?: 'note' | 'status'; testId?: string }) {
  return (
    <Paper withBorder p="md" role={role} data-testid={testId} style={{ borderLeft: '4px solid var(--mantine-color-indigo-8)' }}>
      <Text fw={700} size="sm" mb={4}>
        {title}
      </Text>
      {children}
    </Paper>
  );
}

/** What a member sees where a list or an action is for admins only (instead of an error). */
export function AdminOnlyNotice({ children }: { children: ReactNode }) {
  return (
    <Notice title="Admins only">
      <Text size="sm">{children}</Text>
    </Notice>
  );
}

/** A plaintext credential the service returns once: shown with a copy button and a warning. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <Notice title={`${label} — shown only now`} role="status" testId="shown-once">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">Copy it now and keep it somewhere safe: the service stores only its hash and cannot show it again.</Text>
        <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap', maxWidth: '100%' }} aria-label={label}>
          {value}
        </Code>
        <Group gap="xs">
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="xs" color={copied ? 'teal.9' : undefined} onClick={copy} aria-label={copied ? 'Copied' : `Copy the ${label.toLowerCase()}`}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
          <Button size="xs" variant="default" onClick={onDone}>
            Done
          </Button>
        </Group>
      </Stack>
    </Notice>
  );
}

/**
 * A confirmation dialog for something that cannot be undone; `onConfirm` resolves to the error
 * to show in the dialog, or to nothing when it worked (the dialog then closes).
 */
export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<CombinedError | undefined>;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<CombinedError | undefined>();
  const close = () => {
    setError(undefined);
    onClose();
  };
  const confirm = async () => {
    setBusy(true);
    const failed = await onConfirm();
    setBusy(false);
    if (failed) setError(failed);
    else close();
  };
  return (
    <Modal opened={opened} onClose={close} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <Text size="sm">{children}</Text>
        {error ? (
          <Alert color="red" role="alert">
            {messageOf(error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={close} data-autofocus>
            Cancel
          </Button>
          <Button color="red" onClick={confirm} loading={busy}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** A date-time as a short local text (`—` for none). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
}

/** Credits as people read them (up to three decimals). */
export function credits(n: number): string {
  return n.toLocaleString('en', { maximumFractionDigits: 3 });
}

/** An optional number input's value for GraphQL: an empty field is null. */
export function numberOrNull(v: string | number): number | null {
  if (v === '' || v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}
