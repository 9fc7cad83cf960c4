import { expect } from 'chai';

// Adding a person to a workspace the way people are added (issue 52): an admin invites the email,
// the invitee opens the link and creates their account (or signs in and accepts).

/** The password the helpers give an invitee's new account. */
export const INVITEE_PASSWORD = 'an invitee password';

type Gql = (query: string, variables?: Record<string, unknown>) => Promise<any>;

/** The token of an invitation link (its last path segment). */
export function tokenOf(link: string): string {
  return decodeURIComponent(new URL(link).pathname.split('/').pop()!);
}

/** Accepts an invitation by creating the account: the raw answer (204 with the session cookie on success). */
export function acceptAsNewPerson(
  baseUrl: string,
  body: { token: string; name?: string; password?: string } | Record<string, unknown>,
): Promise<Response> {
  return fetch(`${baseUrl}/console/invitations/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(baseUrl).origin },
    body: JSON.stringify({ name: 'Invitee', password: INVITEE_PASSWORD, ...body }),
  });
}

/** The `aes_session=…` pair of a response's Set-Cookie. */
export function sessionCookieOf(res: Response): string {
  const m = /^(aes_session=[^;]+);/.exec(res.headers.get('set-cookie') ?? '');
  expect(m, `status ${res.status}`).to.not.equal(null);
  return m![1]!;
}

/**
 * Invites a new email (through the admin's `gql`) and accepts it as a new person: their member id
 * in the workspace and the console session cookie the acceptance opened.
 */
export async function inviteNewPerson(
  gql: Gql,
  baseUrl: string,
  input: { email: string; name?: string; role?: string },
): Promise<{ memberId: string; cookie: string; link: string }> {
  const made = await gql('mutation($i: InviteMemberInput!) { inviteMember(input: $i) { link } }', { i: input });
  const link: string = made.inviteMember.link;
  const res = await acceptAsNewPerson(baseUrl, { token: tokenOf(link), name: input.name ?? input.email });
  expect(res.status, await res.clone().text()).to.equal(204);
  const cookie = sessionCookieOf(res);
  const viewer = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(baseUrl).origin, cookie },
    body: JSON.stringify({ query: '{ viewer { id } }' }),
  });
  const body = (await viewer.json()) as { data: { viewer: { id: string } } };
  return { memberId: body.data.viewer.id, cookie, link };
}
