import { Anchor, Text } from '@mantine/core';
import { hrefOf, linkClick } from '../router.js';
import { useViewer } from '../viewer.js';
import { isPlaceholderEmail } from './account.js';

const ACCOUNT = { page: 'account' } as const;

/**
 * The first start's admin (a placeholder `@localhost` email, no password) can sign in only with the
 * printed token: one line pointing them to the account page, until they have a password.
 */
export function FirstStartNotice() {
  const { account } = useViewer();
  if (account.hasPassword || !isPlaceholderEmail(account.email)) return null;
  return (
    <Text size="sm" role="note" data-testid="first-start-notice">
      <Anchor href={hrefOf(ACCOUNT)} onClick={linkClick(ACCOUNT)}>
        Set your email and a password so you can sign in without the token
      </Anchor>
    </Text>
  );
}
