import { Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors, messageOf } from '../errors.js';
import { credits } from '../format.js';
import { graphql, type ResultOf } from '../graphql.js';
import { NoData } from '../states.js';
import { ErrorNotice, FormActions, FormModal } from '../ui.js';
import { useViewer } from '../viewer.js';
import { reloadConsole } from '../workspace-switcher.js';

const DeploymentQuery = graphql(`
  query DeploymentWorkspaces {
    workspaces {
      id
      name
      slug
      members
      agents
      creditsToday
    }
  }
`);

const CreateWorkspaceMutation = graphql(`
  mutation CreateWorkspace($input: CreateWorkspaceInput!) {
    createWorkspace(input: $input) {
      id
      name
      slug
    }
  }
`);

const SwitchToNewMutation = graphql(`
  mutation SwitchToNewWorkspace($workspace: String!) {
    switchWorkspace(workspace: $workspace) {
      id
    }
  }
`);

type Created = ResultOf<typeof CreateWorkspaceMutation>['createWorkspace'];

// The list holds DeploymentWorkspace rows; a created workspace is a Workspace: refetched by name.
const WORKSPACES = { additionalTypenames: ['DeploymentWorkspace', 'Workspace'] };

function CreateWorkspaceForm({ onCreated, onCancel }: { onCreated: (w: Created) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [{ fetching, error }, create] = useMutation(CreateWorkspaceMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create(
      { input: { name: name.trim(), slug: slug.trim() || null } },
      { additionalTypenames: ['DeploymentWorkspace'] },
    );
    if (result.data) onCreated(result.data.createWorkspace);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          maxLength={200}
          data-autofocus
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
          required
        />
        <TextInput
          label="Slug"
          description="Lowercase letters, digits and dashes: its address under TENANT_BASE_URL. Empty: made from the name"
          maxLength={63}
          value={slug}
          onChange={(e) => setSlug(e.currentTarget.value)}
          error={fields.slug}
        />
        <FormActions error={other} submit="Create workspace" loading={fetching} onCancel={onCancel} />
      </Stack>
    </form>
  );
}

/** After creating: the operator is its admin, and may go there now. */
function CreatedNotice({ created }: { created: Created }) {
  // A member token's session stays in the token's workspace: the server would refuse the switch.
  const { memberToken } = useViewer();
  const [{ fetching, error }, switchTo] = useMutation(SwitchToNewMutation);
  const go = async () => {
    const result = await switchTo({ workspace: created.id });
    if (!result.error) reloadConsole();
  };
  return (
    <Paper withBorder p="md" role="status">
      <Stack gap="xs">
        <Text size="sm">
          Created <b>{created.name}</b> ({created.slug}). You are its admin.
        </Text>
        {memberToken ? (
          <Text size="sm">Sign in with your email and password to switch to it.</Text>
        ) : (
          <Group>
            <Button size="xs" onClick={() => void go()} loading={fetching}>
              Switch to {created.name}
            </Button>
          </Group>
        )}
        <ErrorNotice light>{error ? messageOf(error) : null}</ErrorNotice>
      </Stack>
    </Paper>
  );
}

/** The deployment operator's view: every workspace with its members, agents and credits today; and a new one. */
export function DeploymentPage() {
  const context = useMemo(() => WORKSPACES, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: DeploymentQuery, context });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Deployment</Title>
        <Button onClick={() => setCreating(true)}>New workspace</Button>
      </Group>
      <Text size="sm" c="dimmed">
        Every workspace on this deployment. Their agents, keys and members are visible only inside each workspace.
      </Text>
      {created ? <CreatedNotice created={created} /> : null}
      {!data ? (
        <NoData
          result={{ fetching, error }}
          loading="Loading workspaces…"
          retry={() => refetch({ requestPolicy: 'network-only' })}
        />
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label="Workspaces">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Slug</Table.Th>
                <Table.Th scope="col" style={{ textAlign: 'right' }}>
                  Members
                </Table.Th>
                <Table.Th scope="col" style={{ textAlign: 'right' }}>
                  Agents
                </Table.Th>
                <Table.Th scope="col" style={{ textAlign: 'right' }}>
                  Credits today (UTC)
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.workspaces.map((w) => (
                <Table.Tr key={w.id}>
                  <Table.Td>{w.name}</Table.Td>
                  <Table.Td ff="monospace">{w.slug}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{w.members}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{w.agents}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{credits(w.creditsToday)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <FormModal opened={creating} onClose={() => setCreating(false)} title="New workspace">
        <CreateWorkspaceForm
          onCancel={() => setCreating(false)}
          onCreated={(w) => {
            setCreating(false);
            setCreated(w);
            refetch({ requestPolicy: 'network-only' });
          }}
        />
      </FormModal>
    </Stack>
  );
}
