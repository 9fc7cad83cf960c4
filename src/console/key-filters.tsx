import { Badge, Checkbox, Group, Text } from '@mantine/core';
import { ORIGIN_LABELS, type KeyFilter, type KeyOrigin } from './key-filter.js';

/**
 * The key list's two switches: keys Try it and the CLI made, and revoked keys — each with how many
 * it would add. `tools` words the first for the list (workspace keys are never Try it's).
 */
export function KeyFilters({
  filter,
  onChange,
  hiddenTools,
  hiddenRevoked,
  tools = 'Show keys made by Try it and the CLI',
}: {
  filter: KeyFilter;
  onChange: (next: KeyFilter) => void;
  hiddenTools: number;
  hiddenRevoked: number;
  tools?: string;
}) {
  return (
    <Group gap="lg" role="group" aria-label="Which keys to show">
      <Checkbox
        label={`${tools}${filter.tools ? '' : ` (${hiddenTools})`}`}
        checked={filter.tools}
        onChange={(e) => onChange({ ...filter, tools: e.currentTarget.checked })}
      />
      <Checkbox
        label={`Show revoked${filter.revoked ? '' : ` (${hiddenRevoked})`}`}
        checked={filter.revoked}
        onChange={(e) => onChange({ ...filter, revoked: e.currentTarget.checked })}
      />
    </Group>
  );
}

/** A key's name, with who made it when that was not a person. */
export function KeyName({ name, origin }: { name: string; origin: KeyOrigin }) {
  const label = ORIGIN_LABELS[origin];
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm">{name}</Text>
      {label ? (
        <Badge size="sm" variant="outline" color="gray.8" title={`Made by ${label}`}>
          {label}
        </Badge>
      ) : null}
    </Group>
  );
}
