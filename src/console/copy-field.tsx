import { Button, Code, CopyButton, Group, Stack, Tabs, Text } from '@mantine/core';

/** A value to paste elsewhere, shown as code, with a copy button named after it. */
export function CopyBlock({
  label,
  value,
  description,
  block = true,
}: {
  label: string;
  value: string;
  description?: string;
  block?: boolean;
}) {
  return (
    <Stack gap={4}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" fw={600}>
          {label}
        </Text>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button
              size="xs"
              variant={copied ? 'filled' : 'light'}
              color={copied ? 'teal.9' : undefined}
              onClick={copy}
              aria-label={`Copy ${label}`}
            >
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

export interface CopyTab {
  id: string;
  /** The tab's name, and the copy button's with `kind` after it. */
  title: string;
  description: string;
  value: string;
}

/** Values to paste, one tab each (a client's configuration or snippet), each a CopyBlock. */
export function CopyTabs({ label, kind, tabs }: { label: string; kind: string; tabs: CopyTab[] }) {
  return (
    <Tabs defaultValue={tabs[0]?.id} keepMounted={false}>
      <Tabs.List aria-label={label}>
        {tabs.map((t) => (
          <Tabs.Tab key={t.id} value={t.id}>
            {t.title}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {tabs.map((t) => (
        <Tabs.Panel key={t.id} value={t.id} pt="sm">
          <CopyBlock label={`${t.title} ${kind}`} description={t.description} value={t.value} />
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
