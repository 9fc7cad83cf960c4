import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent, AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { A2aRun, A2aService } from '../../domain/surfaces/a2a.service.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { TaskScope } from '../../domain/surfaces/a2a/a2a.ports.js';
import type { CallCancel } from '../../domain/calls/call-cancel.ports.js';
import type { CallCancels } from '../../domain/calls/call-cancels.js';
import { a2aTaskEvents } from './a2a.events.js';
import type { DatabaseTaskStore } from './task-store.js';

/** Where the route leaves the admitted run of a message for the executor. */
export const RUN_KEY = 'run';
/** Where the route leaves the controller that cancels that run. */
export const CANCEL_KEY = 'cancel';

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
    const encoder = a2aTaskEvents(taskId, contextId, (r) => this.a2a.structuredOutput(pending.tool, r));
    const publish = (events: AgentExecutionEvent[]) => events.forEach((e) => bus.publish(e));

    publish(encoder.opened(ctx.userMessage));
    const forget = this.cancels.register(this.callOf(taskId), cancel);
    let result: RunResult | undefined;
    try {
      for await (const ev of pending.run.events()) {
        if (ev.type === 'delta') publish(encoder.delta(ev.text));
        else result = ev.result;
      }
    } finally {
      forget();
    }
    if (cancel.signal.aborted) return publish(encoder.canceled());
    if (!result) return publish(encoder.error());
    if (!result.error && !result.approval) await pending.record(contextId, result);
    publish(encoder.end(result));
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
