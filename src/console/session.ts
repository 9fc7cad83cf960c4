// Sign-in and sign-out: the member token is exchanged for an HttpOnly session cookie; the console
// never stores the token itself.

/** Exchanges a member token for a session cookie; resolves to an error message, or null on success. */
export async function signIn(token: string): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch('/console/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
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

/** Whether the browser holds a live session (asked before the first query: a signed-out start makes no failing request). */
export async function hasSession(): Promise<boolean> {
  const res = await fetch('/console/session', { credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) throw new Error(`The service answered ${res.status}`);
  return ((await res.json()) as { signedIn?: boolean }).signedIn === true;
}
