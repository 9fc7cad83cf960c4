import { Forbidden, NotFound } from '../errors.js';
import type { KeyService } from '../keys/key.service.js';
import type { Agent, Surface } from '../entities.js';
import type { Principal } from '../principal.js';
import type { Store } from '../ports.js';

const LABELS: Record<Surface, string> = {
  HTTP_API: 'HTTP API',
  DOCUMENT_API: 'Document API',
  MCP: 'MCP server',
  WIDGET: 'chat widget',
  WEBHOOKS: 'webhook receiver',
};

export interface SurfaceCaller {
  agent: Agent;
  principal: Principal;
  keyId: string | null;
}

/**
 * The first checks of every key-authenticated surface, in the documented order: the agent exists
 * (NotFound) → the key is valid for it (Unauthenticated) → the surface is on (Forbidden).
 */
export class SurfaceAccess {
  constructor(
    private readonly store: Store,
    private readonly keys: KeyService,
  ) {}

  /** The agent, if it exists (callers that log activity need it even when the key is bad). */
  findAgent(agentId: string): Promise<Agent | null> {
    return this.store.repos.agents.get(agentId);
  }

  async enter(agent: Agent | null, agentId: string, surface: Surface, presentedKey: string | undefined): Promise<SurfaceCaller> {
    if (!agent) throw new NotFound('Agent', agentId);
    const principal = await this.keys.authenticate(agent, presentedKey);
    if (!agent.surfaces[surface].enabled) throw new Forbidden(`The ${LABELS[surface]} is turned off for this agent`);
    const keyId = 'keyId' in principal ? principal.keyId : null;
    return { agent, principal, keyId };
  }
}
