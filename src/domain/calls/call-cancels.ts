import type { CallCancel, CancelChannel } from './call-cancel.ports.js';

/** How a cancel was carried out: the call runs here (aborted at once), or it was announced to the other instances. */
export type CancelReach = 'here' | 'announced';

/**
 * The cancellable calls running on this instance, by surface, agent, caller and the call's id, so
 * that a cancel reaching any instance stops the call it names: at once when it runs here,
 * otherwise through the cancel channel (one mechanism for every surface). Entries live only while
 * their call runs. Ids are chosen by clients, so one that names more than one running call of the
 * same caller here cancels none of them.
 */
export class CallCancels {
  private readonly calls = new Map<string, Set<AbortController>>();

  /** Listens to the cancels of every instance for as long as the channel is open: one naming a single call running here aborts it. */
  constructor(private readonly channel: CancelChannel) {
    channel.subscribe((c) => this.abort(CallCancels.key(c)));
  }

  private static key(c: CallCancel): string {
    return JSON.stringify([c.surface, c.agentId, c.caller, c.requestId]);
  }

  /** Records a call while it runs: a cancel naming it aborts `controller`. The returned function forgets it. */
  register(call: CallCancel, controller: AbortController): () => void {
    const key = CallCancels.key(call);
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
  async cancel(cancel: CallCancel): Promise<CancelReach> {
    const key = CallCancels.key(cancel);
    if (this.calls.has(key)) {
      this.abort(key);
      return 'here';
    }
    await this.channel.publish(cancel);
    return 'announced';
  }

  private abort(key: string): void {
    const set = this.calls.get(key);
    if (set?.size === 1) for (const c of set) c.abort();
  }
}

/**
 * The cancel channel of a service that is the only instance of its database (the embedded one):
 * cancels are delivered in memory, to this process's subscribers, with no database round trip.
 */
export function localCancelChannel(): CancelChannel {
  const handlers = new Set<(cancel: CallCancel) => void>();
  return {
    async publish(cancel) {
      for (const h of handlers) h(cancel);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
  };
}
