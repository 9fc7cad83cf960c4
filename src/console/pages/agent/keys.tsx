import { Badge, Button, Code, CopyButton, Group, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors, messageOf } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { EmptyState, ErrorState, LoadingState } from '../../states.js';
import type { AgentTabProps } from './tab-props.js';
import { when, isoOfUtcInput } from '../../format.js';
import { Callout, FormModal, ConfirmDialog, FormActions, ScrollTable } from '../../ui.js';
import { RevokeButton, TableHead } from '../../table-parts.js';
import { useCanWrite } from '../../viewer.js';
import { AGENT_KEY_SURFACES, filterKeys, inWords, PEOPLE_FIRST } from '../../key-filter.js';
import { KeyFilters, KeyName } from '../../key-filters.js';

const KeysQuery = graphql(`
  query AgentKeys($id: ID!) {
    agent(id: $id) {
      id
      allowWorkspaceKeys
      apiKeys {
        id
        name
        prefix
        last4
        createdAt
        lastUsedAt
        expiresAt
        revokedAt
        origin
      }
    }
  }
`);

const CreateKeyMutation = graphql(`
  mutation CreateAgentKey($agentId: ID!, $name: String!, $expiresAt: DateTimeISO) {
    createAgentApiKey(agentId: $agentId, name: $name, expiresAt: $expiresAt) {
      key
      apiKey {
        id
        name
        prefix
        last4
        createdAt
        lastUsedAt
        expiresAt
        revokedAt
        origin
      }
    }
  }
`);

const RevokeKeyMutation = graphql(`
  mutation RevokeAgentKey($id: ID!) {
    revokeApiKey(id: $id)
  }
`);

const AllowWorkspaceKeysMutation = graphql(`
  mutation AllowWorkspaceKeys($id: ID!, $allow: Boolean!) {
    updateAgent(id: $id, input: { allowWorkspaceKeys: $allow }) {
      id
      allowWorkspaceKeys
    }
  }
`);

type Key = ResultOf<typeof KeysQuery>['agent']['apiKeys'][number];

function keyState(key: Key): { label: string; color: string } {
  if (key.revokedAt) return { label: 'Revoked', color: 'red.9' };
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= Date.now()) return { label: 'Expired', color: 'grape.9' };
  return { label: 'Active', color: 'teal.9' };
}

