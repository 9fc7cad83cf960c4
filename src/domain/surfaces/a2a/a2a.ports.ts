import type { Json } from '../../json.js';

// Ports of the A2A server the domain talks to. src/infra implements them.

/** An A2A task as stored: the protocol's task object, with what listings filter on copied out. */
export interface StoredTask {
  id: string;
  agentId: string;
  contextId: string;
  /** The task's state as the protocol names it (`TASK_STATE_WORKING`, …). */
  state: string;
  /** The task as the protocol's JSON form has it (status, artifacts, history). */
  task: Json;
  createdAt: Date;
  updatedAt: Date;
}

/** What a task listing asks for. */
export interface TaskListing {
  contextId?: string;
  state?: string;
  limit: number;
  offset: number;
}

export interface A2aTaskRepo {
  get(id: string): Promise<StoredTask | null>;
  /**
   * Writes the task (inserted, or updated when it is the same agent's). A task already in a final
   * state is never written again: a cancel stored by one instance is not undone by a late update
   * of the run on another.
   */
  save(t: Omit<StoredTask, 'createdAt'>): Promise<void>;
  /** The agent's tasks, most recently updated first, and how many match. */
  list(agentId: string, listing: TaskListing): Promise<{ tasks: StoredTask[]; total: number }>;
}

/** The states after which a task changes no more. */
export const FINAL_TASK_STATES: readonly string[] = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
