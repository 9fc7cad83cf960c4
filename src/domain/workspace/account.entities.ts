// Entities of people and their sign-in as the domain sees them. Repositories map rows to these
// explicitly.

/** A person: one per email across the deployment, with a membership (Member) in each workspace. */
export interface Account {
  id: string;
  /** Unique across the deployment, compared case-insensitively. */
  email: string;
  name: string;
  /** An argon2id hash (PHC string), or null for a person who signs in only by SSO or member token. */
  passwordHash: string | null;
  /** Set for the deployment's first person; OPERATOR_EMAILS names more. */
  operator: boolean;
  /** Where the console opens after sign-in. */
  lastWorkspaceId: string | null;
  /** Wrong passwords in a row; the account is locked for a while after too many. */
  failedSignIns: number;
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