/** The agent's API keys: create (the key shown once), list by prefix and last four, revoke. */
export default function KeysTab({ agentId }: AgentTabProps) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: KeysQuery, variables: { id: agentId } });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [, revokeKey] = useMutation(RevokeKeyMutation);
  const [allow, setAllow] = useMutation(AllowWorkspaceKeysMutation);
  const [filter, setFilter] = useState(PEOPLE_FIRST);
  const canWrite = useCanWrite();

  if (fetching && !data) return <LoadingState label="Loading the API keys…" />;
  if (!data) return <ErrorState error={error} retry={reload} />;
  const all = [...data.agent.apiKeys].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const { shown: keys, hiddenTools, hiddenRevoked } = filterKeys(all, filter);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>API keys</Title>
        {canWrite ? <Button onClick={() => setCreating(true)}>Create key</Button> : null}
      </Group>
      <Text size="sm" c="dimmed">
        An agent key (<Code>ak_…</Code>) calls this agent&apos;s {inWords(AGENT_KEY_SURFACES)}, sent as{' '}
        <Code>Authorization: Bearer &lt;key&gt;</Code> or <Code>X-Agent-Access-Key</Code>. Webhooks, email and text
        messages take no key: a webhook checks its sender&apos;s signature instead.
      </Text>
      <Switch
        label="Allow workspace keys"
        description="Workspace keys (wk_…) may call this agent too"
        checked={data.agent.allowWorkspaceKeys}
        disabled={allow.fetching || !canWrite}
        onChange={(e) => void setAllow({ id: agentId, allow: e.currentTarget.checked })}
        error={allow.error ? messageOf(allow.error) : undefined}
      />
      {all.length ? (
        <KeyFilters filter={filter} onChange={setFilter} hiddenTools={hiddenTools} hiddenRevoked={hiddenRevoked} />
      ) : null}
      {filter.tools ? (
        <Text size="xs" c="dimmed">
          A Try-it key works for an hour after Try it made it, and ends sooner when you sign out; closing the tab leaves
          it to expire at the time in its Expires column. A CLI key is revoked when its command ends, or expires within
          the hour.
        </Text>
      ) : null}
      {keys.length === 0 ? (
        <EmptyState title={all.length ? 'No keys to show' : 'No API keys yet'}>
          {all.length
            ? 'Every key of this agent is hidden by the switches above. Create a key for your application, or show the others.'
            : "Create a key to call this agent's surfaces from your application."}
        </EmptyState>
      ) : (
        <ScrollTable minWidth={760} label="API keys table">
          <Table aria-label="API keys">
            <TableHead columns={['Name', 'Key', 'Created', 'Last used', 'Expires', 'Status']} actions />
            <Table.Tbody>
              {keys.map((k) => {
                const state = keyState(k);
                return (
                  <Table.Tr key={k.id}>
                    <Table.Td>
                      <KeyName name={k.name} origin={k.origin} />
                    </Table.Td>
                    <Table.Td>
                      <Code>
                        {k.prefix}…{k.last4}
                      </Code>
                    </Table.Td>
                    <Table.Td>{when(k.createdAt, '—')}</Table.Td>
                    <Table.Td>{when(k.lastUsedAt, 'Never')}</Table.Td>
                    <Table.Td>{when(k.expiresAt, 'Never')}</Table.Td>
                    <Table.Td>
                      <Badge color={state.color} variant="outline">
                        {state.label}
                        {k.revokedAt ? ` ${when(k.revokedAt, '—')}` : ''}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {k.revokedAt || !canWrite ? null : (
                        <RevokeButton label={`Revoke ${k.name}`} onRevoke={() => setRevoking(k)} />
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Create API key">
        <CreateKeyForm
          agentId={agentId}
          onCancel={() => setCreating(false)}
          onCreated={(key, name) => {
            setCreating(false);
            setCreated({ key, name });
            reload();
          }}
        />
      </FormModal>
      <FormModal opened={created !== null} onClose={() => setCreated(null)} title="Your new API key" size="lg">
        {created ? (
          <Stack>
            <Callout color="red" title="Copy it now" role="status">
              This is the only time the key is shown. You won&apos;t see it again: the service keeps only its hash, and
              lists it by prefix and last four characters.
            </Callout>
            <Text size="sm" fw={600}>
              {created.name}
            </Text>
            <Code block data-testid="new-key" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
              {created.key}
            </Code>
            <Group justify="space-between">
              <CopyButton value={created.key}>
                {({ copied, copy }) => (
                  <Button variant={copied ? 'filled' : 'light'} color={copied ? 'teal.9' : undefined} onClick={copy}>
                    {copied ? 'Copied' : 'Copy key'}
                  </Button>
                )}
              </CopyButton>
              <Button onClick={() => setCreated(null)} data-autofocus>
                I have copied it
              </Button>
            </Group>
          </Stack>
        ) : null}
      </FormModal>
      <ConfirmDialog
        opened={revoking !== null}
        title="Revoke API key"
        confirmLabel="Revoke key"
        onConfirm={async () => {
          const result = await revokeKey({ id: revoking!.id });
          if (!result.error) reload();
          return result.error;
        }}
        onClose={() => setRevoking(null)}
      >
        {revoking
          ? `Revoke “${revoking.name}” (${revoking.prefix}…${revoking.last4})? Calls with it are refused with 401 at once. This cannot be undone.`
          : ''}
      </ConfirmDialog>
    </Stack>
  );
}

function CreateKeyForm({
  agentId,
  onCancel,
  onCreated,
}: {
  agentId: string;
  onCancel: () => void;
  onCreated: (key: string, name: string) => void;
}) {
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [{ fetching, error }, create] = useMutation(CreateKeyMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ agentId, name, expiresAt: isoOfUtcInput(expires) });
    if (result.data) onCreated(result.data.createAgentApiKey.key, result.data.createAgentApiKey.apiKey.name);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="What the key is for, e.g. the application that uses it"
          required
          data-autofocus
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
        />
        <TextInput
          type="datetime-local"
          label="Expires (UTC)"
          description="Optional: from a minute to 365 days ahead. Empty: the key works until revoked"
          value={expires}
          onChange={(e) => setExpires(e.currentTarget.value)}
          error={fields.expiresAt}
        />
        <FormActions error={other} submit="Create key" loading={fetching} onCancel={onCancel} light />
      </Stack>
    </form>
  );
}
