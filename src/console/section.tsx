import { Paper, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled section of a tab: a bordered panel named by its heading (`id` is the heading's). */
export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={id}>
      <Stack gap="sm">
        <Title order={3} size="h4" id={id}>
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}
