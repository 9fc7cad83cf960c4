import type { Role } from '../principal.js';

// Invitations as the domain sees them. Repositories map rows to these explicitly.

/** An invitation of an email to a workspace with a role; only the hash of its link's token is stored. */
export interface Invitation {
  id: string;
  workspaceId: string;
  /** Lower-case; accepting needs an account with this email. */
  email: string;
  /** The name the admin gave, offered on the page that creates the account. */
  name: string | null;
  role: Role;
  tokenHash: string;
  /** The admin's member id (null once they left the workspace). */
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  /** Set when an admin revoked it or a newer invitation of the same email replaced it. */
  revokedAt: Date | null;
}
