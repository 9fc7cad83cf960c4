import { Alert, Button, Group, Radio, Select, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import type { AgentQuery } from '../agent.js';

const UpdateAgentMutation = graphql(`
  mutation UpdateAgent($id: ID!, $input: UpdateAgentInput!) {
    updateAgent(id: $id, input: $input) { id name description instructions defaultModel visibility updatedAt }
  }
`);

type Data = ResultOf<typeof AgentQuery>;

/** The value of the model select that stands for "no default model of its own". */
const WORKSPACE_DEFAULT = '';

export function OverviewForm({ agent, models }: { agent: Data['agent']; models: Data['models'] }) {
  const [name, setName] = useState(agent.name);
  const [description, setDescription] = useState(agent.description);
  const [instructions, setInstructions] = useState(agent.instructions);
  const [defaultModel, setDefaultModel] = useState(agent.defaultModel ?? WORKSPACE_DEFAULT);
  const [visibility, setVisibility] = useState<Data['agent']['visibility']>(agent.visibility);
  const [saved, setSaved] = useState(false);
  const [{ fetching, error }, update] = useMutation(UpdateAgentMutation);
  const { fields, other } = fieldErrors(error);
  const workspaceDefault = models.find((m) => m.isDefault);
  const options = [
    { value: WORKSPACE_DEFAULT, label: workspaceDefault ? `Workspace default (${workspaceDefault.name})` : 'Workspace default' },
    ...models.map((m) => ({ value: m.name, label: `${m.name} — ${m.provider.toLowerCase()} ${m.model}` })),
    // A name the agent uses that is not a configured model (an environment provider takes it).
    ...(agent.defaultModel && !models.some((m) => m.name === agent.defaultModel) ? [{ value: agent.defaultModel, label: agent.defaultModel }] : []),
  ];
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const result = await update({
      id: agent.id,
      input: { name, description, instructions, defaultModel: defaultModel === WORKSPACE_DEFAULT ? null : defaultModel, visibility },
    });
    if (!result.error) setSaved(true);
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Overview">
      <Stack maw={760}>
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fields.name} />
        <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={fields.description} />
        <Textarea
          label="Instructions"
          description="The system prompt of the agent's runs"
          autosize
          minRows={6}
          maxRows={20}
          value={instructions}
          onChange={(e) => setInstructions(e.currentTarget.value)}
          error={fields.instructions}
        />
        <Select
          label="Default model"
          description="Prompt handlers without a model of their own use it"
          data={options}
          value={defaultModel}
          onChange={(v) => setDefaultModel(v ?? WORKSPACE_DEFAULT)}
          allowDeselect={false}
          error={fields.defaultModel}
        />
        <Radio.Group label="Visibility" value={visibility} onChange={(v) => setVisibility(v as Data['agent']['visibility'])} error={fields.visibility}>
          <Group mt="xs">
            <Radio value="WORKSPACE" label="Workspace — every member sees it" />
            <Radio value="PRIVATE" label="Private — its creator and admins" />
          </Group>
        </Radio.Group>
        {other ? (
          <Alert color="red" role="alert">
            {other}
          </Alert>
        ) : null}
        <Group>
          <Button type="submit" loading={fetching}>
            Save
          </Button>
          <Text size="sm" c="teal.9" role="status" aria-live="polite">
            {saved ? 'Saved' : ''}
          </Text>
        </Group>
      </Stack>
    </form>
  );
}
