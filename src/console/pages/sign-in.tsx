import { Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { signIn } from '../session.js';

/** Sign-in: a member token (or the admin token) exchanged for a session cookie. */
export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!token.trim()) {
      setError('Enter a member token or the admin token');
      return;
    }
    setBusy(true);
    const problem = await signIn(token.trim());
    setBusy(false);
    if (problem) setError(problem);
    else onSignedIn();
  };
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420}>
        <form onSubmit={submit} noValidate>
          <Stack>
            <Stack gap={2}>
              <Text size="sm" fw={700} c="indigo.8">
                Agent Exposure Service
              </Text>
              <Title order={1} size="h3">
                Sign in to the console
              </Title>
            </Stack>
            <Text size="sm" c="dimmed">
              Use the admin token (ADMIN_TOKEN, or the one printed on the first start) or a member token. It is
              exchanged for a session and not kept in the browser.
            </Text>
            <PasswordInput
              label="Token"
              name="token"
              autoComplete="off"
              autoFocus
              value={token}
              onChange={(e) => {
                setToken(e.currentTarget.value);
                setError(null);
              }}
              error={error}
              required
            />
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
