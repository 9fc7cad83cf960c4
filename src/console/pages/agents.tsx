import { Anchor, Badge, Button, Group, Modal, Stack, Table, Text, Title, Alert } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../errors.js';
import { graphql, type ResultOf } from '../graphql.js';
import { hrefOf, linkClick, navigate } from '../router.js';
import { EmptyState, ErrorState, LoadingState } from '../states.js';
import { AgentTextFields } from '../agent-fields.js';
import { useCanWrite } from '../viewer.js';
import { FirstStartNotice } from './first-start-notice.js';

export const AgentsQuery = graphql(`
  query Agents {
    agents {
      id
      name
      slug
      description
      visibility
      surfaces {
        surface
        enabled
      }
      usage(days: 1) {
        day
        credits
      }
    }
  }
`);

const CreateAgentMutation = graphql(`
  mutation CreateAgent($input: CreateAgentInput!) {
    createAgent(input: $input) {
      id
      name
    }
  }
`);

type AgentRow = ResultOf<typeof AgentsQuery>['agents'][number];

/** A surface's name as the agents list writes it: short, so that a row stays one line. */
const SURFACE_NAMES: Record<AgentRow['surfaces'][number]['surface'], string> = {
  HTTP_API: 'HTTP',
  DOCUMENT_API: 'Docs',
  MCP: 'MCP',
  WIDGET: 'Widget',
  WEBHOOKS: 'Webhooks',
  OPENAI: 'OpenAI',
  A2A: 'A2A',
  EMAIL: 'Email',
  SMS: 'SMS',
  SCHEDULE: 'Schedules',
};

/** Credits of the current UTC day (usage lists days with use only). */
function creditsToday(agent: AgentRow): number {
  const today = new Date().toISOString().slice(0, 10);
  return agent.usage.find((u) => u.day === today)?.credits ?? 0;
}

/** How many surfaces are on ("5 of 10 on"), then the ones that are, by their short names. */
function Surfaces({ agent }: { agent: AgentRow }) {
  const on = agent.surfaces.filter((s) => s.enabled);
  return (
    <Group gap={4} wrap="wrap" data-testid="agent-surfaces">
      <Text size="sm" style={{ whiteSpace: 'nowrap' }} mr={4}>
        {on.length} of {agent.surfaces.length} on
      </Text>
      {on.map((s) => (
        <Badge key={s.surface} variant="outline" color="teal.9" size="sm">
          {SURFACE_NAMES[s.surface]}
        </Badge>
      ))}
    </Group>
  );
}

/** The agents the member can see, with their surfaces, visibility and today's credits; and a form to create one. */
export function AgentsPage() {
  // An empty list names no Agent type: without this a created agent would not refresh it.
  const context = useMemo(() => ({ additionalTypenames: ['Agent'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: AgentsQuery, context });
  const [creating, setCreating] = useState(false);
  const canWrite = useCanWrite();
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Agents</Title>
        {canWrite ? <Button onClick={() => setCreating(true)}>Create agent</Button> : null}
      </Group>
      <FirstStartNotice />
      {fetching && !data ? (
        <LoadingState label="Loading agents…" />
      ) : error && !data ? (
        <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !data || data.agents.length === 0 ? (
        <EmptyState title="No agents yet">
          Create an agent to give it instructions and switch on the surfaces it answers on.
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover aria-label="Agents">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Visibility</Table.Th>
                <Table.Th scope="col">Surfaces</Table.Th>
                <Table.Th scope="col" style={{ textAlign: 'right' }}>
                  Credits today (UTC)
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.agents.map((agent) => {
                const route = { page: 'agent', id: agent.id, tab: 'overview' } as const;
                return (
                  <Table.Tr key={agent.id}>
                    <Table.Td miw={160}>
                      <Anchor href={hrefOf(route)} onClick={linkClick(route)} fw={600}>
                        {agent.name}
                      </Anchor>{' '}
                      <Text span size="xs" c="dimmed" ff="monospace" title="Slug: how the CLI and manifests name it">
                        {agent.slug}
                      </Text>
                      {agent.description ? (
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {agent.description}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td>{agent.visibility === 'WORKSPACE' ? 'Workspace' : 'Private'}</Table.Td>
                    <Table.Td>
                      <Surfaces agent={agent} />
                    </Table.Td>
                    <Table.Td style={{ textAlign: 'right' }}>
                      {creditsToday(agent).toLocaleString('en', { maximumFractionDigits: 3 })}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={creating}
        onClose={() => setCreating(false)}
        title="Create agent"
        size="lg"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <CreateAgentForm
          onCancel={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            // A new agent opens on its Overview, where the getting-started checklist leads on.
            navigate({ page: 'agent', id, tab: 'overview' });
          }}
        />
      </Modal>
    </Stack>
  );
}

function CreateAgentForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [instructions, setInstructions] = useState('');
  const [{ fetching, error }, create] = useMutation(CreateAgentMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ input: { name, description, instructions } });
    if (result.data) onCreated(result.data.createAgent.id);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <AgentTextFields
          value={{ name, description, instructions }}
          set={{ name: setName, description: setDescription, instructions: setInstructions }}
          errors={fields}
          rows={{ min: 4, max: 14 }}
          autoFocus
        />
        {other ? (
          <Alert color="red" role="alert">
            {other}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={fetching}>
            Create agent
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
