import type { CrudRepo } from '../repo.ports.js';
import type { Agent } from '../core/agent.entities.js';

// Ports of agents the domain talks to. src/infra implements them; nothing here knows about SQL.

export interface AgentRepo extends CrudRepo<Agent> {
  listByWorkspace(workspaceId: string): Promise<Agent[]>;
  getMany(ids: readonly string[]): Promise<Agent[]>;
}
