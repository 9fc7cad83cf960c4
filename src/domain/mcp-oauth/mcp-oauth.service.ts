import type { Agent } from '../core/agent.entities.js';
import type { Clock } from '../clock.js';
import { Invalid, Unauthenticated } from '../errors.js';
import { canSee, loadAgent, requireMember, requireWriter } from '../policy.js';
import type { OAuthPrincipal, Principal } from '../principal.js';
import type { Store } from '../ports.js';
import { surfaceOff } from '../surfaces/surface-access.js';
import type { McpGrant } from './mcp-grant.entities.js';
import type { OAuthTokenReader } from './mcp-oauth.ports.js';

/** The one scope a token of an agent's MCP server carries: call its tools and read its exposed documents. */
export const MCP_SCOPE = 'mcp';
/** How often a grant's last use is written (a busy client must not write on every call). */
const TOUCH_INTERVAL_MS = 60_000;
/** An agent's MCP URL path: the resource a token is bound to (RFC 8707). */
const RESOURCE_PATH = /^\/agents\/([^/]+)\/mcp$/;

const SIGN_IN_AGAIN =
  "sign in again through the client to get a new one (the agent owner can see and revoke connected apps in the console, on the agent's MCP tab)";

/** What a member approves on the consent page. */
export interface Approval {
  grantId: string;
  clientId: string;
  clientName: string | null;
  redirectUri: string;
  /** The member token the approving console session was signed in with (null: none known). */
  memberTokenId?: string | null;
}

/**
 * OAuth 2.1 for agents' MCP servers (docs/decisions.md §29), the rules the protocol library leaves
 * to the service: which resource a token may be bound to (one agent's MCP URL, the MCP surface on),
 * who may approve a client (a member who can see the agent), and what a presented access token is
 * worth (its grant still there, bound to this agent, not expired).
 */
export class McpOAuthService {
  constructor(
    private readonly store: Store,
    private readonly tokens: OAuthTokenReader | null,
    private readonly clock: Clock,
  ) {}

  /** The id of the agent an MCP URL names, from its path alone; null for any other URL. */
  static agentIdOf(resource: string): string | null {
    let url: URL;
    try {
      url = new URL(resource);
    } catch {
      return null;
    }
    if (url.search || url.hash || url.username || url.password) return null;
    return RESOURCE_PATH.exec(url.pathname)?.[1] ?? null;
  }

  /**
   * The agent a resource indicator names: its MCP URL on this service, the agent existing and its
   * MCP server on. Invalid otherwise (the authorization server answers `invalid_target`).
   */
  async agentOfResource(resource: string, origin: string): Promise<Agent> {
    const id = McpOAuthService.agentIdOf(resource);
    if (!id || new URL(resource).origin !== origin) {
      throw new Invalid(
        `The resource must be an agent's MCP URL on this service, ${origin}/agents/{agentId}/mcp`,
        'resource',
      );
    }
    const agent = await this.store.repos.agents.get(id);
    if (!agent) throw new Invalid(`No agent ${id}: the resource names an agent that does not exist`, 'resource');
    if (!agent.surfaces.MCP.enabled) throw new Invalid(surfaceOff(agent.id, 'MCP').message, 'resource');
    return agent;
  }

  /** The agent a member is asked to connect a client to: one they can see, its MCP server on. */
  async consentAgent(p: Principal, agentId: string): Promise<Agent> {
    requireMember(p);
    const agent = await loadAgent(this.store.repos, p, agentId, 'read');
    if (!agent.surfaces.MCP.enabled) throw surfaceOff(agent.id, 'MCP');
    return agent;
  }

  /** Records a member's approval of a client for an agent, as the console lists it. */
  async approve(p: Principal, agentId: string, a: Approval): Promise<McpGrant> {
    const member = requireWriter(p);
    const agent = await this.consentAgent(member, agentId);
    let redirectHost: string | null = null;
    try {
      redirectHost = new URL(a.redirectUri).host || null;
    } catch {
      // A redirect URI the library accepted is a URL; a custom scheme may have no host.
    }
    const grant: McpGrant = {
      id: a.grantId,
      workspaceId: agent.workspaceId,
      agentId: agent.id,
      memberId: member.memberId,
      memberTokenId: a.memberTokenId ?? null,
      clientId: a.clientId,
      clientName: a.clientName,
      redirectHost,
      createdAt: this.clock.now(),
      lastUsedAt: null,
    };
    await this.store.repos.mcpGrants.insert(grant);
    return grant;
  }

