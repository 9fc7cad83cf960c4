import { ActionIcon, Button, Checkbox, Group, Input, Select, Stack, Text, TextInput } from '@mantine/core';

/** The type of a database document's field, as the schema names it. */
export type FieldType = 'STRING' | 'NUMBER' | 'BOOLEAN' | 'DATETIME' | 'JSON';

/** A field being edited; `key` keeps its row while its name changes. */
export interface FieldRow {
  key: number;
  name: string;
  type: FieldType;
  required: boolean;
}

const FIELD_TYPES: { value: FieldType; label: string }[] = [
  { value: 'STRING', label: 'String' },
  { value: 'NUMBER', label: 'Number' },
  { value: 'BOOLEAN', label: 'Boolean' },
  { value: 'DATETIME', label: 'Date-time' },
  { value: 'JSON', label: 'JSON' },
];

let nextKey = 1;
export const rowsOf = (fields: readonly { name: string; type: FieldType; required: boolean }[]): FieldRow[] =>
  fields.map((f) => ({ key: nextKey++, ...f }));

/** The field schema of a database document: a row per field (name, type, required). */
export function FieldsEditor({
  rows,
  onChange,
  error,
}: {
  rows: FieldRow[];
  onChange: (rows: FieldRow[]) => void;
  error?: string | undefined;
}) {
  const set = (key: number, patch: Partial<FieldRow>) =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <Input.Wrapper
      label="Fields"
      description="Each record is an object of these fields; `id` is the record's own"
      error={error}
    >
      <Stack gap="xs" mt={4}>
        {rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            No fields yet.
          </Text>
        ) : null}
        {rows.map((r, i) => (
          <Group key={r.key} gap="xs" align="flex-end" wrap="wrap">
            <TextInput
              label={`Field ${i + 1} name`}
              value={r.name}
              onChange={(e) => set(r.key, { name: e.currentTarget.value })}
              w={180}
            />
            <Select
              label={`Field ${i + 1} type`}
              data={FIELD_TYPES}
              value={r.type}
              onChange={(v) => set(r.key, { type: (v ?? 'STRING') as FieldType })}
              allowDeselect={false}
              w={140}
            />
            <Checkbox
              label="Required"
              checked={r.required}
              onChange={(e) => set(r.key, { required: e.currentTarget.checked })}
              mb={8}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              onClick={() => onChange(rows.filter((x) => x.key !== r.key))}
              aria-label={`Remove field ${i + 1}`}
              mb={4}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button
            size="xs"
            variant="light"
            onClick={() => onChange([...rows, { key: nextKey++, name: '', type: 'STRING', required: false }])}
          >
            Add field
          </Button>
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}
