import { z } from 'zod';
import type { EventOutbox } from '../events/event.ports.js';
import { keyEvent } from '../events/event-emitters.js';
import type { Clock } from '../clock.js';
import { Forbidden, NotFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { ApiKey, ApiKeyOrigin } from './key.entities.js';
import { loadAgent, readableAgentIds, requireAdmin, requireMember, requireWriter } from '../policy.js';
import { KEY_SCOPES, type Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { nonEmpty, parse } from '../validation.js';
import { generateKey, hashKey, keyKind, sameHash } from '../core/key-material.js';
import { hasExpired, keyExpiry } from './key-expiry.js';
import { memberForToken } from './token-workspace.js';
import type { Presented } from '../core/credentials.js';
import {
  bearerSchemeMissing,
  keyNotForThisAgent,
  keyExpired,
  keyNotRecognised,
  keyOfAnotherAgent,
  keyRevoked,
  memberTokenNotAKey,
  memberTokenRefused,
  noKeySent,
  noWorkspaceKeySent,
  workspaceKeyRequired,
  workspaceKeyForAllAgents,
  workspaceKeysOff,
  workspaceReadMissing,
} from './key-refusals.js';

export interface CreatedKey {
  /** The plaintext key, returned once. */
  key: string;
  apiKey: ApiKey;
}

const scopesInput = z.array(z.enum(KEY_SCOPES)).max(10).default([]);

// TRY_IT is left out on purpose: a Try-it key is the console session's (one hour, ends with the
// session), which only createTryItKey makes; a tool that makes keys of its own says CLI.
const originInput = z
  .enum(['PERSON', 'CLI'], { error: "PERSON or CLI; a TRY_IT key is made only by the console's Try it" })
  .default('PERSON');

/** How long a console "Try it" key works (unless its session ends first). */
export const TRY_IT_KEY_LIFETIME_MS = 60 * 60_000;

// lastUsedAt is written at most this often per key, so authentication stays a read.
const TOUCH_INTERVAL_MS = 60_000;

/** API keys and member tokens: issuing, revoking, and authenticating presented values. */
export class KeyService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Where `key.created` and `key.revoked` go (outbound events). */
    private readonly outbox?: EventOutbox,
  ) {}

  /**
   * Creates a key for one agent, expiring at `expiresAt` if given (a minute to a year ahead), marked
   * with its `origin` (PERSON unless given; CLI for a tool's own keys). Members who can configure the agent.
   */
  async createAgentApiKey(
    p: Principal,
    agentId: string,
    name: unknown,
    expiresAt?: unknown,
    origin?: unknown,
  ): Promise<CreatedKey> {
    const member = requireWriter(p);
    const keyName = parse(nonEmpty(100), name, 'name');
    const expiry = keyExpiry(expiresAt, this.clock.now());
    const keyOrigin: ApiKeyOrigin = parse(originInput, origin ?? undefined, 'origin');
    const agent = await loadAgent(this.store.repos, p, agentId, 'configure');
    return this.issue({
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      kind: 'AGENT',
      name: keyName,
      scopes: [],
      createdBy: member.memberId,
      expiresAt: expiry,
      origin: keyOrigin,
    });
  }

  /**
   * The console's "Try it" key for one agent: an agent key named "Console Try it — <member>" that
   * expires after {@link TRY_IT_KEY_LIFETIME_MS} and belongs to the console session `sessionId`,
   * whose end (sign-out, the member token revoked) revokes it. The session's earlier Try-it key
   * for this agent is revoked in the same transaction, so a session holds at most one per agent.
   * Members who can configure the agent, signed in to the console: without a session (a member
   * token) it throws Forbidden.
   */
  async createTryItKey(p: Principal, agentId: string, sessionId: string | undefined): Promise<CreatedKey> {
    const member = requireWriter(p);
    if (!sessionId) {
      throw new Forbidden(
        'createTryItKey works only in a console session (the key ends with the session); with a member token, use createAgentApiKey(agentId, name, expiresAt) for a key of your own',
      );
    }
    const agent = await loadAgent(this.store.repos, p, agentId, 'configure');
    const who = await this.store.repos.members.get(member.memberId);
    const now = this.clock.now();
    const name = `Console Try it — ${who?.name || who?.email || member.memberId}`.slice(0, 100);
    const material = generateKey('ak');
    const apiKey = await this.store.transaction(async (r) => {
      await r.apiKeys.revokeByConsoleSession(sessionId, now, agent.id);
      return r.apiKeys.insert({
        id: newId('key'),
        workspaceId: agent.workspaceId,
        agentId: agent.id,
        kind: 'AGENT',
        name,
        scopes: [],
        createdBy: member.memberId,
        expiresAt: new Date(now.getTime() + TRY_IT_KEY_LIFETIME_MS),
        consoleSessionId: sessionId,
        origin: 'TRY_IT',
        keyHash: material.hash,
        prefix: material.prefix,
        last4: material.last4,
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      });
    });
    return { key: material.plaintext, apiKey };
  }

  /**
   * Creates a workspace key (`wk_`), expiring at `expiresAt` if given (a minute to a year ahead),
   * marked with its `origin` as {@link createAgentApiKey}. Admins only.
   */
  async createWorkspaceApiKey(
    p: Principal,
    name: unknown,
    scopes: unknown,
    expiresAt?: unknown,
    origin?: unknown,
  ): Promise<CreatedKey> {
    const admin = requireAdmin(p);
    const keyName = parse(nonEmpty(100), name, 'name');
    const keyScopes = parse(scopesInput, scopes ?? [], 'scopes');
    const expiry = keyExpiry(expiresAt, this.clock.now());
    const keyOrigin: ApiKeyOrigin = parse(originInput, origin ?? undefined, 'origin');
    return this.issue({
      workspaceId: admin.workspaceId,
      agentId: null,
      kind: 'WORKSPACE',
      name: keyName,
      scopes: [...new Set(keyScopes)],
      createdBy: admin.memberId,
      expiresAt: expiry,
      origin: keyOrigin,
    });
  }

  /** Revokes a key with immediate effect. Agent keys: members who can configure the agent; workspace keys: admins. */
  async revokeApiKey(p: Principal, keyId: string): Promise<boolean> {
    requireWriter(p);
    const key = await this.store.repos.apiKeys.get(keyId);
    if (!key || key.workspaceId !== p.workspaceId) throw new NotFound('API key', keyId);
    if (key.kind === 'WORKSPACE') requireAdmin(p);
    else await loadAgent(this.store.repos, p, key.agentId!, 'configure');
    await this.store.repos.apiKeys.revoke(keyId, this.clock.now());
    if (this.outbox && !key.revokedAt) keyEvent(this.outbox, 'key.revoked', key);
    return true;
  }

  /** The keys of those agents the principal may read (others are left out), in one read; prefix and last 4 characters only. */
  async listForAgents(p: Principal, agentIds: readonly string[]): Promise<ApiKey[]> {
    const readable = await readableAgentIds(this.store.repos, p, agentIds);
    return readable.size ? this.store.repos.apiKeys.listByAgents([...readable]) : [];
  }

  /** Workspace keys, without secrets. Admins only. */
  async listWorkspaceKeys(p: Principal): Promise<ApiKey[]> {
    requireAdmin(p);
    return this.store.repos.apiKeys.listWorkspaceKeys(p.workspaceId);
  }

  /**
   * Resolves a member token (GraphQL) to a member principal, or throws Unauthenticated saying what
   * was wrong: no token, a header without `Bearer `, an API key (ak_/wk_) sent here, or an unknown token.
   * `workspace` is the request's `AES-Workspace` header: the workspace (id or slug) a PERSON token
   * acts in; naming another than the token may act in is FORBIDDEN ({@link memberForToken}).
   */
  async authenticateMember(presented: Presented, workspace?: string): Promise<Principal> {
    if (typeof presented === 'object') throw bearerSchemeMissing('graphql');
    // Member tokens are `mt_…`; ADMIN_TOKEN may be any string of 16+ characters. Both are looked up by hash.
    if (!presented || presented.length < 16 || presented.length > 512) throw memberTokenRefused(presented);
    const hash = hashKey(presented);
    const token = await this.store.repos.memberTokens.findByHash(hash);
    if (!token || token.revokedAt || !sameHash(token.tokenHash, hash)) throw memberTokenRefused(presented);
    const origin = await this.store.repos.members.get(token.memberId);
    if (!origin) throw memberTokenRefused(presented);
    const member = await memberForToken(this.store.repos, token, origin, workspace);
    const now = this.clock.now();
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.store.repos.memberTokens.touch(token.id, now);
    }
    return { kind: 'member', memberId: member.id, workspaceId: member.workspaceId, role: member.role };
  }

  /**
   * Authenticates a key presented on an agent surface: an agent key of that agent, or a workspace
   * key of its workspace when the agent allows workspace keys. Anything else is Unauthenticated
   * with a message naming the case (a key of another agent is an invalid key); a workspace key of
   * another workspace learns nothing about the agent's settings.
   */
  async authenticate(agent: Agent, presented: Presented): Promise<Principal> {
    const key = await this.lookup(presented, 'agentSurface');
    if (key.kind === 'AGENT') {
      if (key.agentId !== agent.id) throw keyOfAnotherAgent();
      await this.touch(key);
      return { kind: 'agentKey', keyId: key.id, workspaceId: key.workspaceId, agentId: agent.id };
    }
    if (key.workspaceId !== agent.workspaceId) throw keyNotForThisAgent();
    if (!agent.allowWorkspaceKeys) throw workspaceKeysOff(agent.id);
    await this.touch(key);
    return { kind: 'workspaceKey', keyId: key.id, workspaceId: key.workspaceId, scopes: key.scopes };
  }

  /**
   * Authenticates a workspace key where it serves every agent it may use (the workspace-wide
   * OpenAI-compatible URL); whether it may use a given agent is `SurfaceAccess.enterAs`'s check.
   */
  async authenticateWorkspaceKey(presented: Presented): Promise<Principal & { kind: 'workspaceKey' }> {
    const key = await this.lookup(presented, 'agentSurface');
    if (key.kind !== 'WORKSPACE') throw workspaceKeyForAllAgents();
    await this.touch(key);
    return { kind: 'workspaceKey', keyId: key.id, workspaceId: key.workspaceId, scopes: key.scopes };
  }

  /** Authenticates a workspace key for the Workspace API; a valid key without the scope is Forbidden. */
  async authenticateWorkspaceRead(presented: Presented): Promise<Principal> {
    const key = await this.lookup(presented, 'workspaceApi');
    if (key.kind !== 'WORKSPACE') throw workspaceKeyRequired();
    if (!key.scopes.includes('WORKSPACE_READ')) throw workspaceReadMissing();
    await this.touch(key);
    return { kind: 'workspaceKey', keyId: key.id, workspaceId: key.workspaceId, scopes: key.scopes };
  }

  private async lookup(presented: Presented, place: 'agentSurface' | 'workspaceApi'): Promise<ApiKey> {
    if (typeof presented === 'object') throw bearerSchemeMissing(place);
    if (!presented) throw place === 'agentSurface' ? noKeySent() : noWorkspaceKeySent();
    const kind = keyKind(presented);
    // Judged by its shape only, like "not recognised": says nothing about whether such a token exists.
    if (kind === 'mt') throw memberTokenNotAKey(place);
    if (kind !== 'ak' && kind !== 'wk') throw keyNotRecognised();
    const hash = hashKey(presented);
    const key = await this.store.repos.apiKeys.findByHash(hash);
    if (!key || !sameHash(key.keyHash, hash)) throw keyNotRecognised();
    if (key.revokedAt) throw keyRevoked();
    // Against this instance's clock on every check, not a stored flag: the key may come from the
    // read cache, and no change notification marks the moment it expires.
    if (hasExpired(key.expiresAt, this.clock.now())) throw keyExpired(key.expiresAt!);
    return key;
  }

  private async touch(key: ApiKey): Promise<void> {
    const now = this.clock.now();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.store.repos.apiKeys.touch(key.id, now);
    }
  }

  private async issue(
    k: Pick<ApiKey, 'workspaceId' | 'agentId' | 'kind' | 'name' | 'scopes' | 'createdBy' | 'expiresAt' | 'origin'>,
  ): Promise<CreatedKey> {
    const material = generateKey(k.kind === 'AGENT' ? 'ak' : 'wk');
    const apiKey = await this.store.repos.apiKeys.insert({
      ...k,
      id: newId('key'),
      keyHash: material.hash,
      prefix: material.prefix,
      last4: material.last4,
      createdAt: this.clock.now(),
      lastUsedAt: null,
      revokedAt: null,
    });
    if (this.outbox) keyEvent(this.outbox, 'key.created', apiKey);
    return { key: material.plaintext, apiKey };
  }
}
