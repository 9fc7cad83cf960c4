import { Anchor, Button, Center, Divider, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { sessionInfo, signIn, ssoStartHref, type Credentials } from '../session.js';

/** Signs in with `credentials`: busy while it runs, the server's words when it refuses. */
function useSignIn(onSignedIn: () => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (credentials: Credentials) => {
    setBusy(true);
    const problem = await signIn(credentials);
    setBusy(false);
    if (problem) setError(problem);
    else onSignedIn();
  };
  return { error, setError, busy, run };
}

/** The member-token form (API and CLI people, and the token printed on the first start), behind a disclosure. */
function TokenForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [opened, setOpened] = useState(false);
  const [token, setToken] = useState('');
  const { error, setError, busy, run } = useSignIn(onSignedIn);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!token.trim()) setError('Enter a member token or the admin token');
    else void run({ token: token.trim() });
  };
  return (
    <Stack gap="xs">
      <Anchor
        component="button"
        type="button"
        size="sm"
        aria-expanded={opened}
        aria-controls="token-sign-in"
        onClick={() => setOpened((o) => !o)}
      >
        Use a member token instead
      </Anchor>
      {opened && (
        <form onSubmit={submit} noValidate id="token-sign-in">
          <Stack>
            <Text size="sm" c="dimmed">
              The admin token (ADMIN_TOKEN, or the one printed on the first start) or a member token. It is exchanged
              for a session and not kept in the browser.
            </Text>
            <PasswordInput
              label="Token"
              name="token"
              autoComplete="off"
              autoFocus
              maxLength={512}
              value={token}
              onChange={(e) => {
                setToken(e.currentTarget.value);
                setError(null);
              }}
              error={error}
              required
            />
            <Button type="submit" variant="default" loading={busy}>
              Sign in with the token
            </Button>
          </Stack>
        </form>
      )}
    </Stack>
  );
}

/** Sign-in: email and password first, single sign-on when configured, a member token behind a disclosure. */
export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sso, setSso] = useState<{ name: string } | null>(null);
  const { error, setError, busy, run } = useSignIn(onSignedIn);
  useEffect(() => {
    let live = true;
    sessionInfo().then(
      (info) => live && setSso(info.sso ? { name: info.ssoName } : null),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!email.trim() || !password) setError('Enter your email and your password');
    else void run({ email: email.trim(), password });
  };
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420}>
        <Stack>
          <Stack gap={2}>
            <Text size="sm" fw={700} c="indigo.8">
              Agent Exposure Service
            </Text>
            <Title order={1} size="h3">
              Sign in to the console
            </Title>
          </Stack>
          <form onSubmit={submit} noValidate>
            <Stack>
              <TextInput
                label="Email"
                name="email"
                type="email"
                autoComplete="username"
                autoFocus
                maxLength={320}
                value={email}
                onChange={(e) => {
                  setEmail(e.currentTarget.value);
                  setError(null);
                }}
                required
              />
              <PasswordInput
                label="Password"
                name="password"
                autoComplete="current-password"
                maxLength={1024}
                value={password}
                onChange={(e) => {
                  setPassword(e.currentTarget.value);
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
          {sso && (
            <Button component="a" variant="default" href={ssoStartHref(window.location.pathname)}>
              Sign in with {sso.name}
            </Button>
          )}
          <Divider />
          <TokenForm onSignedIn={onSignedIn} />
        </Stack>
      </Paper>
    </Center>
  );
}
