import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Forbidden, NotFound, Unauthenticated } from '../errors.js';
import { newId } from '../ids.js';
import { hashKey, sameHash } from '../core/key-material.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { AccountService } from '../accounts/account.service.js';
import type { Member } from '../workspace/workspace.entities.js';
import type { ConsoleSession } from './session.entities.js';
import { parse } from '../validation.js';

/** A console session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;

// last_seen_at is written at most this often per session, so most requests stay a read.
const TOUCH_INTERVAL_MS = 60_000;

const tokenSignIn = z.strictObject({
  token: z.string().trim().min(1, 'sign in with a member token or the admin token').max(512),
});

/** `workspace`: the id or slug to open (default: the one used last). */
const passwordSignIn = z.strictObject({
  email: z.string().max(320),
  password: z.string().max(1024),
  workspace: z.string().trim().max(100).nullish(),
});

const signInInput = z.union([tokenSignIn, passwordSignIn], {
  error: 'sign in with {"email", "password"} or {"token": "<member token>"}',
});

/** How a session was opened: its member token's workspace is fixed, a person's sign-in may switch. */
export type SignInMethod = ConsoleSession['method'];

/**
 * Decides which of an account's memberships a sign-in opens, or refuses it: the login settings of
 * the workspaces (SSO required, allowed domains) plug in here. Default: every membership may open.
 */
export interface SignInRules {
  allows(member: Member, method: SignInMethod): Promise<boolean>;
}

const ANY_METHOD: SignInRules = { allows: async () => true };

/** A new session: the cookie value is returned once; only its hash is stored. */
export interface SignedIn {
  sessionValue: string;
  principal: Principal;
}

const REFUSED =
  'This token was not recognised (or it was revoked): sign in with the admin token (ADMIN_TOKEN, or the one printed on the first start) or a member token (mt_…)';
const NO_WORKSPACE =
  'You are not a member of any workspace you can sign in to this way: ask an admin for an invitation, or sign in with single sign-on';
const SWITCH_IN_CONSOLE = 'Switching workspaces is for console sessions: a member token belongs to one workspace';
const TOKEN_SESSION_FIXED =
  'This console session was opened with a member token, which belongs to one workspace: sign in with your email to switch';
const SSO_ONLY =
  'This workspace requires single sign-on to open the console: sign in with SSO (member tokens still work for the API and the CLI)';
const ENDED =
  'Your console session has ended (signed out, expired after 12 hours without use, or its member token was revoked): sign in again';

