// Repository shapes shared by the areas' ports. src/infra implements them; nothing here knows about
// SQL.

/** Plain create/read/replace/delete by id. `update` replaces the stored entity with the given one. */
export interface CrudRepo<T extends { id: string }> {
  get(id: string): Promise<T | null>;
  insert(entity: T): Promise<T>;
  update(entity: T): Promise<T>;
  delete(id: string): Promise<boolean>;
}

/** Entities that belong to one agent; `listByAgents` serves batched (DataLoader) reads. */
export interface AgentChildRepo<T extends { id: string; agentId: string }> extends CrudRepo<T> {
  listByAgents(agentIds: readonly string[]): Promise<T[]>;
}
