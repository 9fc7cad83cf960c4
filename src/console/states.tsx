import { Alert, Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import type { CombinedError } from '@urql/core';
import type { ReactNode } from 'react';
import { messageOf } from './errors.js';

/** A page's loading state, announced to screen readers. */
export function LoadingState({ label }: { label: string }) {
  return (
    <Center py="xl" role="status">
      <Group gap="sm">
        <Loader size="sm" aria-hidden />
        <Text c="dimmed">{label}</Text>
      </Group>
    </Center>
  );
}

/** A failed query with its message and a way to try again. */
export function ErrorState({ error, retry }: { error: CombinedError | undefined; retry: () => void }) {
  return (
    <Alert color="red" title="Something went wrong" role="alert" m="md">
      <Stack gap="sm" align="flex-start">
        <Text size="sm">{error ? messageOf(error) : 'No answer from the service.'}</Text>
        <Button variant="light" color="red" size="xs" onClick={retry}>
          Try again
        </Button>
      </Stack>
    </Alert>
  );
}

/** Nothing to show yet, what to do about it, and the button that does it (`action`). */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <Stack align="center" py="xl" gap="xs">
      <Text fw={600}>{title}</Text>
      {children ? (
        <Text c="dimmed" size="sm" ta="center">
          {children}
        </Text>
      ) : null}
      {action ? <Group mt="xs">{action}</Group> : null}
    </Stack>
  );
}

/** What a page shows while its query has no data: loading, the failure with a retry, or nothing. */
export function NoData({
  result,
  loading,
  retry,
}: {
  result: { fetching: boolean; error?: CombinedError | undefined };
  loading: string;
  retry: () => void;
}) {
  if (result.fetching) return <LoadingState label={loading} />;
  return result.error ? <ErrorState error={result.error} retry={retry} /> : null;
}
