import type { AgentChange } from './manifest.entities.js';

// Ports of manifests the domain talks to. src/infra implements them; nothing here knows about SQL.

/** Changes to agents' configuration (applied manifests), newest first. */
export interface AgentChangeRepo {
  /**
   * Within a transaction: waits for any other manifest apply of the workspace to end (on every
   * instance), so that two applies take turns and the second sees what the first wrote.
   */
  lockWorkspace(workspaceId: string): Promise<void>;
  insert(c: AgentChange): Promise<void>;
  listByAgent(agentId: string, first: number): Promise<AgentChange[]>;
}
