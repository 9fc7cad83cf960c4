import { utcDay, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Workspace } from '../workspace/workspace.entities.js';
import type { Store } from '../ports.js';
import type { CreditCharge, RunSlot } from './admission.ports.js';

/** An admitted run: its lease (if it took one) and the credits it holds; end it exactly once. */
export interface Admission {
  slotId: string | null;
  /** Credits held against the daily limits until the run settles. */
  reservedCredits: number;
  /** The agent's workspace as admission read it (a script run's flat credits come from it). */
  workspace: Workspace | null;
  /** Ends the lease and charges the run's real credits. */
  settle(credits: number): Promise<void>;
  /** Ends the lease without a charge. */
  release(): Promise<void>;
}

/** What an admitted run holds, and how it ends: `end(credits)` once, with null for no charge. */
export function admitted(
  h: Pick<Admission, 'slotId' | 'reservedCredits' | 'workspace'>,
  end: (credits: number | null) => Promise<void>,
): Admission {
  let ended = false;
  const once = (credits: number | null) => {
    if (ended) return Promise.resolve();
    ended = true;
    return end(credits);
  };
  return { ...h, release: () => once(null), settle: (credits) => once(credits) };
}

/**
 * The leases of single runs (a probe under a credit limit takes one inside the locked
 * transaction): their renewal while a run lasts, their end with the run's charge in one
 * transaction, and the purge of leases nobody renews any more.
 */
export class AdmissionLeases {
  /** Leases of single runs this instance holds, by agent. */
  private readonly heldHere = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: { instanceId: string; leaseMs: number },
  ) {}

  /** A new lease of the agent's, lasting leaseMs from `now`. */
  slot(agent: Agent, reservedCredits: number, now: Date): RunSlot {
    return {
      id: newId('slot'),
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      teamId: agent.teamId,
      instanceId: this.config.instanceId,
      reservedCredits,
      expiresAt: new Date(now.getTime() + this.config.leaseMs),
    };
  }

  /** Leases of single runs this instance holds now (of one agent, when named). */
  held(agentId?: string): number {
    if (agentId !== undefined) return this.heldHere.get(agentId) ?? 0;
    let n = 0;
    for (const held of this.heldHere.values()) n += held;
    return n;
  }

  /** Deletes the leases that expired by now (a crashed instance's); returns how many. */
  purgeExpired(): Promise<number> {
    return this.store.repos.slots.purgeExpired(this.clock.now());
  }

  /** A run's charge to its agent's day (and so to its team's and workspace's). */
  chargeOf(agent: Agent, credits: number): CreditCharge {
    return {
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      teamId: agent.teamId,
      day: utcDay(this.clock.now()),
      credits,
    };
  }

  /**
   * Keeps a single run's lease alive while the run lasts (renewed at a third of the lease) and ends
   * it once: the lease goes and the charge is written in one transaction, so no admission sees both
   * or neither.
   */
  hold(agent: Agent, slotId: string, workspace: Workspace | null): Admission {
    const slots = this.store.repos.slots;
    this.heldHere.set(agent.id, (this.heldHere.get(agent.id) ?? 0) + 1);
    const timer = setInterval(
      () => {
        slots.renew(slotId, new Date(this.clock.now().getTime() + this.config.leaseMs)).catch(() => {});
      },
      Math.max(50, Math.floor(this.config.leaseMs / 3)),
    );
    timer.unref();
    return admitted({ slotId, reservedCredits: 0, workspace }, async (credits) => {
      clearInterval(timer);
      const left = (this.heldHere.get(agent.id) ?? 1) - 1;
      if (left > 0) this.heldHere.set(agent.id, left);
      else this.heldHere.delete(agent.id);
      const charged = credits ?? 0;
      if (!(charged > 0)) return slots.release(slotId);
      await this.store.transaction(async (r) => {
        await r.slots.release(slotId);
        await r.usage.charge(this.chargeOf(agent, charged));
      });
    });
  }
}
