import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent, AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { A2aRun, A2aService } from '../../domain/surfaces/a2a.service.js';
import type { RunResult } from '../../domain/runtime/run.types.js';
import type { TaskScope } from '../../domain/surfaces/a2a/a2a.ports.js';
import { a2aTaskEvents } from './a2a.events.js';
import { isFinal, REMOTE_TASK_POLL_MS, type DatabaseTaskStore } from './task-store.js';

/** Where the route leaves the admitted run of a message for the executor. */
export const RUN_KEY = 'run';
/** Where the route leaves the controller that cancels that run. */
export const CANCEL_KEY = 'cancel';

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
    const encoder = a2aTaskEvents(taskId, contextId, (r) => this.a2a.structuredOutput(pending.tool, r));
    const publish = (events: AgentExecutionEvent[]) => events.forEach((e) => bus.publish(e));

    publish(encoder.opened(ctx.userMessage));
    this.running.set(taskId, cancel);
    const watch = this.watchStoredCancel(taskId, ctx, cancel);
    let result: RunResult | undefined;
    try {
      for await (const ev of pending.run.events()) {
        if (ev.type === 'delta') publish(encoder.delta(ev.text));
        else result = ev.result;
      }
    } finally {
      clearTimeout(watch.timer);
      watch.stopped = true;
      this.running.delete(taskId);
    }
    if (cancel.signal.aborted) return publish(encoder.canceled());
    if (!result) return publish(encoder.error());
    if (!result.error) await pending.record(contextId, result);
    publish(encoder.end(result));
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
