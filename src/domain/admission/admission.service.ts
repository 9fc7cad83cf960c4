import { secondsToUtcMidnight, utcDay, type Clock } from '../clock.js';
import { LimitExceeded, type LimitReason } from '../errors.js';
import type { Agent } from '../agents/agent.entities.js';
import type { Team, Workspace } from '../workspace/workspace.entities.js';
import type { Repositories, Store } from '../ports.js';
import { AdmissionLeases, type Admission } from './admission-leases.js';
import type { ChargeSink, CreditScope } from './admission.ports.js';

export type { Admission } from './admission-leases.js';

export interface AdmissionConfig {
  /** Identifies this process in the slots table (diagnostics only). */
  instanceId: string;
  /** How long a lease lives without renewal; a crashed instance's slots and reservations free after this. */
  leaseMs: number;
  /** Retry-After for refusals that end when runs in flight end (concurrency, credits held by reservations). */
  concurrencyRetryAfterSeconds: number;
}

export const DEFAULT_ADMISSION: Omit<AdmissionConfig, 'instanceId'> = { leaseMs: 30_000, concurrencyRetryAfterSeconds: 1 };

/** How many days back the largest charged run of an agent serves as its estimate. */
export const ESTIMATE_DAYS = 7;

/**
 * The agent's team and workspace, whose daily credit limits apply to its runs besides its own: read
 * once per admission (from the store's cache), then used by every check of it.
 */
export interface CreditScopes {
  team: Team | null;
  workspace: Workspace | null;
}

/**
 * The most credits the admitted work can be charged, read inside the admission transaction through
 * its repositories (`scopes`: the team and workspace admission read): a number, or null when it is
 * not known before the run (a prompt run on a priced model without `maxCreditsPerRun`). Work
 * admitted without one costs nothing (Document API operations).
 */
export type CreditBound = (repos: Repositories, scopes?: CreditScopes) => Promise<number | null>;

/** A daily credit limit that applies to a run, and how to word its refusals. */
interface CreditLimit {
  scope: CreditScope;
  limit: number;
  reason: LimitReason;
  usedUp: string;
  held: string;
}

/** What an admitted run reserves: credits, or a probe (an agent whose cost per run is not known yet). */
type Reservation = { credits: number; probe: boolean };

const NOTHING: Reservation = { credits: 0, probe: false };

/**
 * Admission before a run (DESIGN §5 step 5) and settling after it (step 8). Credit limits compare
 * what the agent, its team and its workspace were charged today (UTC) plus the credits reserved by
 * their runs in flight with their limits; concurrency counts unexpired leases in the database, so
 * every instance sees the same runs. Under a credit limit, admissions of one agent are serialised
 * by a database lock (and of one team or workspace, when it has a limit), so a credit limit is
 * overshot by less than one run's reservation when runs cost no more than they reserved
 * (docs/decisions.md, "Credit reservations"). A concurrency limit alone takes a numbered lease in
 * one statement, exact without a lock; nothing limited takes no statement at all ("Hot path").
 */
