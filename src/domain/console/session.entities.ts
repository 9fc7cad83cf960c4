// Entities of console sign-in as the domain sees them. Repositories map rows to these explicitly.

/** A console sign-in (a member token, a password or SSO) held as a cookie; only the cookie value's hash is kept. */
export interface ConsoleSession {
  id: string;
  /** The membership it acts as now: a password or SSO session switches it between the account's workspaces. */
  memberId: string;
  accountId: string;
  /**
   * The member token it was made from (the session ends when that token is revoked or deleted), or
   * null for a password or SSO sign-in.
   */
  tokenId: string | null;
  /** How it was opened: a member token, a password, or single sign-on. */
  method: 'token' | 'password' | 'sso';
  sessionHash: string;
  createdAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
}
