import { Alert, Code, SimpleGrid, Stack, Text } from '@mantine/core';
import { when, jsonText } from './format.js';
import type { Delivery } from './webhook-deliveries-query.js';

/** One delivery unfolded: its ids, request, latest run's output or error, headers and body. */
export function DeliveryDetail({ d }: { d: Delivery }) {
  return (
    <Stack gap="xs" p="sm" aria-label={`Delivery ${d.id}`} role="region">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        <Text size="sm">Id: {d.id}</Text>
        <Text size="sm">Sender&apos;s id: {d.senderDeliveryId ?? '—'}</Text>
        <Text size="sm">
          {d.method}, {d.bodyBytes} bytes
        </Text>
        <Text size="sm">Completed: {when(d.completedAt, '—')}</Text>
        {d.run ? (
          <Text size="sm">
            Run {d.run.runId}: {d.run.credits} credits{d.run.durationMs !== null ? `, ${d.run.durationMs} ms` : ''}
          </Text>
        ) : null}
      </SimpleGrid>
      {d.lastError ? (
        <Alert color="red" variant="light" title="Last error">
          {d.lastError}
        </Alert>
      ) : null}
      <Text size="sm" fw={600}>
        Run output
      </Text>
      <Code block data-testid="run-output">
        {d.run
          ? d.run.error
            ? `Error: ${d.run.error}`
            : jsonText(d.run.output, 2)
          : 'No run yet (or activity logging is off).'}
      </Code>
      <Text size="sm" fw={600}>
        Headers
      </Text>
      <Code block>{jsonText(d.headers, 2)}</Code>
      <Text size="sm" fw={600}>
        Body
      </Text>
      <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {d.bodyDroppedAt ? `Dropped on ${when(d.bodyDroppedAt, '—')}` : d.body || '(empty)'}
      </Code>
    </Stack>
  );
}
