import type { Json } from '../../json.js';

// Ports of the A2A server the domain talks to. src/infra implements them.

/** An A2A task as stored: the protocol's task object, with what listings filter on copied out. */
export interface StoredTask {
  id: string;
  agentId: string;
  /** The caller that made it (callerRefOf); null for a task stored before callers were kept, which no one reads. */
  callerRef: string | null;
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

/** Whose tasks a call reads and writes: one agent's, made by one caller. */
export interface TaskScope {
  agentId: string;
  callerRef: string;
}

/** A context whose tasks were pruned: its conversation goes with its last task. */
export interface PrunedContext {
  agentId: string;
  callerRef: string | null;
  contextId: string;
}

export interface A2aTaskRepo {
  get(id: string): Promise<StoredTask | null>;
  /**
   * Writes the task (inserted, or updated when it is the same agent's and caller's). A task already in a final
   * state is never written again: a cancel stored by one instance is not undone by a late update
   * of the run on another.
   */
  save(t: Omit<StoredTask, 'createdAt' | 'callerRef'> & { callerRef: string }): Promise<void>;
  /** The caller's tasks of the agent, most recently updated first, and how many match. */
  list(scope: TaskScope, listing: TaskListing): Promise<{ tasks: StoredTask[]; total: number }>;
  /** Deletes up to `limit` tasks in a final state last updated before `before`; the contexts they were in. */
  pruneFinalBefore(before: Date, limit: number): Promise<PrunedContext[]>;
  /** Whether any task of the context is left. */
  contextHasTasks(context: PrunedContext): Promise<boolean>;
}

/** The states after which a task changes no more. */
export const FINAL_TASK_STATES: readonly string[] = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
];
