import { Button, Group, NumberInput, Paper, Progress, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, NoData } from '../../states.js';
import { useIsAdmin } from '../../viewer.js';
import { credits, numberOrNull } from '../../format.js';
import { ErrorNotice, FormModal, FormActions, SavedStatus } from '../../ui.js';

const TeamsQuery = graphql(`
  query WorkspaceTeams {
    workspace {
      id
      dailyCreditLimit
      teams {
        id
        name
        dailyCreditLimit
        createdAt
      }
      usage(days: 1) {
        day
        credits
        runs
      }
    }
  }
`);

const CreateTeamMutation = graphql(`
  mutation CreateTeam($name: String!, $dailyCreditLimit: Float) {
    createTeam(name: $name, dailyCreditLimit: $dailyCreditLimit) {
      id
      name
      dailyCreditLimit
      createdAt
    }
  }
`);

const SetTeamLimitsMutation = graphql(`
  mutation SetTeamLimits($teamId: ID!, $dailyCreditLimit: Float) {
    setTeamLimits(teamId: $teamId, dailyCreditLimit: $dailyCreditLimit) {
      id
      name
      dailyCreditLimit
      createdAt
    }
  }
`);

const SetWorkspaceLimitsMutation = graphql(`
  mutation SetWorkspaceLimits($dailyCreditLimit: Float) {
    setWorkspaceLimits(dailyCreditLimit: $dailyCreditLimit) {
      id
      dailyCreditLimit
    }
  }
`);

type Data = ResultOf<typeof TeamsQuery>['workspace'];
type TeamRow = Data['teams'][number];

const TEAMS = { additionalTypenames: ['Team'] };

const limitText = (limit: number | null | undefined) =>
  limit === null || limit === undefined ? 'No limit' : `${credits(limit)} credits a day`;

/** Teams with their daily credit limits, and the workspace's own limit against today's use. */
export default function TeamsSection() {
  const isAdmin = useIsAdmin();
  const context = useMemo(() => TEAMS, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: TeamsQuery, context });
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<TeamRow | null>(null);
  if (!data)
    return (
      <NoData
        result={{ fetching, error }}
        loading="Loading teams and limits…"
        retry={() => refetch({ requestPolicy: 'network-only' })}
      />
    );
  const ws = data.workspace;
  return (
    <Stack>
      <WorkspaceLimit workspace={ws} isAdmin={isAdmin} />
      <Group justify="space-between">
        <Title order={3} size="h4">
          Teams
        </Title>
        {isAdmin ? <Button onClick={() => setCreating(true)}>Create team</Button> : null}
      </Group>
      {ws.teams.length === 0 ? (
        <EmptyState title="No teams yet">
          A team groups agents under one daily credit limit (an agent joins a team on its Overview tab).
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table striped aria-label="Teams">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Team</Table.Th>
                <Table.Th scope="col">Daily credit limit</Table.Th>
                {isAdmin ? <Table.Th scope="col">Actions</Table.Th> : null}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {ws.teams.map((t) => (
                <Table.Tr key={t.id}>
                  <Table.Td>{t.name}</Table.Td>
                  <Table.Td>{limitText(t.dailyCreditLimit)}</Table.Td>
                  {isAdmin ? (
                    <Table.Td>
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => setEditing(t)}
                        aria-label={`Set limit of ${t.name}`}
                      >
                        Set limit
                      </Button>
                    </Table.Td>
                  ) : null}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Create team">
        <CreateTeamForm onDone={() => setCreating(false)} />
      </FormModal>
      <FormModal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={`Daily limit of ${editing?.name ?? ''}`}
      >
        {editing ? <TeamLimitForm team={editing} onDone={() => setEditing(null)} /> : null}
      </FormModal>
    </Stack>
  );
}

function WorkspaceLimit({ workspace, isAdmin }: { workspace: Data; isAdmin: boolean }) {
  const today = new Date().toISOString().slice(0, 10);
  const used = workspace.usage.find((u) => u.day === today);
  const limit = workspace.dailyCreditLimit;
  const [value, setValue] = useState<string | number>(limit ?? '');
  const [saved, setSaved] = useState(false);
  const [{ fetching, error }, save] = useMutation(SetWorkspaceLimitsMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const result = await save({ dailyCreditLimit: numberOrNull(value) });
    if (!result.error) setSaved(true);
  };
  const usedCredits = used?.credits ?? 0;
  return (
    <Paper withBorder p="md" component="section" aria-label="Workspace limit">
      <Stack gap="sm">
        <Title order={3} size="h4">
          Workspace
        </Title>
        <Text size="sm" data-testid="workspace-usage">
          Today (UTC): {credits(usedCredits)} credits in {used?.runs ?? 0} runs · limit: {limitText(limit)}
        </Text>
        {limit !== null && limit !== undefined && limit > 0 ? (
          <Progress
            value={Math.min(100, (usedCredits / limit) * 100)}
            aria-label="Credits used today against the workspace limit"
          />
        ) : null}
        {isAdmin ? (
          <form onSubmit={submit} noValidate>
            <Group align="flex-end">
              <NumberInput
                label="Workspace daily credit limit"
                description="Empty: no limit"
                min={0}
                value={value}
                onChange={setValue}
                error={fields.dailyCreditLimit}
                style={{ flex: 1, minWidth: 200 }}
              />
              <Button type="submit" loading={fetching}>
                Save limit
              </Button>
            </Group>
            <SavedStatus saved={saved} mt={4} />
          </form>
        ) : null}
        <ErrorNotice light>{other}</ErrorNotice>
      </Stack>
    </Paper>
  );
}

function CreateTeamForm({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState<string | number>('');
  const [{ fetching, error }, create] = useMutation(CreateTeamMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ name, dailyCreditLimit: numberOrNull(limit) }, TEAMS);
    if (!result.error) onDone();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          required
          data-autofocus
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
        />
        <NumberInput
          label="Daily credit limit"
          description="Empty: no limit"
          min={0}
          value={limit}
          onChange={setLimit}
          error={fields.dailyCreditLimit}
        />
        <FormActions error={other} submit="Create team" loading={fetching} onCancel={onDone} light />
      </Stack>
    </form>
  );
}

function TeamLimitForm({ team, onDone }: { team: TeamRow; onDone: () => void }) {
  const [limit, setLimit] = useState<string | number>(team.dailyCreditLimit ?? '');
  const [{ fetching, error }, save] = useMutation(SetTeamLimitsMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await save({ teamId: team.id, dailyCreditLimit: numberOrNull(limit) });
    if (!result.error) onDone();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <NumberInput
          label="Daily credit limit"
          description="Empty: no limit"
          min={0}
          data-autofocus
          value={limit}
          onChange={setLimit}
          error={fields.dailyCreditLimit}
        />
        <FormActions error={other} submit="Save limit" loading={fetching} onCancel={onDone} light />
      </Stack>
    </form>
  );
}
