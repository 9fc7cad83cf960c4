import { Badge, Button, Group, PasswordInput, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { useIsAdmin } from '../../viewer.js';
import { when } from '../../format.js';
import { ListStates, FormModal, ConfirmDialog, FormActions } from '../../ui.js';

const SecretsQuery = graphql(`
  query Secrets {
    secrets {
      id
      name
      kind
      createdAt
      updatedAt
    }
  }
`);

const CreateSecretMutation = graphql(`
  mutation CreateSecret($kind: SecretKind!, $name: String!, $value: String!) {
    createSecret(kind: $kind, name: $name, value: $value) {
      id
      name
      kind
      createdAt
      updatedAt
    }
  }
`);

const DeleteSecretMutation = graphql(`
  mutation DeleteSecret($name: String!) {
    deleteSecret(name: $name)
  }
`);

type SecretRow = ResultOf<typeof SecretsQuery>['secrets'][number];
type Kind = SecretRow['kind'];

const KINDS: { value: Kind; label: string }[] = [
  { value: 'MODEL_API_KEY', label: 'Model API key' },
  { value: 'WEBHOOK_SIGNING_SECRET', label: 'Webhook signing secret' },
  { value: 'GENERIC', label: 'Generic' },
];

const SECRETS = { additionalTypenames: ['Secret'] };

/** The workspace's secrets by name and kind (their values are never shown); admins add and delete them. */
export default function SecretsSection() {
  const isAdmin = useIsAdmin();
  const context = useMemo(() => SECRETS, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: SecretsQuery, context });
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<SecretRow | null>(null);
  const [, remove] = useMutation(DeleteSecretMutation);
  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          Stored encrypted. Models name their API key and webhooks their signing secret by the secret&apos;s name; no
          one can read a value back.
        </Text>
        {isAdmin ? <Button onClick={() => setCreating(true)}>Add secret</Button> : null}
      </Group>
      <ListStates
        result={{ data, error, fetching }}
        retry={() => refetch({ requestPolicy: 'network-only' })}
        loading="Loading secrets…"
        forbidden="Only workspace admins may list the secrets."
        isEmpty={(d) => d.secrets.length === 0}
        empty={{
          title: 'No secrets yet',
          text: isAdmin ? 'Add a model API key or a webhook signing secret.' : 'An admin adds them.',
        }}
      >
        {(data) => (
          <Table.ScrollContainer minWidth={520}>
            <Table striped aria-label="Secrets">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Kind</Table.Th>
                  <Table.Th scope="col">Updated</Table.Th>
                  {isAdmin ? <Table.Th scope="col">Actions</Table.Th> : null}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.secrets.map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td>
                      <Text ff="monospace" size="sm">
                        {s.name}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="filled" color="gray.7">
                        {KINDS.find((k) => k.value === s.kind)?.label ?? s.kind}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{when(s.updatedAt)}</Table.Td>
                    {isAdmin ? (
                      <Table.Td>
                        <Button
                          size="xs"
                          color="red"
                          variant="light"
                          onClick={() => setDeleting(s)}
                          aria-label={`Delete secret ${s.name}`}
                        >
                          Delete
                        </Button>
                      </Table.Td>
                    ) : null}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </ListStates>
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Add secret">
        <CreateSecretForm onDone={() => setCreating(false)} />
      </FormModal>
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete secret"
        confirmLabel="Delete secret"
        onClose={() => setDeleting(null)}
        onConfirm={async () => (await remove({ name: deleting!.name }, SECRETS)).error}
      >
        {`Delete the secret “${deleting?.name ?? ''}”? Models and webhooks that name it can no longer use it.`}
      </ConfirmDialog>
    </Stack>
  );
}

function CreateSecretForm({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('MODEL_API_KEY');
  const [value, setValue] = useState('');
  const [{ fetching, error }, create] = useMutation(CreateSecretMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ name, kind, value });
    if (!result.error) {
      setValue('');
      onDone();
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="Letters, digits, . _ and -"
          required
          data-autofocus
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
        />
        <Select
          label="Kind"
          data={KINDS}
          value={kind}
          onChange={(v) => setKind((v as Kind | null) ?? 'GENERIC')}
          allowDeselect={false}
          error={fields.kind}
        />
        <PasswordInput
          label="Value"
          description="Stored encrypted; it cannot be shown again"
          required
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          error={fields.value}
        />
        <FormActions error={other} submit="Add secret" loading={fetching} onCancel={onDone} light />
      </Stack>
    </form>
  );
}
