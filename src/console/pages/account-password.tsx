import { PasswordInput, Stack, Text } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { fieldErrors } from '../errors.js';
import { graphql } from '../graphql.js';
import { FormActions } from '../ui.js';

const SetPasswordMutation = graphql(`
  mutation SetPassword($input: SetPasswordInput!) {
    setPassword(input: $input)
  }
`);

/** The service's bounds (src/domain/accounts): checked here too, so a person hears it before sending. */
const MIN_PASSWORD = 10;
const MAX_PASSWORD = 256;

/** Sets or changes the person's password: the current one is asked for once one is set. */
export function PasswordForm({ hasPassword }: { hasPassword: boolean }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [tooShort, setTooShort] = useState(false);
  const [saved, setSaved] = useState(false);
  // The answer is a Boolean: the viewer (whose account says whether it has a password) is refetched by name.
  const context = useMemo(() => ({ additionalTypenames: ['Account'] }), []);
  const [{ fetching, error }, save] = useMutation(SetPasswordMutation);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    if (next.length < MIN_PASSWORD) {
      setTooShort(true);
      return;
    }
    const result = await save({ input: { newPassword: next, currentPassword: hasPassword ? current : null } }, context);
    if (!result.error) {
      setSaved(true);
      setCurrent('');
      setNext('');
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-label={hasPassword ? 'Change your password' : 'Set a password'}>
      <Stack gap="sm" maw={420}>
        <Text size="sm" c="dimmed">
          {hasPassword
            ? 'You sign in with your email and this password.'
            : 'Set a password to sign in with your email instead of a token.'}
        </Text>
        {hasPassword ? (
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            maxLength={MAX_PASSWORD}
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            error={fields.currentPassword}
            required
          />
        ) : null}
        <PasswordInput
          label="New password"
          description={`At least ${MIN_PASSWORD} characters`}
          autoComplete="new-password"
          maxLength={MAX_PASSWORD}
          value={next}
          onChange={(e) => {
            setNext(e.currentTarget.value);
            setTooShort(false);
          }}
          error={tooShort ? `At least ${MIN_PASSWORD} characters` : fields.newPassword}
          required
        />
        <FormActions
          error={other}
          submit={hasPassword ? 'Change password' : 'Set password'}
          loading={fetching}
          saved={saved}
        />
      </Stack>
    </form>
  );
}
