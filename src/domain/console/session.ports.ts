import type { ConsoleSession } from './session.entities.js';

// Ports of console sign-in the domain talks to. src/infra implements them; nothing here knows about
// SQL.

export interface ConsoleSessionRepo {
  insert(s: ConsoleSession): Promise<ConsoleSession>;
  findByHash(hash: string): Promise<ConsoleSession | null>;
  get(id: string): Promise<ConsoleSession | null>;
  /** Moves the session to another membership of its account (the workspace switcher). */
  setMember(id: string, memberId: string): Promise<void>;
  touch(id: string, at: Date): Promise<void>;
  revoke(id: string, at: Date): Promise<void>;
  /** Revokes every live session made from one member token; returns how many. */
  revokeByToken(tokenId: string, at: Date): Promise<number>;
  /** Deletes sessions last used, or revoked, before `before`; returns how many. */
  deleteEndedBefore(before: Date): Promise<number>;
}
