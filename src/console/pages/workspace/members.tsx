import { Badge, Button, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { useIsAdmin, useViewer } from '../../viewer.js';
import { ListStates, FormModal, FormActions } from '../../ui.js';
import { TableHead } from '../../table-parts.js';
import { TokensPanel } from './member-tokens.js';

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

type MemberRow = ResultOf<typeof MembersQuery>['workspace']['members'][number];

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
