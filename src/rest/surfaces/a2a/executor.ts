import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { A2aRun, A2aService } from '../../../domain/surfaces/a2a.service.js';
import type { RunResult } from '../../../domain/runtime/run.types.js';
import type { TaskScope } from '../../../domain/surfaces/a2a/a2a.ports.js';
import type { CallCancel } from '../../../domain/calls/call-cancel.ports.js';
import type { CallCancels } from '../../../domain/calls/call-cancels.js';
import type { DatabaseTaskStore } from './task-store.js';

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
 * when CancelTask reaches it). The run is registered with the call lifecycle's cancels: a CancelTask
 * on this instance aborts it at once, one on another instance reaches it through the cancel channel
 * (PostgreSQL notifications), the one mechanism MCP's `notifications/cancelled` uses too.
 */
export class PipelineExecutor implements AgentExecutor {
  constructor(
    private readonly a2a: A2aService,
    private readonly tasks: DatabaseTaskStore,
    /** The calls running on this instance that a cancel from any instance stops (shared by every executor). */
    private readonly cancels: CallCancels,
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
    const forget = this.cancels.register(this.callOf(taskId), cancel);
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
      forget();
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

  /**
   * Cancels the task's run: at once when it runs here, otherwise announced to the instance running
   * it; the task is stored as canceled too, so the caller sees it canceled whichever instance it asks.
   */
  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    if ((await this.cancels.cancel(this.callOf(taskId))) === 'here') return;
    // The SDK hands a bus fed from the store (SharedEventBusManager): the canceled state reaches it there.
    void bus;
    await this.tasks.cancelStored(this.scope, taskId);
  }

  /** The task's run as a cancellable call: only its caller's cancel names it. */
  private callOf(taskId: string): CallCancel {
    return { surface: 'A2A', agentId: this.scope.agentId, caller: this.scope.callerRef, requestId: taskId };
  }
}