/** Console sign-in: member tokens exchanged for server-side sessions that a browser holds as a cookie. */
export class ConsoleSessionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly accounts: AccountService,
    private readonly rules: SignInRules = ANY_METHOD,
  ) {}

  /**
   * Opens a new session from a member token (its workspace only) or an email and password (any of
   * the person's workspaces; the one named, else the one used last). Anyone; throws Invalid
   * (malformed input) or Unauthenticated (unknown or revoked token, wrong email or password).
   */
  async signIn(input: unknown): Promise<SignedIn> {
    const v = parse(signInInput, input);
    if (!('token' in v)) {
      const account = await this.accounts.verifyPassword(v.email, v.password);
      return this.openForAccount(account.id, 'password', v.workspace ?? null);
    }
    const token = v.token;
    const hash = hashKey(token);
    const r = this.store.repos;
    const found = await r.memberTokens.findByHash(hash);
    if (!found || found.revokedAt || !sameHash(found.tokenHash, hash)) throw new Unauthenticated(REFUSED);
    const member = await r.members.get(found.memberId);
    if (!member) throw new Unauthenticated(REFUSED);
    if (!(await this.rules.allows(member, 'token'))) throw new Forbidden(SSO_ONLY);
    const sessionValue = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await r.consoleSessions.insert({
      id: newId('cs'),
      memberId: member.id,
      accountId: member.accountId,
      tokenId: found.id,
      method: 'token',
      sessionHash: hashKey(sessionValue),
      createdAt: now,
      lastSeenAt: now,
      revokedAt: null,
    });
    // A sign-in is a use of the token (its lastUsedAt in the member token list).
    await r.memberTokens.touch(found.id, now);
    return { sessionValue, principal: principalOf(member) };
  }

  /**
   * Opens a session for a person who proved who they are (a password, or single sign-on), in the
   * workspace named (id or slug) or else the one they used last, or else their first. Unauthenticated
   * when they belong to no workspace their sign-in method may open.
   */
  async openForAccount(accountId: string, method: SignInMethod, workspace: string | null): Promise<SignedIn> {
    const member = await this.chooseMembership(accountId, method, workspace);
    const r = this.store.repos;
    const sessionValue = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await r.consoleSessions.insert({
      id: newId('cs'),
      memberId: member.id,
      accountId,
      tokenId: null,
      method,
      sessionHash: hashKey(sessionValue),
      createdAt: now,
      lastSeenAt: now,
      revokedAt: null,
    });
    await r.accounts.setLastWorkspace(accountId, member.workspaceId);
    return { sessionValue, principal: principalOf(member) };
  }

  /**
   * Moves a person's session to another of their workspaces (the console's switcher) and remembers
   * it for the next sign-in. A session opened with a member token stays in that token's workspace.
   */
  async switchWorkspace(sessionId: string | undefined, workspace: string): Promise<Principal> {
    if (!sessionId) throw new Forbidden(SWITCH_IN_CONSOLE);
    const r = this.store.repos;
    const session = await r.consoleSessions.get(sessionId);
    if (!session || session.revokedAt) throw new Unauthenticated(ENDED);
    if (session.tokenId) throw new Forbidden(TOKEN_SESSION_FIXED);
    const target = await this.findWorkspace(workspace);
    const member = target ? await r.members.findByAccount(target.id, session.accountId) : null;
    if (!member) throw new NotFound('Workspace', workspace);
    if (!(await this.rules.allows(member, session.method)))
      throw new Forbidden(`The workspace '${workspace}' requires single sign-on: sign out and sign in with SSO`);
    await r.consoleSessions.setMember(session.id, member.id);
    await r.accounts.setLastWorkspace(session.accountId, member.workspaceId);
    return principalOf(member);
  }

  private async chooseMembership(accountId: string, method: SignInMethod, workspace: string | null): Promise<Member> {
    const r = this.store.repos;
    const account = await r.accounts.get(accountId);
    if (!account) throw new Unauthenticated(NO_WORKSPACE);
    const open: Member[] = [];
    for (const m of await r.members.listByAccount(accountId)) if (await this.rules.allows(m, method)) open.push(m);
    if (workspace) {
      const ws = await this.findWorkspace(workspace);
      const named = ws ? open.find((m) => m.workspaceId === ws.id) : undefined;
      if (!named)
        throw new Unauthenticated(
          `You cannot sign in to the workspace '${workspace}' this way, or you are not a member of it`,
        );
      return named;
    }
    const chosen = open.find((m) => m.workspaceId === account.lastWorkspaceId) ?? open[0];
    if (!chosen) throw new Unauthenticated(NO_WORKSPACE);
    return chosen;
  }

  private async findWorkspace(idOrSlug: string) {
    const r = this.store.repos;
    return (await r.workspaces.get(idOrSlug)) ?? (await r.workspaces.findBySlug(idOrSlug));
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
  ): Promise<{ principal: Principal; sessionId: string; tokenId: string | null }> {
    if (!sessionValue || sessionValue.length > 200) throw new Unauthenticated(ENDED);
    const r = this.store.repos;
    const hash = hashKey(sessionValue);
    const session = await r.consoleSessions.findByHash(hash);
    if (!session || session.revokedAt || !sameHash(session.sessionHash, hash)) throw new Unauthenticated(ENDED);
    const now = this.clock.now();
    const idle = now.getTime() - session.lastSeenAt.getTime();
    if (idle > SESSION_IDLE_MS) throw new Unauthenticated(ENDED);
    if (session.tokenId) {
      const token = await r.memberTokens.get(session.tokenId);
      if (!token || token.revokedAt) throw new Unauthenticated(ENDED);
    }
    const member = await r.members.get(session.memberId);
    if (!member) throw new Unauthenticated(ENDED);
    if (idle > TOUCH_INTERVAL_MS) await r.consoleSessions.touch(session.id, now);
    return {
      principal: principalOf(member),
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

function principalOf(member: Member): Principal {
  return { kind: 'member', memberId: member.id, workspaceId: member.workspaceId, role: member.role };
}