  /**
   * The caller an access token stands for on this agent's MCP server: Unauthenticated when it is
   * unknown, expired, revoked (its grant gone) or bound to another resource.
   */
  async authenticate(agent: Agent, token: string, origin?: string): Promise<OAuthPrincipal> {
    const facts = token.length <= 512 ? await this.tokens?.findAccessToken(token) : null;
    // Said as the key check says it: the value may be a mistyped key as well as a spent token.
    if (!facts)
      throw new Unauthenticated(
        `API key not recognised, nor an access token this service issued (an OAuth token may have been revoked): send the agent's key, or ${SIGN_IN_AGAIN}`,
      );
    const now = this.clock.now();
    if (facts.expiresAt && facts.expiresAt.getTime() <= now.getTime()) {
      throw new Unauthenticated(
        `The access token expired at ${facts.expiresAt.toISOString()}: refresh it, or ${SIGN_IN_AGAIN}`,
      );
    }
    if (!facts.audience.some((aud) => McpOAuthService.agentIdOf(aud) === agent.id)) {
      throw new Unauthenticated(
        `The access token was issued for another resource (${facts.audience.join(', ') || 'none'}), not this agent's MCP server: a token is bound to one agent; ${SIGN_IN_AGAIN}`,
      );
    }
    // Each host has its own issuer (TENANT_BASE_URL): a token is good only where it was issued.
    if (origin && !facts.audience.some((aud) => sameOrigin(aud, origin))) {
      throw new Unauthenticated(
        `The access token was issued by another address (${facts.audience.join(', ')}), not ${origin}: ${SIGN_IN_AGAIN}`,
      );
    }
    const grant = await this.store.repos.mcpGrants.get(facts.grantId);
    if (!grant || grant.agentId !== agent.id)
      throw new Unauthenticated(`The access token's grant was revoked; ${SIGN_IN_AGAIN}`);
    const lapsed = await this.lapse(grant, agent);
    if (lapsed) throw new Unauthenticated(`The access token's grant ended: ${lapsed}; ${SIGN_IN_AGAIN}`);
    if (!grant.lastUsedAt || now.getTime() - grant.lastUsedAt.getTime() > TOUCH_INTERVAL_MS)
      await this.store.repos.mcpGrants.touch(grant.id, now);
    return {
      kind: 'oauthGrant',
      grantId: grant.id,
      clientId: grant.clientId,
      memberId: grant.memberId,
      workspaceId: grant.workspaceId,
      agentId: agent.id,
    };
  }

  /**
   * Whether a grant still stands (the authorization server's check before it refreshes a token):
   * its row there and its approving member's standing intact.
   */
  async inStanding(grantId: string): Promise<boolean> {
    const grant = await this.store.repos.mcpGrants.get(grantId);
    if (!grant) return false;
    const agent = await this.store.repos.agents.get(grant.agentId);
    return !!agent && (await this.lapse(grant, agent)) === null;
  }

  /**
   * Why a grant no longer stands although its row is there, or null: a grant is worth what its
   * approving member's standing is now — the member still in the workspace, the member token that
   * approved it not revoked, the agent still one the member can see.
   */
  private async lapse(grant: McpGrant, agent: Agent): Promise<string | null> {
    const member = await this.store.repos.members.get(grant.memberId);
    if (!member) return 'the member who approved it is no longer in the workspace';
    if (grant.memberTokenId) {
      const token = await this.store.repos.memberTokens.get(grant.memberTokenId);
      if (!token || token.revokedAt) return 'the member token it was approved with was revoked';
    }
    const approver = {
      kind: 'member',
      memberId: member.id,
      workspaceId: member.workspaceId,
      role: member.role,
    } as const;
    if (!canSee(approver, agent)) return 'the member who approved it can no longer see the agent';
    return null;
  }
}

/** Whether a URL is on an origin (false when it is no URL). */
function sameOrigin(url: string, origin: string): boolean {
  try {
    const a = new URL(url);
    const b = new URL(origin);
    // An origin without a port stands for its host on any port: the shared address of instances
    // that listen on ports they chose (BASE_URL on port 0), which accept each other's tokens.
    return a.protocol === b.protocol && a.hostname === b.hostname && (b.port === '' || a.port === b.port);
  } catch {
    return false;
  }
}
