import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../domain/accounts/account.ports.js';

/**
 * Passwords hashed with argon2id at OWASP's first recommended setting (19 MiB, 2 passes, 1 lane):
 * about 20–40 ms of one core per hash here, off the event loop (the library runs it on its own thread).
 */
// `algorithm: 2` is Argon2id (the package's enum is a `const enum`, which isolated modules cannot read).
export const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const argon2Passwords: PasswordHasher = {
  hash: (password) => hash(password, ARGON2_OPTIONS),
  verify: async (stored, password) => {
    try {
      return await verify(stored, password);
    } catch {
      return false;
    }
  },
};
