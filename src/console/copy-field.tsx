import { Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

/** A value to paste elsewhere, shown as code, with a copy button named after it. */
export function CopyBlock({ label, value, description, block = true }: { label: string; value: string; description?: string; block?: boolean }) {
  return (
    <Stack gap={4}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" fw={600}>
          {label}
        </Text>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="xs" variant={copied ? 'filled' : 'light'} color={copied ? 'teal.9' : undefined} onClick={copy} aria-label={`Copy ${label}`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      {description ? (
        <Text size="xs" c="dimmed">
          {description}
        </Text>
      ) : null}
      <Code block={block} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {value}
      </Code>
    </Stack>
  );
}
