import type { Invitation } from './invitation.entities.js';

// Ports of sign-in the domain talks to. src/infra implements them; nothing here knows how a password
// is hashed.

/** A memory-hard password hash (argon2id in src/infra). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password or a hash it cannot read; never throws for those. */
  verify(hash: string, password: string): Promise<boolean>;
}

/** Storage of invitations. */
export interface InvitationRepo {
  insert(e: Invitation): Promise<Invitation>;
  get(id: string): Promise<Invitation | null>;
  findByHash(hash: string): Promise<Invitation | null>;
  /** The workspace's invitations neither accepted nor revoked nor expired at `now`, newest first. */
  listPending(workspaceId: string, now: Date): Promise<Invitation[]>;
  /** Revokes the workspace's invitations of `email` (case-insensitive) not accepted yet; how many. */
  revokeOpen(workspaceId: string, email: string, at: Date): Promise<number>;
  /** Marks it accepted if it is still open (neither accepted nor revoked); false if it was not. */
  markAccepted(id: string, at: Date): Promise<boolean>;
  revoke(id: string, at: Date): Promise<boolean>;
}
