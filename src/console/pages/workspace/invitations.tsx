import { Badge, Button, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { CopyBlock } from '../../copy-field.js';
import { fieldErrors } from '../../errors.js';
import { when } from '../../format.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { RevokeButton, TableHead } from '../../table-parts.js';
import { ConfirmDialog, FormActions, ListStates } from '../../ui.js';

// The members page's invitations (admins): the invite form, which shows the link to send when no
// smarthost emails it, and the pending invitations with a new link or revoke.

const InvitationsQuery = graphql(`
  query PendingInvitations {
    invitations {
      id
      email
      name
      role
      createdAt
      expiresAt
    }
  }
`);

const InviteMemberMutation = graphql(`
  mutation InviteMember($input: InviteMemberInput!) {
    inviteMember(input: $input) {
      link
      emailed
      invitation {
        id
        email
        role
      }
    }
  }
`);

const RevokeInvitationMutation = graphql(`
  mutation RevokeInvitation($id: ID!) {
    revokeInvitation(id: $id)
  }
`);

type Role = 'ADMIN' | 'MEMBER' | 'VIEWER';
type InvitationRow = ResultOf<typeof InvitationsQuery>['invitations'][number];
type Made = ResultOf<typeof InviteMemberMutation>['inviteMember'];

export const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'MEMBER', label: 'Member' },
  { value: 'ADMIN', label: 'Admin' },
  { value: 'VIEWER', label: 'Viewer (read-only)' },
];

export const roleLabel = (role: Role) => (role === 'ADMIN' ? 'Admin' : role === 'VIEWER' ? 'Viewer' : 'Member');

/** The link of an invitation just made: to copy, or a note that it was emailed. */
function MadeInvitation({ made }: { made: Made }) {
  if (made.emailed)
    return (
      <Text size="sm" role="status">
        The invitation was emailed to {made.invitation.email}.
      </Text>
    );
  return (
    <CopyBlock
      label="Invitation link"
      value={made.link}
      description={`No email is sent from this service: send this link to ${made.invitation.email} yourself. It works once, for 7 days, and is shown only now.`}
    />
  );
}

/** The pending invitations; a new link replaces an invitation's old one (only its hash is kept). */
export function PendingInvitations() {
  const context = useMemo(() => ({ additionalTypenames: ['Invitation', 'InvitationResult'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: InvitationsQuery, context });
  const [, invite] = useMutation(InviteMemberMutation);
  const [, revoke] = useMutation(RevokeInvitationMutation);
  const [revoking, setRevoking] = useState<InvitationRow | null>(null);
  const [renewed, setRenewed] = useState<Made | null>(null);
  const again = async (row: InvitationRow) => {
    const result = await invite(
      { input: { email: row.email, role: row.role, ...(row.name ? { name: row.name } : {}) } },
      context,
    );
    if (result.data) setRenewed(result.data.inviteMember);
  };
  return (
    <Stack gap="xs">
      <Title order={3} size="h4">
        Pending invitations
      </Title>
      {renewed ? <MadeInvitation made={renewed} /> : null}
      <ListStates
        result={{ data, error, fetching }}
        retry={() => refetch({ requestPolicy: 'network-only' })}
        loading="Loading invitations…"
        forbidden="Only workspace admins see the invitations."
        isEmpty={(d) => d.invitations.length === 0}
        empty={{ title: 'No pending invitations', text: 'Invitations not accepted yet appear here until they expire.' }}
      >
        {(d) => (
          <Table.ScrollContainer minWidth={560}>
            <Table striped aria-label="Pending invitations">
              <TableHead columns={['Email', 'Role', 'Expires', 'Actions']} />
              <Table.Tbody>
                {d.invitations.map((row) => (
                  <Table.Tr key={row.id}>
                    <Table.Td>{row.email}</Table.Td>
                    <Table.Td>
                      <Badge variant="filled" color="gray.7">
                        {roleLabel(row.role)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{when(row.expiresAt)}</Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="light"
                          onClick={() => again(row)}
                          aria-label={`New link for ${row.email}`}
                        >
                          New link
                        </Button>
                        <RevokeButton
                          label={`Revoke the invitation of ${row.email}`}
                          onRevoke={() => setRevoking(row)}
                        />
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </ListStates>
      <ConfirmDialog
        opened={revoking !== null}
        title="Revoke invitation"
        confirmLabel="Revoke"
        onClose={() => setRevoking(null)}
        onConfirm={async () => (await revoke({ id: revoking!.id }, context)).error}
      >
        The link sent to {revoking?.email} stops working. You can invite them again later.
      </ConfirmDialog>
    </Stack>
  );
}

/** The invite form: email, name, role; then the link to send (or that it was emailed). */
export function InviteForm({ onDone }: { onDone: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('MEMBER');
  const [made, setMade] = useState<Made | null>(null);
  const [{ fetching, error }, invite] = useMutation(InviteMemberMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await invite(
      { input: { email, role, ...(name.trim() ? { name } : {}) } },
      { additionalTypenames: ['Invitation'] },
    );
    if (result.data) setMade(result.data.inviteMember);
  };
  if (made)
    return (
      <Stack>
        <MadeInvitation made={made} />
        <Group justify="flex-end">
          <Button onClick={onDone}>Done</Button>
        </Group>
      </Stack>
    );
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
          description="Offered when they create their account"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
        />
        <Select
          label="Role"
          data={ROLE_OPTIONS}
          value={role}
          onChange={(v) => setRole((v as Role | null) ?? 'MEMBER')}
          allowDeselect={false}
          error={fields.role}
        />
        <FormActions error={other} submit="Invite" loading={fetching} onCancel={onDone} light />
      </Stack>
    </form>
  );
}
