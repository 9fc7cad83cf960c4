import { randomUUID } from 'node:crypto';
import { Role, Task, taskStateToJSON, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBus,
  DefaultExecutionEventBusManager,
  type ExecutionEventBus,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { Json } from '../../domain/json.js';
import type { A2aService } from '../../domain/surfaces/a2a.service.js';
import { FINAL_TASK_STATES, type TaskScope } from '../../domain/surfaces/a2a/a2a.ports.js';

/** How often a task running elsewhere is read again while someone follows it here. */
export const REMOTE_TASK_POLL_MS = 250;
/** The most tasks one ListTasks page holds, and the default. */
const MAX_PAGE = 100;
const DEFAULT_PAGE = 50;

/** The agent and caller a call is for (A2aService.scopeOf): kept in the call context's state by the route. */
export const SCOPE_KEY = 'scope';

export function scopeOf(context: ServerCallContext): TaskScope {
  const scope = context.state.get(SCOPE_KEY) as TaskScope | undefined;
  if (!scope || typeof scope.agentId !== 'string' || typeof scope.callerRef !== 'string')
    throw new Error('the A2A call context names no agent and caller');
  return scope;
}

export function isFinal(state: TaskState | undefined): boolean {
  return state !== undefined && FINAL_TASK_STATES.includes(taskStateToJSON(state));
}

/**
 * The SDK's task store over the database: any instance loads and lists a caller's tasks of an
 * agent; a task of another agent, or of another key of the same agent, is one that does not exist. Saves never move a task out of a final state (the
 * repository's rule), so a cancel stored by another instance wins over a late update here.
 */
export class DatabaseTaskStore implements TaskStore {
  constructor(private readonly a2a: A2aService) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.saveAs(scopeOf(context), task);
  }

  private saveAs(scope: TaskScope, task: Task): Promise<void> {
    return this.a2a.saveTask(scope, {
      id: task.id,
      contextId: task.contextId,
      state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      task: Task.toJSON(task) as Json,
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const stored = await this.a2a.task(scopeOf(context), taskId);
    return stored ? Task.fromJSON(stored.task) : undefined;
  }

  /**
   * Stores a task as canceled (a task of this caller, as the SDK checked before asking), for whoever
   * reads it; the run itself is stopped through the cancel channel (PipelineExecutor.cancelTask). A
   * task already in a final state stays as it is.
   */
  async cancelStored(scope: TaskScope, taskId: string): Promise<void> {
    const stored = await this.a2a.task(scope, taskId);
    if (!stored) return;
    const task = Task.fromJSON(stored.task);
    if (isFinal(task.status?.state)) return;
    const message = {
      messageId: randomUUID(),
      contextId: task.contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [
        {
          content: { $case: 'text' as const, value: 'Task cancellation requested by user.' },
          metadata: {},
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    };
    task.status = { state: TaskState.TASK_STATE_CANCELED, message, timestamp: new Date().toISOString() };
    await this.saveAs(scope, task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = Math.min(Math.max(params.pageSize ?? DEFAULT_PAGE, 1), MAX_PAGE);
    const offset = /^\d{1,9}$/.test(params.pageToken) ? Number(params.pageToken) : 0;
    const state = params.status ? taskStateToJSON(params.status) : undefined;
    const { tasks, total } = await this.a2a.tasks(scopeOf(context), {
      ...(params.contextId ? { contextId: params.contextId } : {}),
      ...(state ? { state } : {}),
      limit: pageSize,
      offset,
    });
    const next = offset + tasks.length;
    return {
      tasks: tasks.map((t) => Task.fromJSON(t.task)),
      nextPageToken: next < total ? String(next) : '',
      pageSize,
      totalSize: total,
    };
  }
}

/**
 * The SDK's event buses, extended to tasks that run on another instance: following such a task
 * here (SubscribeToTask, CancelTask) gets a bus fed from the stored task, read every
 * REMOTE_TASK_POLL_MS until it reaches a final state.
 */
export class SharedEventBusManager extends DefaultExecutionEventBusManager {
  constructor(private readonly tasks: DatabaseTaskStore) {
    super();
  }

  override getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
    return super.getByTaskId(taskId, context) ?? (context ? remoteBus(this.tasks, taskId, context) : undefined);
  }
}

/** A bus that replays a stored task's changes as events, ending when the task does. */
function remoteBus(tasks: DatabaseTaskStore, taskId: string, context: ServerCallContext): ExecutionEventBus {
  const bus = new DefaultExecutionEventBus();
  let last = '';
  let lastArtifacts = 0;
  let stopped = false;
  const poll = async () => {
    if (stopped) return;
    const task = await tasks.load(taskId, context).catch(() => undefined);
    if (!task) return stop();
    const state = task.status?.state;
    const mark = JSON.stringify(task.status ?? null);
    for (const artifact of task.artifacts.slice(lastArtifacts))
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId: task.contextId,
          artifact,
          append: false,
          lastChunk: true,
          metadata: {},
        }),
      );
    lastArtifacts = task.artifacts.length;
    if (mark !== last) {
      last = mark;
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId: task.contextId, status: task.status, metadata: {} }));
    }
    if (isFinal(state)) return stop();
    timer = setTimeout(poll, REMOTE_TASK_POLL_MS);
  };
  let timer = setTimeout(poll, 0);
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    bus.finished();
  };
  // Whoever stops listening ends the polling with it.
  bus.on('finished', () => {
    stopped = true;
    clearTimeout(timer);
  });
  return bus;
}
