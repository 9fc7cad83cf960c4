import { Forbidden, NotFound } from './errors.js';
import type { Agent } from './core/agent.entities.js';
import type { MemberPrincipal, Principal } from './principal.js';
import type { Repositories } from './ports.js';

/**
 * What an operation does to an agent:
 * - `read`: see it and its entries;
 * - `manageSurfaces`: change its surfaces, entries, CORS and document exposures (what the
 *   Endpoint Management capability may do as AgentSelf);
 * - `useDocuments`: read and write the records of its documents (the Documents capability);
 * - `configure`: everything else (name, instructions, keys, limits, guardrails, capabilities,
 *   documents themselves, deletion) — members only.
 */
export type AgentAction = 'read' | 'manageSurfaces' | 'useDocuments' | 'configure';

/** The acting member, or Forbidden for any other principal. */
export function requireMember(p: Principal): MemberPrincipal {
  if (p.kind !== 'member') throw new Forbidden('Only workspace members may do this');
  return p;
}

/** The acting member when they may change things (ADMIN or MEMBER, not VIEWER), otherwise Forbidden. */
export function requireWriter(p: Principal): MemberPrincipal {
  const m = requireMember(p);
  if (m.role === 'VIEWER') throw new Forbidden(VIEWER_READ_ONLY);
  return m;
}

/** What a VIEWER is told when they try to change something. */
export const VIEWER_READ_ONLY = 'Viewers have read-only access to this workspace: ask an admin for the MEMBER role';

/** The acting member when an ADMIN, otherwise Forbidden. */
export function requireAdmin(p: Principal): MemberPrincipal {
  const m = requireMember(p);
  if (m.role !== 'ADMIN') throw new Forbidden('Only workspace admins may do this');
  return m;
}

/** Whether the principal may see the agent at all (private agents: admins and their creator). */
export function canSee(p: Principal, agent: Agent): boolean {
  if (agent.workspaceId !== p.workspaceId) return false;
  switch (p.kind) {
    case 'member':
      return agent.visibility !== 'PRIVATE' || p.role === 'ADMIN' || agent.createdBy === p.memberId;
    case 'agentSelf':
    case 'agentKey':
    case 'oauthGrant':
    case 'system':
      return agent.id === p.agentId;
    case 'workspaceKey':
      return agent.allowWorkspaceKeys;
  }
}

/** Throws unless the principal may perform `action` on the agent. */
export function assertAgentAction(p: Principal, agent: Agent, action: AgentAction): void {
  if (!canSee(p, agent)) throw new NotFound('Agent', agent.id);
  switch (p.kind) {
    case 'member':
      if (p.role === 'VIEWER' && action !== 'read') throw new Forbidden(VIEWER_READ_ONLY);
      return;
    case 'system':
      // Background work runs the agent's handlers: it reads the agent and uses its documents.
      if (action === 'read' || action === 'useDocuments') return;
      throw new Forbidden(`Background work (${p.name}) may not change the agent`);
    case 'agentSelf':
      if (action === 'read') return;
      if (action === 'manageSurfaces' && agent.capabilities.endpointManagement) return;
      if (action === 'useDocuments' && agent.capabilities.documents) return;
      throw new Forbidden(
        action === 'configure'
          ? 'An agent may not change its own keys, limits, guardrails, capabilities or settings'
          : 'This capability is not enabled for the agent',
      );
    default:
      throw new Forbidden('API keys cannot manage agents');
  }
}

/** Loads an agent the principal may act on, or throws NotFound / Forbidden. */
export async function loadAgent(
  repos: Repositories,
  p: Principal,
  agentId: string,
  action: AgentAction,
): Promise<Agent> {
  const agent = await repos.agents.get(agentId);
  if (!agent) throw new NotFound('Agent', agentId);
  assertAgentAction(p, agent, action);
  return agent;
}

/**
 * The ids among `agentIds` of agents the principal may read, for batched reads of many agents'
 * children at once (GraphQL's loaders): each read checks for itself instead of trusting its caller.
 */
export async function readableAgentIds(
  repos: Repositories,
  p: Principal,
  agentIds: readonly string[],
): Promise<Set<string>> {
  const agents = await Promise.all([...new Set(agentIds)].map((id) => repos.agents.get(id)));
  return new Set(agents.filter((a): a is Agent => !!a && canSee(p, a)).map((a) => a.id));
}
