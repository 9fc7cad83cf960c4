// Sign-in and sign-out: an email and password (or a member token) exchanged for an HttpOnly
// session cookie; the console never stores a password or a token itself.

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

/** What `GET /console/session` says: whether the browser holds a live session, and how people may sign in. */
export interface SessionInfo {
  signedIn: boolean;
  /** Whether single sign-on is configured (an older service omits it: false). */
  sso: boolean;
  /** The sign-on button's name for the provider. */
  ssoName: string;
  /** Whether the session was opened with a member token (it stays in that token's workspace). */
  memberToken: boolean;
}

/** Asks the service about the browser's session (before the first query: a signed-out start makes no failing request). */
export async function sessionInfo(): Promise<SessionInfo> {
  const res = await fetch('/console/session', { credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) throw new Error(`The service answered ${res.status}`);
  const body = (await res.json()) as Record<string, unknown>;
  const ssoName = typeof body.ssoName === 'string' && body.ssoName.trim() ? body.ssoName.trim() : 'single sign-on';
  return {
    signedIn: body.signedIn === true,
    sso: body.sso === true,
    ssoName,
    memberToken: body.memberToken === true,
  };
}

/** Where the single sign-on button goes: the provider, and back to this page of the console. */
export function ssoStartHref(pathname: string): string {
  const back = pathname.startsWith('/console') ? pathname : '/console';
  return `/console/sso/start?return=${encodeURIComponent(back)}`;
}
