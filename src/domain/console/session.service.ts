import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Unauthenticated } from '../errors.js';
import { newId } from '../ids.js';
import { hashKey, sameHash } from '../core/key-material.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { parse } from '../validation.js';

/** A console session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;

// last_seen_at is written at most this often per session, so most requests stay a read.
const TOUCH_INTERVAL_MS = 60_000;

const signInInput = z.strictObject({
  token: z.string().trim().min(1, 'sign in with a member token or the admin token').max(512),
});

/** A new session: the cookie value is returned once; only its hash is stored. */
export interface SignedIn {
  sessionValue: string;
  principal: Principal;
}

const REFUSED =
  'This token was not recognised (or it was revoked): sign in with the admin token (ADMIN_TOKEN, or the one printed on the first start) or a member token (mt_…)';
const ENDED =
  'Your console session has ended (signed out, expired after 12 hours without use, or its member token was revoked): sign in again';

/** Console sign-in: member tokens exchanged for server-side sessions that a browser holds as a cookie. */
export class ConsoleSessionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Exchanges a member token for a new session. Anyone; throws Invalid (malformed input) or Unauthenticated (unknown or revoked token). */
  async signIn(input: unknown): Promise<SignedIn> {
    const { token } = parse(signInInput, input);
    const hash = hashKey(token);
    const r = this.store.repos;
    const found = await r.memberTokens.findByHash(hash);
    if (!found || found.revokedAt || !sameHash(found.tokenHash, hash)) throw new Unauthenticated(REFUSED);
    const member = await r.members.get(found.memberId);
    if (!member) throw new Unauthenticated(REFUSED);
    const sessionValue = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await r.consoleSessions.insert({
      id: newId('cs'),
      memberId: member.id,
      tokenId: found.id,
      sessionHash: hashKey(sessionValue),
      createdAt: now,
      lastSeenAt: now,
      revokedAt: null,
    });
    // A sign-in is a use of the token (its lastUsedAt in the member token list).
    await r.memberTokens.touch(found.id, now);
    return {
      sessionValue,
      principal: { kind: 'member', memberId: member.id, workspaceId: member.workspaceId, role: member.role },
    };
  }

  /**
   * The member a session cookie stands for. Throws Unauthenticated when the session is unknown,
   * signed out, idle for 12 hours, or its member token was revoked or deleted.
   */
  async authenticate(sessionValue: string): Promise<Principal> {
    return (await this.authenticateSession(sessionValue)).principal;
  }

  /**
   * As {@link authenticate}, with the session's id (what a console "Try it" key is bound to) and
   * its member token's (what an MCP grant approved in it is bound to).
   */
  async authenticateSession(
    sessionValue: string,
  ): Promise<{ principal: Principal; sessionId: string; tokenId: string }> {
    if (!sessionValue || sessionValue.length > 200) throw new Unauthenticated(ENDED);
    const r = this.store.repos;
    const hash = hashKey(sessionValue);
    const session = await r.consoleSessions.findByHash(hash);
    if (!session || session.revokedAt || !sameHash(session.sessionHash, hash)) throw new Unauthenticated(ENDED);
    const now = this.clock.now();
    const idle = now.getTime() - session.lastSeenAt.getTime();
    if (idle > SESSION_IDLE_MS) throw new Unauthenticated(ENDED);
    const token = await r.memberTokens.get(session.tokenId);
    if (!token || token.revokedAt) throw new Unauthenticated(ENDED);
    const member = await r.members.get(session.memberId);
    if (!member) throw new Unauthenticated(ENDED);
    if (idle > TOUCH_INTERVAL_MS) await r.consoleSessions.touch(session.id, now);
    return {
      principal: { kind: 'member', memberId: member.id, workspaceId: member.workspaceId, role: member.role },
      sessionId: session.id,
      tokenId: session.tokenId,
    };
  }

  /** Deletes the rows of sessions that ended (idle or revoked) more than 12 hours ago. Housekeeping (system). */
  async prune(): Promise<number> {
    return this.store.repos.consoleSessions.deleteEndedBefore(new Date(this.clock.now().getTime() - SESSION_IDLE_MS));
  }

  /**
   * Ends a session (sign-out) and, in the same transaction, revokes its "Try it" keys. Whoever holds
   * the cookie; an unknown or ended session is no error.
   */
  async signOut(sessionValue: string): Promise<void> {
    if (!sessionValue || sessionValue.length > 200) return;
    const session = await this.store.repos.consoleSessions.findByHash(hashKey(sessionValue));
    if (!session || session.revokedAt) return;
    const now = this.clock.now();
    await this.store.transaction(async (r) => {
      await r.consoleSessions.revoke(session.id, now);
      await r.apiKeys.revokeByConsoleSession(session.id, now);
    });
  }
}
