import { Badge, Button, Group, Select, Stack, Table, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { messageOf } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { useIsAdmin, useViewer } from '../../viewer.js';
import { ConfirmDialog, ErrorNotice, FormModal, ListStates } from '../../ui.js';
import { TableHead } from '../../table-parts.js';
import { TokensPanel } from './member-tokens.js';
import { InviteForm, PendingInvitations, ROLE_OPTIONS, roleLabel } from './invitations.js';

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

const SetMemberRoleMutation = graphql(`
  mutation SetMemberRole($memberId: ID!, $role: Role!) {
    setMemberRole(memberId: $memberId, role: $role) {
      id
      role
    }
  }
`);

const RemoveMemberMutation = graphql(`
  mutation RemoveMember($memberId: ID!) {
    removeMember(memberId: $memberId)
  }
`);

type MemberRow = ResultOf<typeof MembersQuery>['workspace']['members'][number];

/**
 * The workspace's members; admins invite people, change roles, remove members and manage anyone's
 * tokens, a member their own.
 */
export default function MembersSection() {
  const isAdmin = useIsAdmin();
  const viewer = useViewer();
  const context = useMemo(() => ({ additionalTypenames: ['Member'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: MembersQuery, context });
  const [inviting, setInviting] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [removing, setRemoving] = useState<MemberRow | null>(null);
  const [, remove] = useMutation(RemoveMemberMutation);
  const members = data?.workspace.members ?? [];
  const selectedMember = members.find((m) => m.id === selected) ?? null;
  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          Members sign in to the console with their email and password (or a personal token); an invitation adds
          someone.
        </Text>
        {isAdmin ? <Button onClick={() => setInviting(true)}>Invite someone</Button> : null}
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
              <TableHead
                columns={isAdmin ? ['Name', 'Email', 'Role', 'Tokens', 'Remove'] : ['Name', 'Email', 'Role', 'Tokens']}
              />
              <Table.Tbody>
                {members.map((m) => (
                  <MemberRowView
                    key={m.id}
                    member={m}
                    mayManage={isAdmin || m.id === viewer.id}
                    isYou={m.id === viewer.id}
                    isAdmin={isAdmin}
                    onTokens={() => setSelected(m.id)}
                    onRemove={() => setRemoving(m)}
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
      {isAdmin ? <PendingInvitations /> : null}
      <FormModal opened={inviting} onClose={() => setInviting(false)} title="Invite someone">
        <InviteForm onDone={() => setInviting(false)} />
      </FormModal>
      <ConfirmDialog
        opened={removing !== null}
        title="Remove member"
        confirmLabel="Remove"
        onClose={() => setRemoving(null)}
        onConfirm={async () => (await remove({ memberId: removing!.id }, context)).error}
      >
        {removing?.name} ({removing?.email}) loses access to this workspace at once: their console sessions here end,
        and so do their tokens, Try-it keys and the apps they connected. Their account and other workspaces stay.
      </ConfirmDialog>
    </Stack>
  );
}

function MemberRowView({
  member,
  mayManage,
  isYou,
  isAdmin,
  onTokens,
  onRemove,
}: {
  member: MemberRow;
  mayManage: boolean;
  isYou: boolean;
  isAdmin: boolean;
  onTokens: () => void;
  onRemove: () => void;
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
        {isAdmin ? (
          <RoleSelect member={member} />
        ) : (
          <Badge variant="filled" color={member.role === 'ADMIN' ? 'indigo.9' : 'gray.7'}>
            {roleLabel(member.role)}
          </Badge>
        )}
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
      {isAdmin ? (
        <Table.Td>
          {isYou ? (
            <Text size="xs" c="dimmed">
              —
            </Text>
          ) : (
            <Button size="xs" variant="outline" color="red.9" onClick={onRemove} aria-label={`Remove ${member.name}`}>
              Remove
            </Button>
          )}
        </Table.Td>
      ) : null}
    </Table.Tr>
  );
}

/** An admin's role picker for a member; the server keeps the last admin's role (its answer shows why). */
function RoleSelect({ member }: { member: MemberRow }) {
  const [{ fetching, error }, setRole] = useMutation(SetMemberRoleMutation);
  return (
    <Stack gap={2}>
      <Select
        size="xs"
        aria-label={`Role of ${member.name}`}
        data={ROLE_OPTIONS}
        value={member.role}
        disabled={fetching}
        allowDeselect={false}
        onChange={(v) => v && v !== member.role && void setRole({ memberId: member.id, role: v as MemberRow['role'] })}
      />
      <ErrorNotice light>{error ? messageOf(error) : null}</ErrorNotice>
    </Stack>
  );
}
