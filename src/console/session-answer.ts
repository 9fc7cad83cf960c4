// A .ts module without browser types (as viewer-label.ts), so the unit tests can import it.

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

/** Reads the answer of `GET /console/session`, each field absent or malformed taken as false. */
export function readSessionAnswer(body: unknown): SessionInfo {
  const b = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const name = typeof b.ssoName === 'string' ? b.ssoName.trim().slice(0, 100) : '';
  return {
    signedIn: b.signedIn === true,
    sso: b.sso === true,
    ssoName: name || 'single sign-on',
    memberToken: b.memberToken === true,
  };
}

/** Where the single sign-on button goes: the provider, and back to this page of the console. */
export function ssoStartHref(pathname: string): string {
  const back = pathname.startsWith('/console') ? pathname : '/console';
  return `/console/sso/start?return=${encodeURIComponent(back)}`;
}
