// Ports of sign-in the domain talks to. src/infra implements them; nothing here knows how a password
// is hashed.

/** A memory-hard password hash (argon2id in src/infra). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password or a hash it cannot read; never throws for those. */
  verify(hash: string, password: string): Promise<boolean>;
}
