import { Badge, Button, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { useIsAdmin, useViewer } from '../../viewer.js';
import { when } from '../../format.js';
import { ListStates, ErrorNotice, ShownOnce, FormModal, ConfirmDialog, FormActions } from '../../ui.js';
import { KeyMask, RevokeCell, TableHead } from '../../table-parts.js';

const MembersQuery = graphql(`
  query WorkspaceMembers {
    workspace {
      id
      members {
        id
        name
        email
        role
        createdAt
      }
    }
  }
`);

const InviteMemberMutation = graphql(`
  mutation InviteMember($input: InviteMemberInput!) {
    inviteMember(input: $input) {
      id
      name
      email
      role
      createdAt
    }
  }
`);

const MemberTokensQuery = graphql(`
  query MemberTokens($memberId: ID!) {
    memberTokens(memberId: $memberId) {
      id
      name
      prefix
      last4
      createdAt
      lastUsedAt
      revokedAt
    }
  }
`);

const CreateMemberTokenMutation = graphql(`
  mutation CreateMemberToken($memberId: ID!, $name: String) {
    createMemberToken(memberId: $memberId, name: $name) {
      id
      memberId
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

type MemberRow = ResultOf<typeof MembersQuery>['workspace']['members'][number];
type TokenRow = ResultOf<typeof MemberTokensQuery>['memberTokens'][number];

// A new or revoked token changes no type the token list shows in its answer (MemberTokenResult,
// Boolean): the list and the mutations name MemberToken so that the document cache refetches it.
const TOKENS = { additionalTypenames: ['MemberToken'] };

/** The workspace's members; admins invite members and manage anyone's tokens, a member their own. */
export default function MembersSection() {
  const isAdmin = useIsAdmin();
  const viewer = useViewer();
  const context = useMemo(() => ({ additionalTypenames: ['Member'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: MembersQuery, context });
  const [inviting, setInviting] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const members = data?.workspace.members ?? [];
  const selectedMember = members.find((m) => m.id === selected) ?? null;
  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          Members sign in to the console and GraphQL with their personal tokens.
        </Text>
        {isAdmin ? <Button onClick={() => setInviting(true)}>Invite member</Button> : null}
      </Group>
      <ListStates
        result={{ data, error, fetching }}
        retry={() => refetch({ requestPolicy: 'network-only' })}
        loading="Loading members…"
        forbidden="Only workspace admins may list the members."
        isEmpty={(d) => d.workspace.members.length === 0}
        empty={{ title: 'No members', text: 'Invite a member to give them access to the console.' }}
      >
        {(data) => (
          <Table.ScrollContainer minWidth={560}>
            <Table striped aria-label="Members">
              <TableHead columns={['Name', 'Email', 'Role', 'Tokens']} />
              <Table.Tbody>
                {members.map((m) => (
                  <MemberRowView
                    key={m.id}
                    member={m}
                    mayManage={isAdmin || m.id === viewer.id}
                    isYou={m.id === viewer.id}
                    onTokens={() => setSelected(m.id)}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </ListStates>
      {selectedMember ? (
        <TokensPanel
          key={selectedMember.id}
          member={selectedMember}
          isYou={selectedMember.id === viewer.id}
          onClose={() => setSelected(null)}
        />
      ) : null}
      <FormModal opened={inviting} onClose={() => setInviting(false)} title="Invite member">
        <InviteForm onDone={() => setInviting(false)} />
      </FormModal>
    </Stack>
  );
}

function MemberRowView({
  member,
  mayManage,
  isYou,
  onTokens,
}: {
  member: MemberRow;
  mayManage: boolean;
  isYou: boolean;
  onTokens: () => void;
}) {
  return (
    <Table.Tr>
      <Table.Td>
        {member.name}
        {isYou ? (
          <Text span size="xs" c="dimmed">
            {' '}
            (you)
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>{member.email}</Table.Td>
      <Table.Td>
        <Badge variant="filled" color={member.role === 'ADMIN' ? 'indigo.9' : 'gray.7'}>
          {member.role === 'ADMIN' ? 'Admin' : 'Member'}
        </Badge>
      </Table.Td>
      <Table.Td>
        {mayManage ? (
          <Button size="xs" variant="light" onClick={onTokens} aria-label={`Tokens of ${member.name}`}>
            Tokens
          </Button>
        ) : (
          <Text size="xs" c="dimmed">
            —
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function InviteForm({ onDone }: { onDone: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<'MEMBER' | 'ADMIN'>('MEMBER');
  const [{ fetching, error }, invite] = useMutation(InviteMemberMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await invite({ input: { email, role, ...(name.trim() ? { name } : {}) } });
    if (!result.error) onDone();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Email"
          type="email"
          required
          data-autofocus
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          error={fields.email}
        />
        <TextInput
          label="Name"
          description="Defaults to the email"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
        />
        <Select
          label="Role"
          data={[
            { value: 'MEMBER', label: 'Member' },
            { value: 'ADMIN', label: 'Admin' },
          ]}
          value={role}
          onChange={(v) => setRole((v as 'MEMBER' | 'ADMIN' | null) ?? 'MEMBER')}
          allowDeselect={false}
          error={fields.role}
        />
        <FormActions error={other} submit="Invite member" loading={fetching} onCancel={onDone} light />
      </Stack>
    </form>
  );
}

/** One member's tokens: listed by prefix and last four, created (shown once), revoked after a confirmation. */
function TokensPanel({ member, isYou, onClose }: { member: MemberRow; isYou: boolean; onClose: () => void }) {
  const [{ data, error, fetching }, refetch] = useQuery({
    query: MemberTokensQuery,
    variables: { memberId: member.id },
    context: useMemo(() => TOKENS, []),
  });
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [create, createToken] = useMutation(CreateMemberTokenMutation);
  const [, revokeToken] = useMutation(RevokeMemberTokenMutation);
  const { fields, other } = fieldErrors(create.error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await createToken({ memberId: member.id, name: name || null }, TOKENS);
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
                <TableHead columns={['Name', 'Token', 'Created', 'Last used', 'Status']} />
                <Table.Tbody>
                  {data.memberTokens.map((t) => (
                    <Table.Tr key={t.id}>
                      <Table.Td>{t.name}</Table.Td>
                      <Table.Td>
                        <KeyMask prefix={t.prefix} last4={t.last4} />
                      </Table.Td>
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
