import type { CallCancel, CancelChannel } from '../../domain/surfaces/call-cancel.ports.js';

/**
 * The tool calls running on this instance, by agent, caller (`callerIdentity`) and JSON-RPC id, so
 * that a `notifications/cancelled` (stateless HTTP: a request of its own, on any instance) stops
 * the call it names. Entries live only while their call runs. Ids are chosen by clients, so one
 * that names more than one running call of the same caller here cancels none of them.
 */
export class RunningCalls {
  private readonly calls = new Map<string, Set<AbortController>>();

  /** Listens to the cancels of every instance for as long as the channel is open: one naming a single call running here aborts it. */
  constructor(private readonly channel: CancelChannel) {
    channel.subscribe((c) => this.abort(RunningCalls.key(c)));
  }

  private static key(c: CallCancel): string {
    return JSON.stringify([c.agentId, c.caller, c.requestId]);
  }

  /** Records a call while it runs; the returned function forgets it. */
  add(call: CallCancel, controller: AbortController): () => void {
    const key = RunningCalls.key(call);
    let set = this.calls.get(key);
    if (!set) this.calls.set(key, (set = new Set()));
    set.add(controller);
    return () => {
      set.delete(controller);
      if (set.size === 0) this.calls.delete(key);
    };
  }

  /**
   * Cancels the call `cancel` names: here when it runs here, otherwise announced to the other
   * instances (one that runs it stops it). Resolves once announced.
   */
  async cancel(cancel: CallCancel): Promise<void> {
    const key = RunningCalls.key(cancel);
    if (this.calls.has(key)) this.abort(key);
    else await this.channel.publish(cancel);
  }

  private abort(key: string): void {
    const set = this.calls.get(key);
    if (set?.size === 1) for (const c of set) c.abort();
  }
}
