import { Group, Radio, Select } from '@mantine/core';
import type { ReactNode } from 'react';

export type HandlerKind = 'PROMPT' | 'SCRIPT';

/**
 * How an entry answers — with the model (a prompt) or with JavaScript (a script): the same choice,
 * in the same words and order, on every surface that has handlers.
 */
export function HandlerPicker({ value, onChange }: { value: HandlerKind; onChange: (kind: HandlerKind) => void }) {
  return (
    <Radio.Group label="Handler" value={value} onChange={(v) => onChange(v === 'SCRIPT' ? 'SCRIPT' : 'PROMPT')}>
      <Group mt="xs" gap="lg">
        <Radio value="PROMPT" label="Prompt — the agent answers with its model" />
        <Radio value="SCRIPT" label="Script — JavaScript answers, without a model" />
      </Group>
    </Radio.Group>
  );
}

/** A model as the override list names it (provider and model when the query has them). */
export interface ModelChoice {
  name: string;
  provider?: string;
  model?: string;
  isDefault?: boolean;
}

/**
 * A prompt's model override, the same list on every surface: the agent's default first (the empty
 * value), then the workspace's models; a saved name the list no longer has stays shown.
 */
export function ModelOverrideSelect({
  models,
  value,
  onChange,
  error,
}: {
  models: readonly ModelChoice[];
  value: string;
  onChange: (name: string) => void;
  error?: ReactNode;
}) {
  const options = [
    { value: '', label: "The agent's default model" },
    ...models.map((m) => ({
      value: m.name,
      label: `${m.name}${m.provider ? ` — ${m.provider.toLowerCase()} ${m.model ?? ''}` : ''}${m.isDefault ? ' (workspace default)' : ''}`,
    })),
    ...(value && !models.some((m) => m.name === value) ? [{ value, label: value }] : []),
  ];
  return (
    <Select
      label="Model override"
      description="Runs this prompt on another model than the agent's default"
      data={options}
      value={value}
      onChange={(v) => onChange(v ?? '')}
      allowDeselect={false}
      error={error}
    />
  );
}
