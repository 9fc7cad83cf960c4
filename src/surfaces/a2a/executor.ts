import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { A2aRun, A2aService } from '../../domain/surfaces/a2a.service.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { TaskScope } from '../../domain/surfaces/a2a/a2a.ports.js';
import { isFinal, REMOTE_TASK_POLL_MS, type DatabaseTaskStore } from './task-store.js';

/** Where the route leaves the admitted run of a message for the executor. */
export const RUN_KEY = 'run';
/** Where the route leaves the controller that cancels that run. */
export const CANCEL_KEY = 'cancel';

/** The one artifact a task's answer is. */
const ANSWER = 'answer';

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: {},
  filename: '',
  mediaType: 'text/plain',
});
const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: {},
  filename: '',
  mediaType: 'application/json',
});

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

function answer(parts: Part[]): Artifact {
  return { artifactId: ANSWER, name: ANSWER, description: '', parts, metadata: {}, extensions: [] };
}

/**
 * Runs a message's admitted run as an A2A task: `submitted` → `working` → the answer as an
 * artifact, streamed in text chunks → `completed` (or `failed` with the run's error, `canceled`
 * when CancelTask reaches it). A CancelTask on this instance aborts the run at once; one on another
 * instance is seen in the stored task, read every REMOTE_TASK_POLL_MS while the run lasts.
 */
export class PipelineExecutor implements AgentExecutor {
  constructor(
    private readonly a2a: A2aService,
    private readonly tasks: DatabaseTaskStore,
    /** Runs of this instance by task id, to cancel (shared by every call's executor). */
    private readonly running: Map<string, AbortController>,
    /** The agent and caller of the call this executor serves. */
    private readonly scope: TaskScope,
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const pending = ctx.context.state.get(RUN_KEY) as A2aRun | undefined;
    const cancel = ctx.context.state.get(CANCEL_KEY) as AbortController | undefined;
    if (!pending || !cancel) throw new Error('the A2A message reached the executor without its admitted run');
    const { taskId, contextId } = ctx;
    const status = (state: TaskState, message?: Message) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message, timestamp: new Date().toISOString() },
          metadata: {},
        }),
      );

    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: {},
      }),
    );
    status(TaskState.TASK_STATE_WORKING);
    this.running.set(taskId, cancel);
    const watch = this.watchStoredCancel(taskId, ctx, cancel);
    let result: RunResult | undefined;
    let chunks = 0;
    try {
      for await (const ev of pending.run.events()) {
        if (ev.type === 'delta') {
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              artifact: answer([text(ev.text)]),
              append: chunks++ > 0,
              lastChunk: false,
              metadata: {},
            }),
          );
        } else result = ev.result;
      }
    } finally {
      clearTimeout(watch.timer);
      watch.stopped = true;
      this.running.delete(taskId);
    }
    if (cancel.signal.aborted)
      return status(TaskState.TASK_STATE_CANCELED, agentMessage(taskId, contextId, [text('The task was canceled')]));
    if (!result || result.error)
      return status(
        TaskState.TASK_STATE_FAILED,
        agentMessage(taskId, contextId, [text(result?.error?.message ?? 'The run failed')]),
      );
    await pending.record(contextId, result);
    const structured = this.a2a.structuredOutput(pending.tool, result);
    const output = typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
    // The last chunk holds the whole answer: a client that kept no chunk still has it.
    const parts = structured ? [text(output), data(structured)] : [text(output)];
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: answer(parts),
        append: false,
        lastChunk: true,
        metadata: { runId: result.runId, credits: result.credits },
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
  }

  /** Cancels a run of this instance; a task running elsewhere is canceled in the store, which its instance watches. */
  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const local = this.running.get(taskId);
    if (local) return void local.abort();
    // The SDK hands a bus fed from the store (SharedEventBusManager): the canceled state reaches it there.
    void bus;
    await this.tasks.cancelStored(this.scope, taskId);
  }

  /** Reads the stored task while the run lasts: a cancel stored by another instance aborts it. */
  private watchStoredCancel(
    taskId: string,
    ctx: RequestContext,
    cancel: AbortController,
  ): { timer?: NodeJS.Timeout; stopped: boolean } {
    const watch: { timer?: NodeJS.Timeout; stopped: boolean } = { stopped: false };
    const poll = async () => {
      if (watch.stopped) return;
      const task = await this.tasks.load(taskId, ctx.context).catch(() => undefined);
      if (watch.stopped) return;
      if (task && isFinal(task.status?.state) && task.status?.state === TaskState.TASK_STATE_CANCELED)
        return void cancel.abort();
      watch.timer = setTimeout(poll, REMOTE_TASK_POLL_MS);
    };
    watch.timer = setTimeout(poll, REMOTE_TASK_POLL_MS);
    return watch;
  }
}
