import {
  Alert,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  type AlertProps,
  type ModalProps,
} from '@mantine/core';
import type { CombinedError } from '@urql/core';
import { useState, type ReactNode } from 'react';
import { messageOf } from './errors.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';

// The pieces the console's sections share: notices, the red error alert, a confirmation dialog, a
// credential shown once, a form's last lines, a dialog for a form, a list's loading, failed and
// empty states, and a table that scrolls sideways.

/** True when the service refused the operation to this member (`FORBIDDEN`: admins only). */
export function isForbidden(error: CombinedError | undefined): boolean {
  return !!error?.graphQLErrors.some((e) => e.extensions?.code === 'FORBIDDEN');
}

/**
 * A notice in the page's own colours (bordered, a bold title): Mantine's tinted alerts fall below
 * the 4.5:1 contrast of WCAG AA for their titles in most colours.
 */
export function Notice({
  title,
  children,
  role = 'note',
  testId,
}: {
  title: string;
  children: ReactNode;
  role?: 'note' | 'status';
  testId?: string;
}) {
  return (
    <Paper
      withBorder
      p="md"
      role={role}
      data-testid={testId}
      style={{ borderLeft: '4px solid var(--mantine-color-indigo-8)' }}
    >
      <Text fw={700} size="sm" mb={4}>
        {title}
      </Text>
      {children}
    </Paper>
  );
}

/**
 * A tinted alert whose title is in the text colour: Mantine's light alerts write it in the colour's
 * shade 6, below the 4.5:1 contrast WCAG AA asks for on their tinted background.
 */
export function Callout(props: AlertProps) {
  return <Alert variant="light" {...props} styles={{ title: { color: 'var(--mantine-color-black)' } }} />;
}

/** What a member sees where a list or an action is for admins only (instead of an error). */
export function AdminOnlyNotice({ children }: { children: ReactNode }) {
  return (
    <Notice title="Admins only">
      <Text size="sm">{children}</Text>
    </Notice>
  );
}

/**
 * An error to read (`role="alert"`), nothing when there is none: red 9 outlined (5.6:1), or
 * `light` — Mantine's tinted red alert with the text in the text colour.
 */
export function ErrorNotice({
  children,
  light = false,
  title,
}: {
  children: ReactNode;
  light?: boolean;
  title?: string;
}) {
  if (children === null || children === undefined || children === '' || children === false) return null;
  return light ? (
    <Alert color="red" role="alert" title={title}>
      {children}
    </Alert>
  ) : (
    <Alert variant="outline" color="red.9" role="alert" title={title}>
      {children}
    </Alert>
  );
}

/** A plaintext credential the service returns once: shown with a copy button and a warning. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <Notice title={`${label} — shown only now`} role="status" testId="shown-once">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">
          Copy it now and keep it somewhere safe: the service stores only its hash and cannot show it again.
        </Text>
        <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap', maxWidth: '100%' }} aria-label={label}>
          {value}
        </Code>
        <Group gap="xs">
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button
                size="xs"
                color={copied ? 'teal.9' : undefined}
                onClick={copy}
                aria-label={copied ? 'Copied' : `Copy the ${label.toLowerCase()}`}
              >
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

/** A dialog with a form or a message: Mantine's modal with its close button named. */
export function FormModal(props: Omit<ModalProps, 'closeButtonProps'>) {
  return <Modal {...props} closeButtonProps={{ 'aria-label': 'Close' }} />;
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
  confirmColor = 'red',
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  confirmColor?: 'red' | 'red.8';
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
    <FormModal opened={opened} onClose={close} title={title}>
      <Stack>
        <Text size="sm">{children}</Text>
        <ErrorNotice>{error ? messageOf(error) : null}</ErrorNotice>
        <Group justify="flex-end">
          <Button variant="default" onClick={close} data-autofocus>
            Cancel
          </Button>
          <Button color={confirmColor} onClick={confirm} loading={busy}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </FormModal>
  );
}

/** "Saved" after a form on the page was saved, announced politely (teal 9: 4.5:1 and more). */
export function SavedStatus({ saved, mt }: { saved: boolean; mt?: number }) {
  return (
    <Text size="sm" c="teal.9" role="status" aria-live="polite" mt={mt}>
      {saved ? 'Saved' : ''}
    </Text>
  );
}

/**
 * A form's last lines: the errors no field shows, then its buttons. In a dialog, Cancel and the
 * submit button at the right; with `saved` (a form on the page), the submit button first, then
 * Cancel (when there is `onCancel`), `children` (more buttons) and the "Saved" status.
 */
export function FormActions({
  error,
  submit,
  loading,
  onCancel,
  cancel = 'Cancel',
  saved,
  light = false,
  children,
}: {
  error?: string | null;
  submit: string;
  loading: boolean;
  onCancel?: () => void;
  cancel?: string;
  saved?: boolean;
  light?: boolean;
  children?: ReactNode;
}) {
  const cancelButton = onCancel ? (
    <Button variant="default" onClick={onCancel}>
      {cancel}
    </Button>
  ) : null;
  const submitButton = (
    <Button type="submit" loading={loading}>
      {submit}
    </Button>
  );
  return (
    <>
      <ErrorNotice light={light}>{error}</ErrorNotice>
      {saved === undefined ? (
        <Group justify="flex-end">
          {cancelButton}
          {submitButton}
        </Group>
      ) : (
        <Group>
          {submitButton}
          {cancelButton}
          {children}
          <SavedStatus saved={saved} />
        </Group>
      )}
    </>
  );
}

/**
 * A list's states: loading, failed (a member refused as not an admin sees `forbidden` as the
 * admins-only notice instead), empty, or the list itself.
 */
export function ListStates<D>({
  result: { data, error, fetching },
  retry,
  loading,
  forbidden,
  isEmpty,
  empty,
  children,
}: {
  result: { data?: D; error?: CombinedError; fetching: boolean };
  retry: () => void;
  loading: string;
  forbidden: ReactNode;
  isEmpty: (data: D) => boolean;
  empty: { title: string; text: ReactNode };
  children: (data: D) => ReactNode;
}) {
  if (fetching && !data) return <LoadingState label={loading} />;
  if (error && !data)
    return isForbidden(error) ? (
      <AdminOnlyNotice>{forbidden}</AdminOnlyNotice>
    ) : (
      <ErrorState error={error} retry={retry} />
    );
  if (!data || isEmpty(data)) return <EmptyState title={empty.title}>{empty.text}</EmptyState>;
  return <>{children(data)}</>;
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
