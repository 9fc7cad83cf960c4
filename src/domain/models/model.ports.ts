import type { CrudRepo } from '../repo.ports.js';
import type { ModelConfig } from './model.entities.js';

// Ports of models the domain talks to. src/infra implements them; nothing here knows about SQL.

export interface ModelRepo extends CrudRepo<ModelConfig> {
  findByName(workspaceId: string, name: string): Promise<ModelConfig | null>;
  listByWorkspace(workspaceId: string): Promise<ModelConfig[]>;
  clearDefault(workspaceId: string): Promise<void>;
}