export class AdmissionService {
  /** Daily limits found used up, by scope, until the next midnight UTC (see refuseIfUsedUp). */
  private readonly usedUp = new Map<string, { limit: number; until: number; reason: LimitReason; message: string }>();
  private readonly leases: AdmissionLeases;

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
    this.leases = new AdmissionLeases(store, clock, config, charges);
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
      // Nothing to count at all: no statement, no lock, no slot.
      if (max == null) return this.leases.hold(agent, { slotId: null, reservedCredits: 0, workspace, batched: true });
      // Only a concurrency limit: one statement takes a numbered lease or finds none free — unless
      // this instance alone already holds that many.
      if (this.leases.fullHere(agent.id, max)) throw this.concurrencyFull(max);
      const slot = this.leases.slot(agent, 0, this.clock.now());
      if (!(await this.store.repos.slots.acquire(slot, max, this.clock.now()))) throw this.concurrencyFull(max);
      return this.leases.hold(agent, { slotId: slot.id, reservedCredits: 0, workspace, batched: true });
    }
    const now = this.clock.now();
    this.refuseIfUsedUp(agent, scopes, now);
    // This instance's batched charges count before any limit is compared with what was charged.
    await this.charges?.flush();
    const { slotId, reservation } = await this.store.transaction(async (r) => {
      await r.slots.lockAgent(agent.id);
      const limits = await this.creditLimits(r, agent, scopes);
      await this.checkCredits(r, limits, now);
      const reservation = limits.length && bound ? await this.reservation(r, agent, () => bound(r, scopes), now) : NOTHING;
      await this.checkProbe(r, agent, reservation.probe, now);
      if (max == null && reservation.credits <= 0 && !reservation.probe) return { slotId: null, reservation };
      const slot = this.leases.slot(agent, reservation.credits, now);
      if (max == null) await r.slots.insert(slot);
      // A numbered lease, as the lock-free path takes them, so both paths count the same numbers.
      else if (!(await r.slots.acquire(slot, max, now))) throw this.concurrencyFull(max);
      return { slotId: slot.id, reservation };
    });
    return this.leases.hold(agent, { slotId, reservedCredits: reservation.credits, workspace, batched: false });
  }

  /** Concurrency leases this instance holds now (for /metrics). */
  leasesHeld(): number {
    return this.leases.held();
  }

  /**
   * Deletes the run leases that expired (those of a crashed instance: expired ones never count, this
   * only keeps the table small). Housekeeping calls it; returns how many went.
   */
  purgeExpiredLeases(): Promise<number> {
    return this.leases.purgeExpired();
  }

  /** The agent's team (when it has one) and workspace, read once from the store's cache. */
  private async scopesOf(agent: Agent): Promise<CreditScopes> {
    const team = agent.teamId ? await this.store.repos.teams.get(agent.teamId) : null;
    const workspace = await this.store.repos.workspaces.get(agent.workspaceId);
    return { team, workspace };
  }

  private concurrencyFull(max: number): LimitExceeded {
    return new LimitExceeded('concurrency_limit', this.config.concurrencyRetryAfterSeconds, `This agent is already handling ${max} requests, its limit; retry shortly`);
  }

  /**
   * A limit found used up stays used up until midnight UTC: charges only add up, and a changed
   * limit is another limit. Later requests are refused from memory, without a statement, as long as
   * the limit is the same.
   */
  private refuseIfUsedUp(agent: Agent, { team, workspace: ws }: CreditScopes, now: Date): void {
    const t = now.getTime();
    const check = (key: string, limit: number | null | undefined) => {
      const u = limit == null ? undefined : this.usedUp.get(key);
      return u && u.limit === limit && t < u.until ? u : undefined;
    };
    const agentUsedUp = check(`agent:${agent.id}`, agent.dailyCreditLimit);
    const teamUsedUp = team ? check(`team:${team.id}`, team.dailyCreditLimit) : undefined;
    const wsUsedUp = ws ? check(`workspace:${ws.id}`, ws.dailyCreditLimit) : undefined;
    const hit = agentUsedUp ?? teamUsedUp ?? wsUsedUp;
    if (hit) throw new LimitExceeded(hit.reason, secondsToUtcMidnight(now), hit.message);
  }

  private noteUsedUp(l: CreditLimit, now: Date): void {
    const key = 'agentId' in l.scope ? `agent:${l.scope.agentId}` : 'teamId' in l.scope ? `team:${l.scope.teamId}` : `workspace:${l.scope.workspaceId}`;
    if (this.usedUp.size >= 10_000) this.usedUp.clear();
    const until = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    this.usedUp.set(key, { limit: l.limit, until, reason: l.reason, message: l.usedUp });
  }

  /** Adds a finished run's credits to the agent's day (and so to its team's and workspace's). */
  async charge(agent: Agent, credits: number): Promise<void> {
    await this.store.repos.usage.charge(this.leases.chargeOf(agent, credits));
  }

  /**
   * The limits that apply to the agent's runs, agent first. A team's or workspace's limit is locked
   * (after the agent's lock, always in this order) so that admissions of its different agents
   * cannot both see the same room under it.
   */
  private async creditLimits(r: Repositories, agent: Agent, { team, workspace: ws }: CreditScopes): Promise<CreditLimit[]> {
    const limits: CreditLimit[] = [];
    if (agent.dailyCreditLimit != null) {
      const l = agent.dailyCreditLimit;
      limits.push({
        scope: { agentId: agent.id },
        limit: l,
        reason: 'daily_credit_limit',
        usedUp: `This agent used its daily credit limit of ${l}; it resets at 00:00 UTC`,
        held: `This agent's daily credit limit of ${l} is held by its runs in flight; retry shortly`,
      });
    }
    if (team?.dailyCreditLimit != null) {
      const l = team.dailyCreditLimit;
      await r.slots.lockLimit({ teamId: team.id });
      limits.push({
        scope: { teamId: team.id },
        limit: l,
        reason: 'team_credit_limit',
        usedUp: `The team's daily credit limit of ${l} is used up; it resets at 00:00 UTC`,
        held: `The team's daily credit limit of ${l} is held by runs in flight; retry shortly`,
      });
    }
    if (ws?.dailyCreditLimit != null) {
      const l = ws.dailyCreditLimit;
      await r.slots.lockLimit({ workspaceId: ws.id });
      limits.push({
        scope: { workspaceId: ws.id },
        limit: l,
        reason: 'workspace_credit_limit',
        usedUp: `The workspace's daily credit limit of ${l} is used up; it resets at 00:00 UTC`,
        held: `The workspace's daily credit limit of ${l} is held by runs in flight; retry shortly`,
      });
    }
    return limits;
  }

  /**
   * Refuses when a limit is reached by what was charged today (until midnight) or by that plus the
   * credits reserved by runs in flight (shortly: they may settle for less than they reserved).
   */
  private async checkCredits(r: Repositories, limits: CreditLimit[], now: Date): Promise<void> {
    const day = utcDay(now);
    for (const l of limits) {
      // Reserved before charged: a run settling in between (its reservation becomes
      // a charge; on PostgreSQL each statement sees the latest commits) is then counted twice, never
      // missed.
      const reserved = await r.slots.reserved(l.scope, now);
      const charged = await chargedOn(r, l.scope, day);
      if (charged >= l.limit) {
        this.noteUsedUp(l, now);
        throw new LimitExceeded(l.reason, secondsToUtcMidnight(now), l.usedUp);
      }
      if (credits6(charged + reserved) >= l.limit) throw new LimitExceeded(l.reason, this.config.concurrencyRetryAfterSeconds, l.held);
    }
  }

  /**
   * Refuses a probe (a run whose cost is not known yet, under a credit limit) while another run of
   * the agent is in flight. A full concurrency limit is refused by taking the numbered lease.
   */
  private async checkProbe(r: Repositories, agent: Agent, probe: boolean, now: Date): Promise<void> {
    if (!probe) return;
    if ((await r.slots.countActive(agent.id, now)) > 0) {
      throw new LimitExceeded(
        'concurrency_limit',
        this.config.concurrencyRetryAfterSeconds,
        "This agent's cost per run is not known yet (no maxCreditsPerRun guardrail, no run charged this week), so under its credit limits it runs one request at a time until a run is charged; retry shortly",
      );
    }
  }

  /**
   * What a run reserves: its bound when known, else the largest run the agent was charged for in
   * the last ESTIMATE_DAYS days, else nothing but as a probe (one run of the agent at a time).
   */
  private async reservation(r: Repositories, agent: Agent, bound: () => Promise<number | null>, now: Date): Promise<Reservation> {
    const known = await bound();
    if (known != null) return { credits: Math.max(0, known), probe: false };
    const since = utcDay(new Date(now.getTime() - (ESTIMATE_DAYS - 1) * 86_400_000));
    const largest = await r.usage.largestRun(agent.id, since);
    return largest > 0 ? { credits: largest, probe: false } : { credits: 0, probe: true };
  }
}

/** Whether a daily credit limit applies to the agent's runs: its own, its team's or its workspace's. */
function creditLimited(agent: Agent, { team, workspace }: CreditScopes): boolean {
  return agent.dailyCreditLimit != null || team?.dailyCreditLimit != null || workspace?.dailyCreditLimit != null;
}

function chargedOn(r: Repositories, scope: CreditScope, day: string): Promise<number> {
  if ('agentId' in scope) return r.usage.agentDay(scope.agentId, day);
  if ('teamId' in scope) return r.usage.teamDay(scope.teamId, day);
  return r.usage.workspaceDay(scope.workspaceId, day);
}

/** Credits as the database stores them (6 decimals), so sums compare exactly with a limit. */
function credits6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
