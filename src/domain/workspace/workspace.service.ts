import { z } from 'zod';
import type { Clock } from '../clock.js';
import { Conflict, Forbidden, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import { describeChosenToken, generateKey, type NewKey } from '../core/key-material.js';
import {
  TOKEN_SCOPES,
  type Member,
  type MemberToken,
  type Team,
  type TokenScope,
  type Workspace,
} from './workspace.entities.js';
import { requireAdmin, requireMember } from '../policy.js';
import type { Principal } from '../principal.js';
import { ROLES } from '../principal.js';
import type { Repositories, Store } from '../ports.js';
import { nonEmpty, parse } from '../validation.js';
import { applySettings, settingsPatch } from './settings.js';
import { createWorkspaceRow, ensureAccount } from './workspace-rows.js';

const creditLimit = z.number().nonnegative('must be zero or more').max(1e12).nullable();

const scopeInput = z.enum(TOKEN_SCOPES, { error: 'WORKSPACE or PERSON' }).default('WORKSPACE');

export interface BootstrapResult {
  workspace: Workspace;
  admin: Member;
  /** Present when a token was generated on this start: print it once. */
  generatedToken?: string;
  /**
   * True when no ADMIN_TOKEN is set and the admin's only credential is the token generated on an
   * earlier first start, never used since: perhaps it was never seen (that start failed before
   * printing it, or its output was lost). The start then says how to get in with ADMIN_TOKEN.
   */
  generatedTokenUnused: boolean;
  created: boolean;
}

/** Workspace-level use cases: the workspace itself, teams, members and their tokens. */
export class WorkspaceService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * First start on an empty database: creates the default workspace and an admin member. With
   * `adminToken` that value becomes the admin's token (kept in sync on later starts) and the token
   * generated on an earlier start, if any, is revoked; otherwise a token is generated on the first
   * start only and returned once.
   */
  async bootstrap(opts: { adminToken?: string }): Promise<BootstrapResult> {
    return this.store.transaction(async (r) => {
      const now = this.clock.now();
      let workspace = await r.workspaces.first();
      let created = false;
      let admin: Member | null = null;
      if (!workspace) {
        created = true;
        workspace = await createWorkspaceRow(r, { name: 'Default workspace', slug: 'default' }, now);
        const account = await ensureAccount(r, { email: 'admin@localhost', name: 'Admin' }, now);
        admin = await r.members.insert({
          id: newId('mem'),
          workspaceId: workspace.id,
          accountId: account.id,
          email: account.email,
          name: account.name,
          role: 'ADMIN',
          createdAt: now,
        });
      } else {
        admin = (await r.members.listByWorkspace(workspace.id)).find((m) => m.role === 'ADMIN') ?? null;
        if (!admin) throw new NotFound('Admin member');
      }
      let generatedToken: string | undefined;
      if (opts.adminToken) {
        const k = describeChosenToken(opts.adminToken);
        const existing = await r.memberTokens.findByName(admin.id, 'ADMIN_TOKEN');
        // A row stored before only the last 4 characters were shown is stored again the same way.
        if (!existing || existing.tokenHash !== k.hash || existing.prefix !== k.prefix) {
          // The old token's console sessions go with its row; their "Try it" keys end first.
          if (existing) await r.apiKeys.revokeByTokenSessions(existing.id, now);
          // So do the MCP grants approved in those sessions, as when a token is revoked.
          if (existing) await r.mcpGrants.deleteByMemberToken(existing.id);
          if (existing) await r.memberTokens.delete(existing.id);
          await storeToken(r, admin.id, 'ADMIN_TOKEN', k, now);
        }
        // Once ADMIN_TOKEN is configured it is the one bootstrap credential: the token generated
        // and printed on a first start without it stops working (revoked, so the list shows why).
        const generated = await r.memberTokens.findByName(admin.id, GENERATED_TOKEN_NAME);
        if (generated && !generated.revokedAt) {
          await r.memberTokens.revoke(generated.id, now);
          await r.apiKeys.revokeByTokenSessions(generated.id, now);
          await r.mcpGrants.deleteByMemberToken(generated.id);
        }
      } else if (created) {
        const k = generateKey('mt');
        await storeToken(r, admin.id, GENERATED_TOKEN_NAME, k, now);
        generatedToken = k.plaintext;
      }
      let generatedTokenUnused = false;
      if (!opts.adminToken && !created) {
        const live = (await r.memberTokens.listByMember(admin.id)).filter((t) => !t.revokedAt);
        generatedTokenUnused =
          live.length === 1 && live[0]!.name === GENERATED_TOKEN_NAME && live[0]!.lastUsedAt === null;
      }
      return { workspace, admin, generatedToken, generatedTokenUnused, created };
    });
  }

  /** The acting member. Members only. */
  async viewer(p: Principal): Promise<Member> {
    const m = requireMember(p);
    const member = await this.store.repos.members.get(m.memberId);
    if (!member) throw new NotFound('Member', m.memberId);
    return member;
  }

  /** The principal's workspace. */
  async workspace(p: Principal): Promise<Workspace> {
    const ws = await this.store.repos.workspaces.get(p.workspaceId);
    if (!ws) throw new NotFound('Workspace', p.workspaceId);
    return ws;
  }

  /** Updates the overview groups (feature flags, credit defaults, …). Admins only. */
  async updateSettings(p: Principal, input: unknown): Promise<Workspace> {
    requireAdmin(p);
    const patch = parse(settingsPatch, input, 'input');
    return this.store.transaction(async (r) => {
      const ws = await r.workspaces.get(p.workspaceId);
      if (!ws) throw new NotFound('Workspace', p.workspaceId);
      const now = this.clock.now();
      return r.workspaces.update({ ...ws, settings: applySettings(ws.settings, patch, now), updatedAt: now });
    });
  }

  /** Sets the workspace daily credit limit (null removes it). Admins only. */
  async setWorkspaceLimits(p: Principal, dailyCreditLimit: unknown): Promise<Workspace> {
    requireAdmin(p);
    const limit = parse(creditLimit, dailyCreditLimit ?? null, 'dailyCreditLimit');
    return this.store.transaction(async (r) => {
      const ws = await r.workspaces.get(p.workspaceId);
      if (!ws) throw new NotFound('Workspace', p.workspaceId);
      return r.workspaces.update({ ...ws, dailyCreditLimit: limit, updatedAt: this.clock.now() });
    });
  }

  /** Teams of the workspace. Members only. */
  async teams(p: Principal): Promise<Team[]> {
    requireMember(p);
    return this.store.repos.teams.listByWorkspace(p.workspaceId);
  }

  /** Creates a team. Admins only. */
  async createTeam(p: Principal, input: { name: unknown; dailyCreditLimit?: unknown }): Promise<Team> {
    requireAdmin(p);
    const name = parse(nonEmpty(200), input.name, 'name');
    const limit = parse(creditLimit, input.dailyCreditLimit ?? null, 'dailyCreditLimit');
    return this.store.repos.teams.insert({
      id: newId('team'),
      workspaceId: p.workspaceId,
      name,
      dailyCreditLimit: limit,
      createdAt: this.clock.now(),
    });
  }

  /** Sets a team's daily credit limit. Admins only. */
  async setTeamLimits(p: Principal, teamId: string, dailyCreditLimit: unknown): Promise<Team> {
    requireAdmin(p);
    const limit = parse(creditLimit, dailyCreditLimit ?? null, 'dailyCreditLimit');
    return this.store.transaction(async (r) => {
      const team = await r.teams.get(teamId);
      if (!team || team.workspaceId !== p.workspaceId) throw new NotFound('Team', teamId);
      return r.teams.update({ ...team, dailyCreditLimit: limit });
    });
  }

  /** Members of the workspace. Members only. */
  async members(p: Principal): Promise<Member[]> {
    requireMember(p);
    return this.store.repos.members.listByWorkspace(p.workspaceId);
  }

  /**
   * Issues a personal GraphQL token for a member (the plaintext only here), scoped to this workspace
   * (WORKSPACE, the default) or to the person (PERSON: only for yourself, an admin does not hand out
   * someone's other workspaces). Admins may issue WORKSPACE tokens for anyone; a member for themself.
   */
  async createMemberToken(
    p: Principal,
    memberId: string,
    name: unknown,
    scope?: unknown,
  ): Promise<Pick<MemberToken, 'id' | 'memberId' | 'prefix' | 'last4' | 'scope'> & { token: string }> {
    const actor = requireMember(p);
    const tokenScope = parse(scopeInput, scope ?? undefined, 'scope');
    if (memberId !== actor.memberId) {
      requireAdmin(p);
      if (tokenScope === 'PERSON')
        throw new Forbidden('A PERSON token is made only by its person for themself: ask them to make it');
    }
    const tokenName = parse(nonEmpty(100), name ?? 'token', 'name');
    const member = await this.store.repos.members.get(memberId);
    if (!member || member.workspaceId !== p.workspaceId) throw new NotFound('Member', memberId);
    const k = generateKey('mt');
    const stored = await storeToken(this.store.repos, memberId, tokenName, k, this.clock.now(), tokenScope);
    return { token: k.plaintext, id: stored.id, memberId, prefix: k.prefix, last4: k.last4, scope: stored.scope };
  }

  /** A member's tokens (never the tokens themselves). Admins for anyone, a member for themself. */
  async memberTokens(p: Principal, memberId: string): Promise<MemberToken[]> {
    await this.tokenOwner(p, memberId);
    return this.store.repos.memberTokens.listByMember(memberId);
  }

  /**
   * Revokes a member token with immediate effect: its console sessions and their "Try it" keys end,
   * and so do the MCP grants (OAuth clients) approved through them. Admins for anyone, a member
   * for their own.
   */
  async revokeMemberToken(p: Principal, tokenId: string): Promise<boolean> {
    const token = await this.store.repos.memberTokens.get(tokenId);
    if (!token) throw new NotFound('Member token', tokenId);
    try {
      await this.tokenOwner(p, token.memberId);
    } catch (err) {
      if (err instanceof NotFound) throw new NotFound('Member token', tokenId);
      throw err;
    }
    const now = this.clock.now();
    await this.store.transaction(async (r) => {
      await r.memberTokens.revoke(tokenId, now);
      // Its console sessions end too (each use also checks the token), and with them their "Try
      // it" keys, which would otherwise work until they expire.
      await r.consoleSessions.revokeByToken(tokenId, now);
      await r.apiKeys.revokeByTokenSessions(tokenId, now);
      // The apps the member allowed through those sessions are signed out with them.
      await r.mcpGrants.deleteByMemberToken(tokenId);
    });
    return true;
  }

  private async tokenOwner(p: Principal, memberId: string): Promise<Member> {
    const actor = requireMember(p);
    const member = await this.store.repos.members.get(memberId);
    if (!member || member.workspaceId !== p.workspaceId) throw new NotFound('Member', memberId);
    if (memberId !== actor.memberId) requireAdmin(p);
    return member;
  }
}

/** Stores a member token by its hash (the plaintext is never stored). */
/** The name of the admin token generated and printed on a first start without ADMIN_TOKEN. */
const GENERATED_TOKEN_NAME = 'bootstrap';

function storeToken(r: Repositories, memberId: string, name: string, k: NewKey, now: Date, scope?: TokenScope) {
  return r.memberTokens.insert({
    id: newId('mtk'),
    memberId,
    name,
    scope: scope ?? 'WORKSPACE',
    tokenHash: k.hash,
    prefix: k.prefix,
    last4: k.last4,
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  });
}
