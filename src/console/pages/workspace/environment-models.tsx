import { Badge, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { EnvironmentModelRow } from './models-query.js';
import { environmentLine } from './model-words.js';

/**
 * The model providers the service was started with, one read-only row each: where runs go when
 * no workspace model is named. Changed by restarting with other variables, not here.
 */
export function EnvironmentModels({ models, hasDefault }: { models: EnvironmentModelRow[]; hasDefault: boolean }) {
  if (models.length === 0) return null;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="environment-models-title">
      <Stack gap="xs">
        <Title order={3} size="h4" id="environment-models-title">
          From the environment
        </Title>
        <Text size="sm" c="dimmed">
          Set when the service starts (read-only here). A model name that no workspace model has goes to this provider.
        </Text>
        {models.map((m) => (
          <Group key={m.source} gap="xs" wrap="wrap" data-testid="environment-model">
            <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
              {environmentLine(m)}
            </Text>
            {m.isFallback && !hasDefault ? (
              <Badge size="sm" color="teal.9">
                Default
              </Badge>
            ) : null}
            <Badge size="sm" variant="outline" color="gray.7">
              {m.hasKey ? 'Key set' : 'No key'}
            </Badge>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
