import { Badge, Button, Checkbox, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { useIsAdmin } from '../../viewer.js';
import { when } from '../../format.js';
import { ListStates, AdminOnlyNotice, ShownOnce, FormModal, ConfirmDialog, FormActions } from '../../ui.js';
import { KeyMask, RevokeCell, TableHead } from '../../table-parts.js';
import { AGENT_KEY_SURFACES, filterKeys, inWords, PEOPLE_FIRST } from '../../key-filter.js';
import { KeyFilters, KeyName } from '../../key-filters.js';

const WorkspaceKeysQuery = graphql(`
  query WorkspaceKeys {
    workspace {
      id
      apiKeys {
        id
        name
        prefix
        last4
        scopes
        createdAt
        expiresAt
        lastUsedAt
        revokedAt
        origin
      }
    }
  }
`);

const CreateWorkspaceKeyMutation = graphql(`
  mutation CreateWorkspaceKey($name: String!, $scopes: [KeyScope!], $expiresAt: DateTimeISO) {
    createWorkspaceApiKey(name: $name, scopes: $scopes, expiresAt: $expiresAt) {
      key
      apiKey {
        id
        name
        prefix
        last4
        scopes
        createdAt
        expiresAt
        lastUsedAt
        revokedAt
        origin
      }
    }
  }
`);

const RevokeApiKeyMutation = graphql(`
  mutation RevokeWorkspaceKey($id: ID!) {
    revokeApiKey(id: $id)
  }
`);

type KeyRow = ResultOf<typeof WorkspaceKeysQuery>['workspace']['apiKeys'][number];
type Scope = KeyRow['scopes'][number];

/** Every scope a workspace key may carry, with what it allows. */
const SCOPES: { value: Scope; label: string; description: string }[] = [
  {
    value: 'WORKSPACE_READ',
    label: 'Workspace read',
    description: 'Read the Workspace API overview (settings groups and configured models)',
  },
];

const EXPIRY: { value: string; label: string; days: number | null }[] = [
  { value: 'never', label: 'Never (until revoked)', days: null },
  { value: '7', label: 'In 7 days', days: 7 },
  { value: '30', label: 'In 30 days', days: 30 },
  { value: '90', label: 'In 90 days', days: 90 },
  { value: '365', label: 'In a year', days: 365 },
];

// A revoked key comes back as a Boolean: the list names ApiKey so that the cache refetches it.
const KEYS = { additionalTypenames: ['ApiKey'] };

/** The workspace API Keys tab: workspace keys (wk_) with their scopes; admins only. */
export default function WorkspaceKeysSection() {
  const isAdmin = useIsAdmin();
  if (!isAdmin)
    return <AdminOnlyNotice>Workspace keys are listed, created and revoked by workspace admins.</AdminOnlyNotice>;
  return <WorkspaceKeys />;
}

function WorkspaceKeys() {
  const context = useMemo(() => KEYS, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: WorkspaceKeysQuery, context });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<KeyRow | null>(null);
  const [, revoke] = useMutation(RevokeApiKeyMutation);
  const [filter, setFilter] = useState(PEOPLE_FIRST);
  const filtered = filterKeys(data?.workspace.apiKeys ?? [], filter);
  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm" maw={720}>
          A workspace key (wk_…) calls the Workspace API (with the Workspace read scope) and, on every agent that allows
          workspace keys, what an agent key calls: {inWords(AGENT_KEY_SURFACES)}; and the workspace-wide
          OpenAI-compatible URL (/v1), where each such agent is a model.
        </Text>
        <Button onClick={() => setCreating(true)}>Create workspace key</Button>
      </Group>
      {data?.workspace.apiKeys.length ? (
        <KeyFilters
          filter={filter}
          onChange={setFilter}
          hiddenTools={filtered.hiddenTools}
          hiddenRevoked={filtered.hiddenRevoked}
          tools="Show keys made by the CLI"
        />
      ) : null}
      {created ? <ShownOnce label="New workspace key" value={created} onDone={() => setCreated(null)} /> : null}
      <ListStates
        result={{ data, error, fetching }}
        retry={() => refetch({ requestPolicy: 'network-only' })}
        loading="Loading workspace keys…"
        forbidden="Workspace keys are listed by workspace admins only."
        isEmpty={() => filtered.shown.length === 0}
        empty={
          data?.workspace.apiKeys.length
            ? { title: 'No keys to show', text: 'Every workspace key is hidden by the switches above.' }
            : {
                title: 'No workspace keys',
                text: 'Create one for a program that reads the workspace or calls its agents.',
              }
        }
      >
        {() => (
          <Table.ScrollContainer minWidth={720}>
            <Table striped aria-label="Workspace keys">
              <TableHead columns={['Name', 'Key', 'Scopes', 'Created', 'Expires', 'Last used', 'Status']} />
              <Table.Tbody>
                {filtered.shown.map((k) => (
                  <Table.Tr key={k.id}>
                    <Table.Td>
                      <KeyName name={k.name} origin={k.origin} />
                    </Table.Td>
                    <Table.Td>
                      <KeyMask prefix={k.prefix} last4={k.last4} />
                    </Table.Td>
                    <Table.Td>
                      {k.scopes.length ? (
                        <Group gap={4}>
                          {k.scopes.map((s) => (
                            <Badge key={s} variant="filled" color="indigo.9" size="sm">
                              {SCOPES.find((x) => x.value === s)?.label ?? s}
                            </Badge>
                          ))}
                        </Group>
                      ) : (
                        <Text size="sm" c="dimmed">
                          None
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{when(k.createdAt)}</Table.Td>
                    <Table.Td>{k.expiresAt ? when(k.expiresAt) : 'Never'}</Table.Td>
                    <Table.Td>{when(k.lastUsedAt)}</Table.Td>
                    <RevokeCell
                      revokedAt={k.revokedAt}
                      label={`Revoke key ${k.name}`}
                      onRevoke={() => setRevoking(k)}
                    />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </ListStates>
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Create workspace key">
        <CreateKeyForm
          onCancel={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
          }}
        />
      </FormModal>
      <ConfirmDialog
        opened={revoking !== null}
        title="Revoke workspace key"
        confirmLabel="Revoke key"
        onClose={() => setRevoking(null)}
        onConfirm={async () => (await revoke({ id: revoking!.id }, KEYS)).error}
      >
        {`Revoke “${revoking?.name ?? ''}” (${revoking?.prefix ?? ''}…${revoking?.last4 ?? ''})? Calls with it are refused with 401 from now on.`}
      </ConfirmDialog>
    </Stack>
  );
}

function CreateKeyForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (key: string) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expiry, setExpiry] = useState('never');
  const [{ fetching, error }, create] = useMutation(CreateWorkspaceKeyMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const days = EXPIRY.find((e) => e.value === expiry)?.days ?? null;
    const expiresAt = days === null ? null : new Date(Date.now() + days * 86_400_000).toISOString();
    const result = await create({ name, scopes: scopes as Scope[], expiresAt }, KEYS);
    if (result.data) onCreated(result.data.createWorkspaceApiKey.key);
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
        <Checkbox.Group label="Scopes" value={scopes} onChange={setScopes} error={fields.scopes}>
          <Stack gap="xs" mt="xs">
            {SCOPES.map((s) => (
              <Checkbox key={s.value} value={s.value} label={s.label} description={s.description} />
            ))}
          </Stack>
        </Checkbox.Group>
        <Select
          label="Expires"
          data={EXPIRY}
          value={expiry}
          onChange={(v) => setExpiry(v ?? 'never')}
          allowDeselect={false}
          error={fields.expiresAt}
        />
        <FormActions error={other} submit="Create key" loading={fetching} onCancel={onCancel} light />
      </Stack>
    </form>
  );
}
