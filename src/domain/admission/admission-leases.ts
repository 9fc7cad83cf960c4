import { utcDay, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Agent } from '../agents/agent.entities.js';
import type { Workspace } from '../workspace/workspace.entities.js';
import type { Store } from '../ports.js';
import type { ChargeSink, CreditCharge, RunSlot } from './admission.ports.js';

/** An admitted run: its lease (if it took one) and the credits it holds; end it exactly once. */
export interface Admission {
  slotId: string | null;
  /** Credits held against the daily limits until the run settles. */
  reservedCredits: number;
  /** The agent's workspace as admission read it (a script run's flat credits come from it). */
  workspace: Workspace | null;
  /** Ends the lease and charges the run's real credits, in one transaction. */
  settle(credits: number): Promise<void>;
  /** Ends the lease without a charge. */
  release(): Promise<void>;
}

/** What a held run is: its lease, its reservation, and how its charge is stored. */
export interface Hold {
  slotId: string | null;
  reservedCredits: number;
  workspace: Workspace | null;
  /** No credit limit applies: the charge goes to the charge sink instead of a statement of its own. */
  batched: boolean;
}

/**
 * The lease keeping of admission: the leases this instance holds, their renewal while a run lasts,
 * their end (with the run's charge) and the purge of leases nobody renews any more.
 */
export class AdmissionLeases {
  /**
   * Leases this instance holds, by agent. While they reach the agent's concurrency limit a request
   * is refused without a statement: every instance's leases count against the same limit, so the
   * database could only say the same (see "Hot path" in docs/decisions.md).
   */
  private readonly heldHere = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: { instanceId: string; leaseMs: number },
    private readonly charges?: ChargeSink,
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

  /** Whether this instance alone already holds `max` leases of the agent. */
  fullHere(agentId: string, max: number): boolean {
    return (this.heldHere.get(agentId) ?? 0) >= max;
  }

  /** Leases this instance holds now. */
  held(): number {
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
    return { agentId: agent.id, workspaceId: agent.workspaceId, teamId: agent.teamId, day: utcDay(this.clock.now()), credits };
  }

  /** Keeps the lease alive while the run lasts (renewed at a third of the lease) and ends it once. */
  hold(agent: Agent, h: Hold): Admission {
    const { slotId, batched } = h;
    const slots = this.store.repos.slots;
    if (slotId) this.heldHere.set(agent.id, (this.heldHere.get(agent.id) ?? 0) + 1);
    const timer = slotId
      ? setInterval(() => {
          slots.renew(slotId, new Date(this.clock.now().getTime() + this.config.leaseMs)).catch(() => {});
        }, Math.max(50, Math.floor(this.config.leaseMs / 3)))
      : null;
    timer?.unref();
    let ended = false;
    /** Stops renewal; true the first time only, so a run ends (and is charged) once. */
    const end = () => {
      if (ended) return false;
      ended = true;
      if (timer) clearInterval(timer);
      if (slotId) {
        const left = (this.heldHere.get(agent.id) ?? 1) - 1;
        if (left > 0) this.heldHere.set(agent.id, left);
        else this.heldHere.delete(agent.id);
      }
      return true;
    };
    return {
      slotId,
      reservedCredits: h.reservedCredits,
      workspace: h.workspace,
      release: async () => {
        if (end() && slotId) await slots.release(slotId);
      },
      settle: async (credits) => {
        if (!end()) return;
        if (!(credits > 0)) return void (slotId && (await slots.release(slotId)));
        if (batched && this.charges) {
          if (slotId) await slots.release(slotId);
          return this.charges.charge(this.chargeOf(agent, credits));
        }
        if (!slotId) return this.store.repos.usage.charge(this.chargeOf(agent, credits));
        // The reservation and the charge change places at once: no admission sees both or neither.
        await this.store.transaction(async (r) => {
          if (slotId) await r.slots.release(slotId);
          await r.usage.charge(this.chargeOf(agent, credits));
        });
      },
    };
  }
}
