import type { CrudRepo } from '../repo.ports.js';
import type { ApiKey } from './key.entities.js';

// Ports of API keys the domain talks to. src/infra implements them; nothing here knows about SQL.

export interface ApiKeyRepo extends CrudRepo<ApiKey> {
  listByAgents(agentIds: readonly string[]): Promise<ApiKey[]>;
  findByHash(hash: string): Promise<ApiKey | null>;
  listWorkspaceKeys(workspaceId: string): Promise<ApiKey[]>;
  revoke(id: string, at: Date): Promise<void>;
  touch(id: string, at: Date): Promise<void>;
  /** Revokes the live keys of one console session (of one agent, when given); returns their ids. */
  revokeByConsoleSession(sessionId: string, at: Date, agentId?: string): Promise<string[]>;
  /** Revokes the live keys of every console session made from one member token; returns their ids. */
  revokeByTokenSessions(tokenId: string, at: Date): Promise<string[]>;
  /**
   * Revokes the live keys of a workspace made in any console session of one account (a person's
   * session may have switched to another workspace since); returns their ids.
   */
  revokeByAccountSessions(accountId: string, workspaceId: string, at: Date): Promise<string[]>;
}
