import { utcDay, type Clock } from '../clock.js';
import { LimitExceeded } from '../errors.js';
import type { Agent } from '../core/agent.entities.js';
import type { Repositories, Store } from '../ports.js';
import { AdmissionLeases, admitted, type Admission } from './admission-leases.js';
import type { ChargeSink } from './admission.ports.js';
import {
  creditLimited,
  creditLimitsOf,
  limitsKey,
  lockLimits,
  roomUnder,
  type CreditLimit,
  type CreditScopes,
} from './credit-limits.js';
import { CreditSlices } from './credit-slices.js';
import { concurrencyFull, probeRefusal, UsedUpLimits } from './admission-refusals.js';
import { SlotPools, type PooledLease } from './slot-pools.js';

export type { Admission } from './admission-leases.js';
export type { CreditScopes } from './credit-limits.js';

export interface AdmissionConfig {
  /** Identifies this process in the slots table (diagnostics only). */
  instanceId: string;
  /** How long a lease lives without renewal; a crashed instance's slots and reservations free after this. */
  leaseMs: number;
  /** Retry-After for refusals that end when runs in flight end (concurrency, credits held by reservations). */
  concurrencyRetryAfterSeconds: number;
  /** A credit slice's life: what its runs did not use goes back at its end (§23.7). */
  sliceMs?: number;
  /** How long a concurrency lease stays with this instance after its run ended (0: none). */
  idleLeaseMs?: number;
  /** How long the charges of runs under a credit limit wait to be stored together. */
  chargeDelayMs?: number;
}

export const DEFAULT_ADMISSION: Omit<AdmissionConfig, 'instanceId'> = {
  leaseMs: 30_000,
  concurrencyRetryAfterSeconds: 1,
  sliceMs: 500,
  idleLeaseMs: 100,
  chargeDelayMs: 20,
};

/** How many days back the largest charged run of an agent serves as its estimate. */
export const ESTIMATE_DAYS = 7;

/** How long an agent's estimate (its largest run of the last days) is used before it is read again. */
const ESTIMATE_MS = 60_000;

/**
 * The most credits the admitted work can be charged, read through `repos` (`scopes`: the team and
 * workspace admission read): a number, or null when it is not known before the run (a prompt run on
 * a priced model without `maxCreditsPerRun`). Work admitted without one costs nothing (Document API
 * operations).
 */
export type CreditBound = (repos: Repositories, scopes?: CreditScopes) => Promise<number | null>;

/**
 * Admission before a run (DESIGN §5 step 5) and settling after it (step 8). Credit limits compare
 * what the agent, its team and its workspace were charged today (UTC) plus the credits reserved with
 * their limits. Runs are admitted in memory against slices of the remaining budget that a locked
 * transaction grants this instance, and into the concurrency leases it holds; a statement is needed
 * only when the slice or the leases run out (docs/decisions.md §15, §23.7). A probe (an agent whose
 * cost per run is not known yet) still takes the locked transaction per run.
 */
export class AdmissionService {
  /** Daily limits found used up, until the next midnight UTC. */
  private readonly usedUp = new UsedUpLimits();
  /** Agents' largest runs of the last ESTIMATE_DAYS days, while known and fresh. */
  private readonly estimates = new Map<string, { credits: number; until: number }>();
  private readonly leases: AdmissionLeases;
  private readonly pools: SlotPools;
  private readonly slices: CreditSlices;

