import { Button, Group, List, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { messageOf } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { navigate } from '../../router.js';
import { ErrorNotice, FormModal } from '../../ui.js';
import type { AgentQuery } from './agent-query.js';

// The Overview's danger zone: deleting the agent, confirmed by typing its name, after saying what
// goes with it (the database removes all of it with the agent, in one statement).

const DeleteAgentMutation = graphql(`
  mutation DeleteAgent($id: ID!) {
    deleteAgent(id: $id)
  }
`);

/** What is deleted with an agent, as the delete dialog lists it. */
export const GOES_WITH_IT = [
  'its API keys (calls with them are refused at once) and its MCP sign-in grants',
  'its HTTP endpoints, MCP tools, webhooks with their deliveries, and its email and SMS channels',
  'its documents with their records',
  'its activity log, conversations and messages',
];

/** What stays after the agent is gone, said under the list. */
export const STAYS = "The credits it spent today still count toward its team's and the workspace's daily limits.";

type Agent = ResultOf<typeof AgentQuery>['agent'];

/** The danger zone: a bordered panel with the delete button and its typed confirmation. */
export function DangerZone({ agent }: { agent: Agent }) {
  const [open, setOpen] = useState(false);
  return (
    <Paper
      withBorder
      p="md"
      component="section"
      aria-labelledby="danger-zone-title"
      style={{ borderColor: 'var(--mantine-color-red-9)' }}
    >
      <Stack gap="sm" align="flex-start">
        <Title order={3} size="h4" id="danger-zone-title">
          Danger zone
        </Title>
        <Text size="sm">Deleting the agent removes it and everything that belongs to it. This cannot be undone.</Text>
        <Button color="red.9" variant="outline" onClick={() => setOpen(true)}>
          Delete agent
        </Button>
      </Stack>
      <FormModal opened={open} onClose={() => setOpen(false)} title={`Delete ${agent.name}`}>
        <DeleteForm agent={agent} onCancel={() => setOpen(false)} />
      </FormModal>
    </Paper>
  );
}

function DeleteForm({ agent, onCancel }: { agent: Agent; onCancel: () => void }) {
  const [typed, setTyped] = useState('');
  const [{ fetching, error }, remove] = useMutation(DeleteAgentMutation);
  const matches = typed === agent.name;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!matches) return;
    // The agents list is asked again (it names the Agent type), without the deleted one.
    const result = await remove({ id: agent.id }, { additionalTypenames: ['Agent'] });
    if (!result.error && result.data?.deleteAgent) navigate({ page: 'agents' }, true);
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Delete agent">
      <Stack>
        <Text size="sm">With the agent go:</Text>
        <List size="sm" spacing={4}>
          {GOES_WITH_IT.map((g) => (
            <List.Item key={g}>{g}</List.Item>
          ))}
        </List>
        <Text size="sm">{STAYS}</Text>
        <Text size="sm">Applications that call it get 404 from then on. This cannot be undone.</Text>
        <TextInput
          label={`Type the agent's name, ${agent.name}, to confirm`}
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
          data-autofocus
        />
        <ErrorNotice light>{error ? messageOf(error) : null}</ErrorNotice>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" color="red.9" disabled={!matches} loading={fetching}>
            Delete this agent
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
