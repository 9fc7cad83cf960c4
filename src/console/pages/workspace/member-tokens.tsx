import { Button, Group, Paper, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { when } from '../../format.js';
import { ListStates, ErrorNotice, ShownOnce, ConfirmDialog } from '../../ui.js';
import { KeyMask, RevokeCell, TableHead } from '../../table-parts.js';

const MemberTokensQuery = graphql(`
  query MemberTokens($memberId: ID!) {
    memberTokens(memberId: $memberId) {
      id
      name
      scope
      prefix
      last4
      createdAt
      lastUsedAt
      revokedAt
    }
  }
`);

const CreateMemberTokenMutation = graphql(`
  mutation CreateMemberToken($memberId: ID!, $name: String, $scope: TokenScope) {
    createMemberToken(memberId: $memberId, name: $name, scope: $scope) {
      id
      memberId
      scope
      prefix
      last4
      token
    }
  }
`);

const RevokeMemberTokenMutation = graphql(`
  mutation RevokeMemberToken($id: ID!) {
    revokeMemberToken(id: $id)
  }
`);

type TokenRow = ResultOf<typeof MemberTokensQuery>['memberTokens'][number];

// A new or revoked token changes no type the token list shows in its answer (MemberTokenResult,
// Boolean): the list and the mutations name MemberToken so that the document cache refetches it.
const TOKENS = { additionalTypenames: ['MemberToken'] };

type Scope = 'WORKSPACE' | 'PERSON';

/** Where a token acts, in words; a PERSON token is made only by its person for themself. */
function scopeWords(scope: Scope, isYou: boolean): string {
  if (scope === 'WORKSPACE') return 'This workspace';
  return isYou ? 'All your workspaces' : 'All their workspaces';
}

/** One member's tokens: listed by prefix and last four, created (shown once), revoked after a confirmation. */
export function TokensPanel({
  member,
  isYou,
  onClose,
}: {
  member: { id: string; name: string };
  isYou: boolean;
  onClose: () => void;
}) {
  const [{ data, error, fetching }, refetch] = useQuery({
    query: MemberTokensQuery,
    variables: { memberId: member.id },
    context: useMemo(() => TOKENS, []),
  });
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('WORKSPACE');
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [create, createToken] = useMutation(CreateMemberTokenMutation);
  const [, revokeToken] = useMutation(RevokeMemberTokenMutation);
  const { fields, other } = fieldErrors(create.error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await createToken({ memberId: member.id, name: name || null, scope: isYou ? scope : null }, TOKENS);
    if (result.data) {
      setCreated(result.data.createMemberToken.token);
      setName('');
    }
  };
  const title = isYou ? 'Your tokens' : `Tokens of ${member.name}`;
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Stack>
        <Group justify="space-between">
          <Title order={3} size="h4">
            {title}
          </Title>
          <Button size="xs" variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
        {created ? <ShownOnce label="New member token" value={created} onDone={() => setCreated(null)} /> : null}
        <form onSubmit={submit} noValidate aria-label="Create token">
          <Group align="flex-end">
            <TextInput
              label="Token name"
              placeholder="laptop"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={fields.name}
              style={{ flex: 1, minWidth: 180 }}
            />
            {isYou ? (
              <Select
                label="Acts in"
                description="The command line names the workspace with aes login --workspace"
                data={[
                  { value: 'WORKSPACE', label: scopeWords('WORKSPACE', true) },
                  { value: 'PERSON', label: scopeWords('PERSON', true) },
                ]}
                value={scope}
                onChange={(v) => setScope((v as Scope | null) ?? 'WORKSPACE')}
                allowDeselect={false}
                error={fields.scope}
                style={{ minWidth: 200 }}
              />
            ) : null}
            <Button type="submit" loading={create.fetching}>
              Create token
            </Button>
          </Group>
        </form>
        <ErrorNotice light>{other}</ErrorNotice>
        <ListStates
          result={{ data, error, fetching }}
          retry={() => refetch({ requestPolicy: 'network-only' })}
          loading="Loading tokens…"
          forbidden="Only workspace admins may see another member's tokens."
          isEmpty={(d) => d.memberTokens.length === 0}
          empty={{ title: 'No tokens', text: 'Create a token to sign in to the console or call GraphQL.' }}
        >
          {(data) => (
            <Table.ScrollContainer minWidth={560}>
              <Table aria-label={title}>
                <TableHead columns={['Name', 'Token', 'Acts in', 'Created', 'Last used', 'Status']} />
                <Table.Tbody>
                  {data.memberTokens.map((t) => (
                    <Table.Tr key={t.id}>
                      <Table.Td>{t.name}</Table.Td>
                      <Table.Td>
                        <KeyMask prefix={t.prefix} last4={t.last4} />
                      </Table.Td>
                      <Table.Td>{scopeWords(t.scope, isYou)}</Table.Td>
                      <Table.Td>{when(t.createdAt)}</Table.Td>
                      <Table.Td>{when(t.lastUsedAt)}</Table.Td>
                      <RevokeCell
                        revokedAt={t.revokedAt}
                        label={`Revoke token ${t.name}`}
                        onRevoke={() => setRevoking(t)}
                      />
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </ListStates>
      </Stack>
      <ConfirmDialog
        opened={revoking !== null}
        title="Revoke token"
        confirmLabel="Revoke token"
        onClose={() => setRevoking(null)}
        onConfirm={async () => (await revokeToken({ id: revoking!.id }, TOKENS)).error}
      >
        {`Revoke the token “${revoking?.name ?? ''}” (${revoking?.prefix ?? ''}…${revoking?.last4 ?? ''})? It stops working at once, the console sessions signed in with it end, and so do the apps (MCP OAuth clients) approved while signed in with it.`}
      </ConfirmDialog>
    </Paper>
  );
}
