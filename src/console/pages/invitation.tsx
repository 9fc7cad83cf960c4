import { Alert, Button, Center, Loader, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { createClient } from '../client.js';
import { messageOf } from '../errors.js';
import { graphql } from '../graphql.js';
import { sessionInfo, signOut } from '../session.js';

// The page an invitation's link opens (/console/invitations/<token>), before or after sign-in. A new
// email creates its account here; an email that has an account signs in first, then accepts. The
// link alone never signs anyone in as an existing account.

interface Preview {
  workspace: string;
  email: string;
  name: string | null;
  role: 'ADMIN' | 'MEMBER' | 'VIEWER';
  expiresAt: string;
  expired: boolean;
  hasAccount: boolean;
}

type State =
  { kind: 'loading' } | { kind: 'unusable'; message: string } | { kind: 'ready'; preview: Preview; signedIn: boolean };

const ROLE = { ADMIN: 'an admin', MEMBER: 'a member', VIEWER: 'a viewer (read-only)' } as const;

async function errorOf(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: string } | null;
  return body?.error ?? `The service answered ${res.status}`;
}

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
}

const AcceptInvitationMutation = graphql(`
  mutation AcceptInvitation($token: String!) {
    acceptInvitation(token: $token) {
      workspace {
        id
      }
    }
  }
`);

const OpenWorkspaceMutation = graphql(`
  mutation OpenWorkspace($workspace: String!) {
    switchWorkspace(workspace: $workspace) {
      id
    }
  }
`);

/** Accepts as the signed-in person and opens that workspace; resolves to an error message, or null. */
async function acceptSignedIn(token: string): Promise<string | null> {
  const client = createClient();
  const accepted = await client.mutation(AcceptInvitationMutation, { token }).toPromise();
  const id = accepted.data?.acceptInvitation.workspace.id;
  if (!id) return accepted.error ? messageOf(accepted.error) : 'The invitation could not be accepted. Try again.';
  await client.mutation(OpenWorkspaceMutation, { workspace: id }).toPromise();
  return null;
}

function Frame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={460}>
        <Stack>
          <Stack gap={2}>
            <Text size="sm" fw={700} c="indigo.8">
              Agent Exposure Service
            </Text>
            <Title order={1} size="h3">
              {title}
            </Title>
          </Stack>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}

/** The invitation page: what the link is for, and the way to accept it that fits the person. */
export function InvitationPage({ token }: { token: string }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  useEffect(() => {
    void (async () => {
      try {
        const res = await fetch(`/console/invitation?token=${encodeURIComponent(token)}`, { cache: 'no-store' });
        if (!res.ok) return setState({ kind: 'unusable', message: await errorOf(res) });
        const preview = (await res.json()) as Preview;
        setName(preview.name ?? '');
        setState({ kind: 'ready', preview, signedIn: (await sessionInfo()).signedIn });
      } catch {
        setState({ kind: 'unusable', message: 'The service could not be reached. Is it running?' });
      }
    })();
  }, [token]);
  if (state.kind === 'loading')
    return (
      <Center h="100vh">
        <Loader aria-label="Loading the invitation" />
      </Center>
    );
  if (state.kind === 'unusable')
    return (
      <Frame title="This invitation cannot be used">
        <Alert color="red.8" role="alert">
          {state.message}
        </Alert>
      </Frame>
    );
  const { preview, signedIn } = state;
  const title = `Join ${preview.workspace}`;
  const what = (
    <Text size="sm">
      You are invited to the workspace <b>{preview.workspace}</b> as {ROLE[preview.role]}, with the email{' '}
      <b>{preview.email}</b>.
    </Text>
  );
  if (preview.expired)
    return (
      <Frame title={title}>
        {what}
        <Alert color="red.8" role="alert">
          This invitation expired on {new Date(preview.expiresAt).toUTCString()}: ask an admin of the workspace to
          invite you again.
        </Alert>
      </Frame>
    );
  const run = async (work: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    const problem = await work().catch(() => 'The service could not be reached. Try again.');
    setBusy(false);
    if (problem) setError(problem);
    else window.location.assign('/console');
  };
  const problem = error ? (
    <Alert color="red.8" role="alert">
      {error}
    </Alert>
  ) : null;
  if (signedIn)
    return (
      <Frame title={title}>
        {what}
        {problem}
        <Button loading={busy} onClick={() => run(() => acceptSignedIn(token))}>
          Accept the invitation
        </Button>
        <Button variant="default" onClick={() => void signOut().then(() => window.location.reload())}>
          Sign out to accept as someone else
        </Button>
      </Frame>
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (!preview.hasAccount) {
        const res = await post('/console/invitations/accept', { token, name, password });
        return res.ok ? null : errorOf(res);
      }
      // The account's password proves who they are (they may belong to no workspace to sign in to yet).
      const res = await post('/console/invitations/accept', { token, password });
      return res.ok ? null : errorOf(res);
    });
  };
  return (
    <Frame title={title}>
      {what}
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm" fw={600}>
            {preview.hasAccount ? 'Sign in to accept' : 'Create your account'}
          </Text>
          <TextInput label="Email" value={preview.email} readOnly />
          {preview.hasAccount ? null : (
            <TextInput
              label="Your name"
              required
              autoComplete="name"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
          )}
          <PasswordInput
            label="Password"
            description={preview.hasAccount ? undefined : 'At least 10 characters'}
            required
            autoComplete={preview.hasAccount ? 'current-password' : 'new-password'}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          {problem}
          <Button type="submit" loading={busy}>
            {preview.hasAccount ? 'Sign in and accept' : 'Create account and join'}
          </Button>
        </Stack>
      </form>
    </Frame>
  );
}
