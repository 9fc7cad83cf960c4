// Entities of console sign-in as the domain sees them. Repositories map rows to these explicitly.

/** A console sign-in: a member token exchanged for a cookie; only the cookie value's hash is kept. */
export interface ConsoleSession {
  id: string;
  memberId: string;
  /** The member token it was made from: the session ends when that token is revoked or deleted. */
  tokenId: string;
  sessionHash: string;
  createdAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
}
