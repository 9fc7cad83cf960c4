import { TextInput, Textarea } from '@mantine/core';

/** An agent's name, description and instructions, as the creation form and the Overview tab edit them. */
export interface AgentTexts {
  name: string;
  description: string;
  instructions: string;
}

/**
 * The name, description and instructions fields of an agent; `rows` sizes the instructions
 * (they grow with their text), `autoFocus` puts the focus on the name when a dialog opens.
 */
export function AgentTextFields({
  value,
  set,
  errors,
  rows,
  autoFocus = false,
}: {
  value: AgentTexts;
  set: { [K in keyof AgentTexts]: (value: string) => void };
  errors: Record<string, string>;
  rows: { min: number; max: number };
  autoFocus?: boolean;
}) {
  return (
    <>
      <TextInput
        label="Name"
        required
        data-autofocus={autoFocus || undefined}
        value={value.name}
        onChange={(e) => set.name(e.currentTarget.value)}
        error={errors.name}
      />
      <TextInput
        label="Description"
        value={value.description}
        onChange={(e) => set.description(e.currentTarget.value)}
        error={errors.description}
      />
      <Textarea
        label="Instructions"
        description="The system prompt of the agent's runs"
        autosize
        minRows={rows.min}
        maxRows={rows.max}
        value={value.instructions}
        onChange={(e) => set.instructions(e.currentTarget.value)}
        error={errors.instructions}
      />
    </>
  );
}
