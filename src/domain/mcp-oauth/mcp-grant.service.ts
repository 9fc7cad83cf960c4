import { NotFound } from '../errors.js';
import { loadAgent, readableAgentIds, requireMember, requireWriter } from '../policy.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';
import type { Member } from '../workspace/workspace.entities.js';
import type { McpGrant } from './mcp-grant.entities.js';

/** A grant as the console lists it: with the member who approved the client. */
export interface McpGrantView extends McpGrant {
  /** The approving member (null only if the member was removed while the grant was being read). */
  grantedBy: Member | null;
}

/**
 * Members' approvals of OAuth clients for an agent's MCP server (docs/decisions.md §29): listing
 * them and revoking one. Creating them is the authorization server's consent step.
 */
export class McpGrantService {
  constructor(private readonly store: Store) {}

  /**
   * An agent's grants, newest first. Members who can see the agent; NotFound for an agent they
   * cannot see, Forbidden for any key or OAuth client.
   */
  async list(p: Principal, agentId: string): Promise<McpGrantView[]> {
    requireMember(p);
    await loadAgent(this.store.repos, p, agentId, 'read');
    return this.withGrantors(await this.store.repos.mcpGrants.listByAgent(agentId));
  }

  /** The grants of those of `agentIds` the member may see (GraphQL's loader); Forbidden for non-members. */
  async listForAgents(p: Principal, agentIds: readonly string[]): Promise<McpGrantView[]> {
    requireMember(p);
    const readable = await readableAgentIds(this.store.repos, p, agentIds);
    return readable.size ? this.withGrantors(await this.store.repos.mcpGrants.listByAgents([...readable])) : [];
  }

  /**
   * Revokes a grant of the agent: the grant and every token issued under it are deleted, so the
   * client's next call is refused on every instance. Members who may configure the agent (the
   * grantor among them); NotFound for an agent they cannot see or a grant of another agent,
   * Forbidden for any key or OAuth client.
   */
  async revoke(p: Principal, agentId: string, grantId: string): Promise<boolean> {
    requireWriter(p);
    await loadAgent(this.store.repos, p, agentId, 'configure');
    const grant = await this.store.repos.mcpGrants.get(grantId);
    if (!grant || grant.agentId !== agentId)
      throw new NotFound('MCP grant', grantId, ' for this agent (it may have been revoked already)');
    return this.store.repos.mcpGrants.delete(grantId);
  }

  private async withGrantors(grants: McpGrant[]): Promise<McpGrantView[]> {
    const ids = [...new Set(grants.map((g) => g.memberId))];
    const members = new Map(
      (await Promise.all(ids.map((id) => this.store.repos.members.get(id))))
        .filter((m): m is Member => !!m)
        .map((m) => [m.id, m]),
    );
    return grants.map((g) => ({ ...g, grantedBy: members.get(g.memberId) ?? null }));
  }
}
