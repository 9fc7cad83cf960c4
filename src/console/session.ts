// Sign-in and sign-out: an email and password (or a member token) exchanged for an HttpOnly
// session cookie; the console never stores a password or a token itself.

import { readSessionAnswer, type SessionInfo } from './session-answer.js';

export { ssoStartHref, type SessionInfo } from './session-answer.js';

/** What the console signs in with: a person's email and password, or a member token. */
export type Credentials = { email: string; password: string } | { token: string };

/** Exchanges credentials for a session cookie; resolves to the server's error message, or null on success. */
export async function signIn(credentials: Credentials): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch('/console/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(credentials),
      credentials: 'same-origin',
    });
  } catch {
    return 'The service could not be reached. Is it running?';
  }
  if (res.ok) return null;
  const body = (await res.json().catch(() => null)) as { error?: string } | null;
  return body?.error ?? `Sign-in failed (HTTP ${res.status})`;
}

/** Ends the session on the server and clears its cookie. */
export async function signOut(): Promise<void> {
  await fetch('/console/session', { method: 'DELETE', credentials: 'same-origin' }).catch(() => undefined);
}

/** Asks the service about the browser's session (before the first query: a signed-out start makes no failing request). */
export async function sessionInfo(): Promise<SessionInfo> {
  const res = await fetch('/console/session', { credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) throw new Error(`The service answered ${res.status}`);
  return readSessionAnswer(await res.json());
}
