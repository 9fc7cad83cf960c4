import type { DailyUsage } from './admission.entities.js';

// Ports of admission (credits and run leases) the domain talks to. src/infra implements them;
// nothing here knows about SQL.

export interface UsageRepo {
  listByAgent(agentId: string, fromDay: string): Promise<DailyUsage[]>;
  /** Credits per day summed over the workspace's agents. */
  listByWorkspace(workspaceId: string, fromDay: string): Promise<{ day: string; credits: number; runs: number }[]>;
  /** Credits used on `day` by one agent, a team's agents, or the whole workspace. */
  agentDay(agentId: string, day: string): Promise<number>;
  teamDay(teamId: string, day: string): Promise<number>;
  workspaceDay(workspaceId: string, day: string): Promise<number>;
  /** Adds a run's credits to the agent's row of that day (and keeps the day's largest run). */
  charge(c: CreditCharge): Promise<void>;
  /** Adds several runs' credits at once: one row per agent and day, `runs` runs, `maxRunCredits` the largest. */
  chargeMany(cs: SummedCharge[]): Promise<void>;
  /** The largest credits one run of the agent was charged on a day from `fromDay` on (0 when none). */
  largestRun(agentId: string, fromDay: string): Promise<number>;
}

/** One run's credits, charged to its agent's day. */
export interface CreditCharge {
  agentId: string;
  workspaceId: string;
  teamId: string | null;
  day: string;
  credits: number;
}

/**
 * Where the charges of runs that no credit limit waits on go: infra stores them shortly after, in
 * batches, so charging adds no statement to a request. `flush()` resolves once everything charged so
 * far is stored (readers of usage call it first; shutdown calls it).
 */
export interface ChargeSink {
  charge(c: CreditCharge): void;
  flush(): Promise<void>;
}

/** Whose daily credit limit a sum or a lock is about. */
export type CreditScope = { agentId: string } | { teamId: string } | { workspaceId: string };

/** A lease on one admitted run; `reservedCredits` count against the credit limits until it ends. */
export interface RunSlot {
  id: string;
  agentId: string;
  workspaceId: string;
  teamId: string | null;
  instanceId: string;
  reservedCredits: number;
  expiresAt: Date;
  /**
   * A slice of the daily budget an instance holds (its credits count against the limits like a
   * run's reservation) rather than a run: not counted by the concurrency limit or the probe.
   */
  budget?: boolean;
}

/** Charges of several runs of one agent on one day, summed: `runs` runs, `maxRunCredits` the largest. */
export type SummedCharge = CreditCharge & { runs: number; maxRunCredits: number };

/**
 * Runs in flight: leases shared by every instance through the database. A lease counts towards the
 * agent's concurrency limit and holds its reserved credits against the credit limits until it is
 * released or expires.
 */
export interface SlotRepo {
  /** Serialises admissions of one agent until the surrounding transaction ends. */
  lockAgent(agentId: string): Promise<void>;
  /** Serialises admissions against one team's or workspace's limit until the transaction ends. */
  lockLimit(scope: { teamId: string } | { workspaceId: string }): Promise<void>;
  /** The agent's unexpired run leases (budget slices are not runs). */
  countActive(agentId: string, now: Date): Promise<number>;
  /** Credits reserved by the unexpired leases of the scope's agents. */
  reserved(scope: CreditScope, now: Date): Promise<number>;
  insert(slot: RunSlot): Promise<void>;
  /**
   * Takes one of the agent's `max` numbered leases in one statement: a number below `max` that no
   * unexpired lease holds, while the agent holds fewer than `max` unexpired leases. A number is
   * unique per agent, so two instances can never take the same one: the limit holds without a lock
   * or a transaction. Resolves with the number taken, or null when none is free (nothing is written then).
   */
  acquire(slot: RunSlot, max: number, now: Date): Promise<number | null>;
  renew(id: string, expiresAt: Date): Promise<void>;
  /** Renews several leases in one statement. */
  renewMany(ids: string[], expiresAt: Date): Promise<void>;
  release(id: string): Promise<void>;
  /** Ends several leases in one statement. */
  releaseMany(ids: string[]): Promise<void>;
  /**
   * Sets what a budget slice holds (and renews it); false when the lease is gone (it expired and
   * was purged), so nothing was changed.
   */
  resize(id: string, reservedCredits: number, expiresAt: Date): Promise<boolean>;
  /**
   * Turns part of a budget slice into charges in one statement: the slice holds `charge.credits`
   * less (never below 0) as the agent's day is charged them, so no reader sees both or neither.
   * Without a slice (null, or one gone) only the charge is written.
   */
  spend(id: string | null, charge: SummedCharge): Promise<void>;
  /** Deletes leases that expired before `now` (housekeeping; expired ones never count). */
  purgeExpired(now: Date): Promise<number>;
}
