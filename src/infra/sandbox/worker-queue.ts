import { ScriptFailure, type ScriptOutcome, type ScriptRequest } from '../../domain/core/sandbox.ports.js';

/** A run waiting for a worker. */
export interface QueuedRun {
  id: number;
  req: ScriptRequest;
  resolve(outcome: ScriptOutcome): void;
  reject(failure: ScriptFailure): void;
  /** Its deadline in the queue; set only when it found no free worker. */
  timer?: NodeJS.Timeout;
  /** Set once it was handed to a worker. */
  started?: boolean;
  /** Its one abort listener, from queueing until it settles (see QuickJsWorkerPool). */
  onAbort: () => void;
}

/**
 * The runs waiting for a worker, a queue per owner (the agent). The next run goes to the waiting
 * owner holding the fewest workers, the one served least recently among equals: an owner alone may
 * use every worker, but once others wait each freed worker goes to them until the workers are
 * shared evenly.
 */
export class OwnerQueues {
  /** Waiting runs per owner, oldest first; the map's order is the owners' round-robin order. */
  private readonly queues = new Map<string, QueuedRun[]>();

  get empty(): boolean {
    return this.queues.size === 0;
  }

  /** How many runs `owner` has waiting. */
  waiting(owner: string): number {
    return this.queues.get(owner)?.length ?? 0;
  }

  /** Every waiting run, of every owner. */
  all(): QueuedRun[] {
    return [...this.queues.values()].flat();
  }

  add(queued: QueuedRun): void {
    const queue = this.queues.get(queued.req.owner);
    if (queue) queue.push(queued);
    else this.queues.set(queued.req.owner, [queued]);
  }

  /** Takes a run out of its queue; false when it is no longer there (started or removed). */
  remove(queued: QueuedRun): boolean {
    const queue = this.queues.get(queued.req.owner);
    const at = queue?.indexOf(queued) ?? -1;
    if (at < 0) return false;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.queues.delete(queued.req.owner);
    return true;
  }

  /** The next run to start, given how many workers each owner holds now. */
  next(held: ReadonlyMap<string, number>): QueuedRun | undefined {
    const owner = this.nextOwner(held);
    if (owner === undefined) return undefined;
    const queue = this.queues.get(owner)!;
    const queued = queue.shift()!;
    // Served: to the back of the round-robin order, or out of it with nothing left waiting.
    this.queues.delete(owner);
    if (queue.length > 0) this.queues.set(owner, queue);
    return queued;
  }

  private nextOwner(held: ReadonlyMap<string, number>): string | undefined {
    let best: string | undefined;
    let fewest = Infinity;
    for (const owner of this.queues.keys()) {
      const n = held.get(owner) ?? 0;
      if (n < fewest) [best, fewest] = [owner, n];
    }
    return best;
  }
}

export function abortedFailure(logs: string[] = []): ScriptFailure {
  return new ScriptFailure('aborted', 'Script run was aborted', logs);
}

export function busyFailure(message: string): ScriptFailure {
  return new ScriptFailure('busy', message);
}
