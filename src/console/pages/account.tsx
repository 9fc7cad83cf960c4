import { Badge, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation } from 'urql';
import { fieldErrors } from '../errors.js';
import { graphql } from '../graphql.js';
import { FormActions } from '../ui.js';
import { ROLE_NAMES } from '../viewer-label.js';
import { useViewer, type Viewer } from '../viewer.js';
import { PasswordForm } from './account-password.js';

const UpdateAccountMutation = graphql(`
  mutation UpdateAccount($input: UpdateAccountInput!) {
    updateAccount(input: $input) {
      id
      name
      email
      operator
      hasPassword
    }
  }
`);

/** The first start's placeholder address: the one email a person may still change (the server enforces it). */
export function isPlaceholderEmail(email: string): boolean {
  return email.toLowerCase().endsWith('@localhost');
}

function ProfileForm({ account }: { account: Viewer['account'] }) {
  const [name, setName] = useState(account.name);
  const [email, setEmail] = useState(account.email);
  const [saved, setSaved] = useState(false);
  const [{ fetching, error }, save] = useMutation(UpdateAccountMutation);
  const { fields, other } = fieldErrors(error);
  const editableEmail = isPlaceholderEmail(account.email);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const input = editableEmail ? { name: name.trim(), email: email.trim() } : { name: name.trim() };
    const result = await save({ input });
    if (!result.error) setSaved(true);
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Your profile">
      <Stack gap="sm" maw={420}>
        <TextInput
          label="Name"
          autoComplete="name"
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
          required
        />
        <TextInput
          label="Email"
          type="email"
          autoComplete="email"
          maxLength={320}
          value={email}
          readOnly={!editableEmail}
          description={
            editableEmail
              ? 'The first start’s placeholder: set your own address (once set, it cannot be changed here)'
              : 'Your sign-in and invitations go to this address; it cannot be changed here'
          }
          onChange={(e) => setEmail(e.currentTarget.value)}
          error={fields.email}
        />
        <FormActions error={other} submit="Save profile" loading={fetching} saved={saved} />
      </Stack>
    </form>
  );
}

function Memberships({ viewer }: { viewer: Viewer }) {
  return (
    <Table.ScrollContainer minWidth={360}>
      <Table striped aria-label="Your workspaces">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Workspace</Table.Th>
            <Table.Th scope="col">Slug</Table.Th>
            <Table.Th scope="col">Your role</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {viewer.workspaces.map((w) => (
            <Table.Tr key={w.workspace.id}>
              <Table.Td>
                {w.workspace.name}{' '}
                {w.current ? (
                  <Badge size="sm" variant="outline" color="dark.4">
                    current
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td ff="monospace">{w.workspace.slug}</Table.Td>
              <Table.Td>{ROLE_NAMES[w.role]}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The person's own account: profile, password, and their workspaces with a role in each. */
export function AccountPage() {
  const viewer = useViewer();
  const section = (label: string, children: ReactNode) => (
    <Paper withBorder p="md" component="section" aria-label={label}>
      <Stack gap="sm">
        <Title order={3} size="h4">
          {label}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
  return (
    <Stack>
      <Title order={2}>Your account</Title>
      {section('Profile', <ProfileForm account={viewer.account} />)}
      {section('Password', <PasswordForm hasPassword={viewer.account.hasPassword} />)}
      {section('Workspaces', <Memberships viewer={viewer} />)}
    </Stack>
  );
}
