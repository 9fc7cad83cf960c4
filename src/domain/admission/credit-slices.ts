import { utcDay, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Agent } from '../core/agent.entities.js';
import type { Repositories, Store } from '../ports.js';
import { addPending, floor6, keepUnstored, newSlice, round6, type Slice } from './credit-slice.js';

export interface CreditSliceConfig {
  instanceId: string;
  leaseMs: number;
  /** A slice's life: at its end what its runs did not use goes back (and the slice is renewed). */
  sliceMs: number;
  /** How long settled charges wait to be stored together. */
  chargeDelayMs: number;
}

/** The most runs one slice is sized for. */
const MAX_RUNS_PER_SLICE = 10_000;

/**
 * Slices of daily credit budgets (docs/decisions.md §23.7): per agent under a credit limit, the
 * credits this instance was granted by one locked transaction and admits runs against in memory. The
 * slice is a lease whose reserved credits count against the agent's, its team's and its workspace's
 * limits like a run's reservation; ended runs' charges move out of it into the agent's day in one
 * statement a batch; at the end of each life what no run holds goes back.
 */
export class CreditSlices {
  private readonly slices = new Map<string, Slice>();
  private closing = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: CreditSliceConfig,
  ) {}

  /**
   * Admits a run reserving `credits` against the agent's slice without a statement, when the slice
   * was granted under these `limits` and has room: at least `credits` left, or anything left for a
   * run that reserves nothing (`partial`: anything left, after a grant found no more room).
   */
  admit(agent: Agent, limits: string, credits: number, partial = false): boolean {
    const s = this.slices.get(agent.id);
    if (!s || s.limits !== limits) return false;
    const free = s.granted - s.inFlight - s.pendingCredits;
    if (!(credits > 0 ? free >= credits - 1e-9 || (partial && free > 1e-9) : free > 1e-9)) return false;
    s.agent = agent;
    s.inFlight += credits;
    s.admitted++;
    return true;
  }

  /** What the agent's next grant asks for: room for the runs of a life, at least one. */
  want(agentId: string, credits: number): number {
    const s = this.slices.get(agentId);
    const runs = Math.min(MAX_RUNS_PER_SLICE, Math.max(1, s ? Math.max(s.admittedBefore, 2 * s.admitted) : 1));
    return floor6(credits * runs);
  }

  /**
   * Grants the agent's slice `credits` more under `limits`, written inside the admission's locked
   * transaction `r`; returns what to apply in memory once that transaction committed. A slice granted
   * under other limits first gives back what no run holds.
   */
  async grant(r: Repositories, agent: Agent, limits: string, credits: number): Promise<() => void> {
    const s = this.sliceOf(agent, limits);
    let granted = s.granted;
    if (s.limits !== limits) granted = Math.min(granted, round6(s.inFlight + s.pendingCredits));
    const total = round6(granted + Math.max(0, credits));
    const apply = (leaseId: string | null, held: number) => () => {
      s.limits = limits;
      s.leaseId = leaseId;
      s.granted = held;
    };
    if (s.leaseId && (await r.slots.resize(s.leaseId, total, this.expiry()))) return apply(s.leaseId, total);
    if (total <= 0) return apply(null, 0);
    // No lease yet, or it expired and was purged (its credits counted for nobody since).
    const id = newId('slot');
    await r.slots.insert({
      id,
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      teamId: agent.teamId,
      instanceId: this.config.instanceId,
      reservedCredits: total,
      expiresAt: this.expiry(),
      budget: true,
    });
    return apply(id, total);
  }

  /**
   * Runs a grant (a locked transaction calling `grant`) after the slice's other statements, so the
   * lease is written by one statement at a time.
   */
  serially<T>(agent: Agent, limits: string, work: () => Promise<T>): Promise<T> {
    const s = this.sliceOf(agent, limits);
    const done = s.chain.then(work, work);
    s.chain = done.catch(() => {});
    return done;
  }

  /**
   * A run admitted against the slice ended: its reservation ends, its credits are charged soon.
   * False when the agent has no slice (a run that reserved nothing): the caller charges it.
   */
  settle(agent: Agent, reserved: number, credits: number | null): boolean {
    const s = this.slices.get(agent.id);
    if (!s) return false;
    s.inFlight = Math.max(0, round6(s.inFlight - reserved));
    const charged = credits ?? 0;
    if (!(charged > 0)) return true;
    addPending(s, agent, utcDay(this.clock.now()), charged);
    s.flushTimer ??= setTimeout(() => void this.flushOne(s).catch(() => {}), this.config.chargeDelayMs);
    s.flushTimer.unref();
    return true;
  }

  /** Stores every slice's pending charges (readers of usage call this first). */
  async flush(): Promise<void> {
    await Promise.all([...this.slices.values()].map((s) => this.flushOne(s)));
  }

  /** Stores the pending charges and gives back every slice's credits that no run holds (shutdown). */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.slices.values()].map((s) => this.retire(s, true)));
  }

  /** Credits the agent's runs in flight reserve in this instance's slice. */
  inFlight(agentId: string): number {
    return this.slices.get(agentId)?.inFlight ?? 0;
  }

  private sliceOf(agent: Agent, limits: string): Slice {
    let s = this.slices.get(agent.id);
    if (!s) {
      s = newSlice(agent, limits);
      this.slices.set(agent.id, s);
    }
    if (!s.life && !this.closing) {
      const slice = s;
      s.life = setTimeout(
        () => void this.endLife(slice).catch(() => {}),
        Math.max(10, Math.min(this.config.sliceMs, Math.floor(this.config.leaseMs / 3))),
      );
      s.life.unref();
    }
    return s;
  }

  /** Stores the slice's pending charges after its other statements. */
  private flushOne(s: Slice): Promise<void> {
    clearTimeout(s.flushTimer ?? undefined);
    s.flushTimer = null;
    if (s.pending.size === 0) return s.chain.then(() => undefined);
    const done = s.chain.then(() => this.storeCharges(s));
    s.chain = done.catch(() => {});
    return done;
  }

  /**
   * Stores the agent's pending charges now, from inside its slice's turn (`serially`): a grant
   * compares the limits with every charge this instance knows of.
   */
  async storePending(agentId: string): Promise<void> {
    const s = this.slices.get(agentId);
    if (!s || s.pending.size === 0) return;
    clearTimeout(s.flushTimer ?? undefined);
    s.flushTimer = null;
    await this.storeCharges(s);
  }

  /** Stores the agent's pending charges after its slice's other statements (before reading its runs). */
  async flushAgent(agentId: string): Promise<void> {
    const s = this.slices.get(agentId);
    if (s) await this.flushOne(s);
  }

  /**
   * Gives back what no run holds of this instance's other slices in the agent's team or workspace
   * (a grant found their limit held); resolves with how many gave anything back.
   */
  async giveBackOthers(agent: Agent): Promise<number> {
    const others = [...this.slices.values()].filter(
      (s) =>
        s.agent.id !== agent.id &&
        s.agent.workspaceId === agent.workspaceId &&
        s.granted - s.inFlight - s.pendingCredits > 1e-9,
    );
    await Promise.all(others.map((s) => this.retire(s, true).catch(() => {})));
    return others.length;
  }

  /** Moves the slice's pending charges into the agent's day, out of its credits in the same statement. */
  private async storeCharges(s: Slice): Promise<void> {
    const batch = [...s.pending.values()];
    s.pending = new Map();
    try {
      while (batch.length) {
        const c = batch[0]!;
        await this.store.repos.slots.spend(s.leaseId, c);
        s.granted = Math.max(0, round6(s.granted - c.credits));
        s.pendingCredits = Math.max(0, round6(s.pendingCredits - c.credits));
        batch.shift();
      }
      // A slice spent to nothing, with no run in it, ends now rather than at the end of its life.
      if (s.leaseId && s.granted <= 0 && s.inFlight <= 0 && s.pending.size === 0) {
        await this.store.repos.slots.release(s.leaseId);
        s.leaseId = null;
      }
    } catch (err) {
      // Nothing charged is dropped: what was not stored waits for the next flush, still held.
      keepUnstored(s, batch);
      s.flushTimer ??= setTimeout(() => void this.flushOne(s).catch(() => {}), 1_000);
      s.flushTimer.unref();
      throw err;
    }
  }

  /** The end of a life: charges stored, and what no run holds goes back; an unused slice ends. */
  private async endLife(s: Slice): Promise<void> {
    s.life = null;
    s.admittedBefore = s.admitted;
    s.admitted = 0;
    await this.retire(s);
  }

  /** Stores the slice's charges and shrinks it to what its runs hold; `ending`: even a busy one. */
  private async retire(s: Slice, ending = false): Promise<void> {
    await this.flushOne(s).catch(() => {});
    const done = s.chain.then(async () => {
      const keep = round6(s.inFlight + s.pendingCredits);
      if (keep > 0 || (!ending && s.admittedBefore > 0)) {
        // Still in use: hold what the runs in flight reserved, renewed for another lease length.
        if (s.leaseId && !(await this.store.repos.slots.resize(s.leaseId, keep, this.expiry()))) s.leaseId = null;
        s.granted = s.leaseId ? keep : 0;
        if (!s.life && !this.closing && this.slices.get(s.agent.id) === s) this.sliceOf(s.agent, s.limits);
        return;
      }
      if (this.slices.get(s.agent.id) === s) this.slices.delete(s.agent.id);
      clearTimeout(s.life ?? undefined);
      s.life = null;
      if (s.leaseId) await this.store.repos.slots.release(s.leaseId);
      s.leaseId = null;
      s.granted = 0;
    });
    s.chain = done.catch(() => {});
    await done;
  }

  private expiry(): Date {
    return new Date(this.clock.now().getTime() + this.config.leaseMs);
  }
}