  /**
   * @param charges where the charges of runs that no credit limit applies to go (stored in batches
   *   by infra); without one they are written at once, like every other charge.
   */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: AdmissionConfig,
    private readonly charges?: ChargeSink,
  ) {
    const c = { ...DEFAULT_ADMISSION, ...config } as Required<AdmissionConfig>;
    this.leases = new AdmissionLeases(store, clock, c);
    this.pools = new SlotPools(store, clock, c);
    this.slices = new CreditSlices(store, clock, c);
  }

  /**
   * Admits a run or throws LimitExceeded with the reason and the seconds to wait. `bound` says what
   * the run can cost (absent: nothing); the reservation made from it is held until `settle`.
   */
  async admit(agent: Agent, bound?: CreditBound): Promise<Admission> {
    const max = agent.maxConcurrentRequests;
    const scopes = await this.scopesOf(agent);
    const { workspace } = scopes;
    // No credit limit on the agent, its team or its workspace: nothing to count but the concurrency
    // limit, if any, and the run's charge can wait for the next batch.
    if (!creditLimited(agent, scopes)) {
      const lease = max == null ? null : await this.lease(agent, max);
      return admitted({ slotId: lease?.id ?? null, reservedCredits: 0, workspace }, async (credits) => {
        if (lease) await this.pools.put(agent.id, lease);
        if ((credits ?? 0) > 0) await this.chargeSoon(agent, credits!);
      });
    }
    const now = this.clock.now();
    this.usedUp.refuse(agent, scopes, now);
    const credits = await this.reservationOf(agent, scopes, bound, now);
    if (credits === null) return this.admitProbe(agent, scopes, now);
    await this.credit(agent, scopes, credits, now);
    let lease: PooledLease | null = null;
    try {
      lease = max == null ? null : await this.lease(agent, max);
    } catch (err) {
      this.slices.settle(agent, credits, null);
      throw err;
    }
    return admitted({ slotId: lease?.id ?? null, reservedCredits: credits, workspace }, async (charged) => {
      if (lease) await this.pools.put(agent.id, lease);
      const estimate = this.estimates.get(agent.id);
      if (estimate && (charged ?? 0) > estimate.credits) estimate.credits = charged!;
      if (!this.slices.settle(agent, credits, charged) && (charged ?? 0) > 0)
        await this.store.repos.usage.charge(this.leases.chargeOf(agent, charged!));
    });
  }

  /**
   * Leases in use by this instance's runs now, of one agent when named (for /metrics). A lease this
   * instance keeps for the agent's next run is not in use.
   */
  leasesHeld(agentId?: string): number {
    return this.pools.busy(agentId) + this.leases.held(agentId);
  }

  /** Credits reserved by the agent's runs in flight in this instance (what settling gives back). */
  reservedInFlight(agentId: string): number {
    return this.slices.inFlight(agentId);
  }

  /**
   * Deletes the run leases that expired (those of a crashed instance: expired ones never count, this
   * only keeps the table small). Housekeeping calls it; returns how many went.
   */
  purgeExpiredLeases(): Promise<number> {
    return this.leases.purgeExpired();
  }

  /** Stores the charges of ended runs under credit limits (readers of usage call this first). */
  flushCharges(): Promise<void> {
    return this.slices.flush();
  }

  /** Shutdown: stores what is pending and gives back the budget and leases no run holds. */
  async close(): Promise<void> {
    await this.slices.close();
    await this.pools.close();
  }

  /** Adds a finished run's credits to the agent's day (and so to its team's and workspace's). */
  async charge(agent: Agent, credits: number): Promise<void> {
    await this.store.repos.usage.charge(this.leases.chargeOf(agent, credits));
  }

  /** A concurrency lease for a run: one this instance holds, or a new one in one statement. */
  private async lease(agent: Agent, max: number): Promise<PooledLease> {
    const held = this.pools.take(agent.id, max);
    if (held === 'full') throw concurrencyFull(max, this.config.concurrencyRetryAfterSeconds);
    const lease = held ?? (await this.pools.acquire(agent, max));
    if (!lease) throw concurrencyFull(max, this.config.concurrencyRetryAfterSeconds);
    return lease;
  }

  private async chargeSoon(agent: Agent, credits: number): Promise<void> {
    if (this.charges) this.charges.charge(this.leases.chargeOf(agent, credits));
    else await this.store.repos.usage.charge(this.leases.chargeOf(agent, credits));
  }

  /**
   * Reserves `credits` for a run under credit limits: from this instance's slice in memory, or after
   * a locked transaction granted the slice more. When no more room is left, a slice with anything
   * left still admits one run (the bound: one run's reservation per instance over the limit).
   */
  private async credit(agent: Agent, scopes: CreditScopes, credits: number, now: Date): Promise<void> {
    const key = limitsKey(agent, scopes);
    // The limits and their wording are built only when a grant is needed, not per run.
    let limits: CreditLimit[] | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.slices.admit(agent, key, credits)) return;
      let want = credits;
      const granted = await this.slices.serially(agent, key, async () => {
        // Another admission's grant may have made the room while this one waited.
        if (this.slices.admit(agent, key, credits)) return 'admitted' as const;
        want = Math.max(credits, this.slices.want(agent.id, credits));
        const under = (limits ??= creditLimitsOf(agent, scopes));
        await this.charges?.flush();
        await this.slices.storePending(agent.id);
        const { room, apply } = await this.store.transaction(async (r) => {
          await r.slots.lockAgent(agent.id);
          await lockLimits(r, under);
          const room = await roomUnder(r, under, now, this.config.concurrencyRetryAfterSeconds);
          return { room, apply: await this.slices.grant(r, agent, key, Math.min(want, Math.max(0, room.credits))) };
        });
        apply();
        return room;
      });
      if (granted === 'admitted') return;
      if (granted.usedUp) {
        this.usedUp.note(granted.usedUp, now);
        throw granted.refusal!;
      }
      const short = granted.credits < want;
      // Nothing to reserve: the room is all that counts.
      if (credits <= 0 && !granted.refusal) return;
      if (this.slices.admit(agent, key, credits, short)) return;
      // A team's or workspace's limit held by this instance's other agents' slices: what no run of
      // theirs holds goes back, and the grant is tried again.
      if (
        granted.refusal &&
        (granted.refusal.reason === 'daily_credit_limit' || (await this.slices.giveBackOthers(agent)) === 0)
      )
        throw granted.refusal;
    }
    const first = (limits ?? creditLimitsOf(agent, scopes))[0]!;
    throw new LimitExceeded(first.reason, this.config.concurrencyRetryAfterSeconds, first.held);
  }

  /**
   * What a run under a credit limit reserves: its bound when known, else the largest run the agent
   * was charged for in the last ESTIMATE_DAYS days; null (a probe) when there is none.
   */
  private async reservationOf(
    agent: Agent,
    scopes: CreditScopes,
    bound: CreditBound | undefined,
    now: Date,
  ): Promise<number | null> {
    if (!bound) return 0;
    const known = await bound(this.store.repos, scopes);
    if (known != null) return Math.max(0, known);
    const cached = this.estimates.get(agent.id);
    if (cached && cached.until > now.getTime()) return cached.credits;
    await this.slices.flushAgent(agent.id);
    const since = utcDay(new Date(now.getTime() - (ESTIMATE_DAYS - 1) * 86_400_000));
    const largest = await this.store.repos.usage.largestRun(agent.id, since);
    if (!(largest > 0)) return null;
    if (this.estimates.size >= 10_000) this.estimates.clear();
    // Until the window moves at midnight UTC, and at most ESTIMATE_MS.
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    this.estimates.set(agent.id, { credits: largest, until: Math.min(midnight, now.getTime() + ESTIMATE_MS) });
    return largest;
  }

  /**
   * A probe: an agent under a credit limit whose cost per run is not known yet runs one request at a
   * time, each admitted by the locked transaction with a lease of its own, until a run is charged.
   */
  private async admitProbe(agent: Agent, scopes: CreditScopes, now: Date): Promise<Admission> {
    const max = agent.maxConcurrentRequests;
    const limits = creditLimitsOf(agent, scopes);
    await this.charges?.flush();
    const slotId = await this.store.transaction(async (r) => {
      await r.slots.lockAgent(agent.id);
      await lockLimits(r, limits);
      const room = await roomUnder(r, limits, now, this.config.concurrencyRetryAfterSeconds);
      if (room.usedUp) this.usedUp.note(room.usedUp, now);
      if (room.refusal) throw room.refusal;
      if ((await r.slots.countActive(agent.id, now)) > 0) throw probeRefusal(this.config.concurrencyRetryAfterSeconds);
      const slot = this.leases.slot(agent, 0, now);
      // A numbered lease, as every other run takes them, so a concurrency limit counts it.
      if (max == null) await r.slots.insert(slot);
      else if ((await r.slots.acquire(slot, max, now)) === null)
        throw concurrencyFull(max, this.config.concurrencyRetryAfterSeconds);
      return slot.id;
    });
    return this.leases.hold(agent, slotId, scopes.workspace);
  }

  /** The agent's team (when it has one) and workspace, read once from the store's cache. */
  private async scopesOf(agent: Agent): Promise<CreditScopes> {
    const team = agent.teamId ? await this.store.repos.teams.get(agent.teamId) : null;
    const workspace = await this.store.repos.workspaces.get(agent.workspaceId);
    return { team, workspace };
  }
}
