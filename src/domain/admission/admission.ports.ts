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
  chargeMany(cs: (CreditCharge & { runs: number; maxRunCredits: number })[]): Promise<void>;
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
}

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
  countActive(agentId: string, now: Date): Promise<number>;
  /** Credits reserved by the unexpired leases of the scope's agents. */
  reserved(scope: CreditScope, now: Date): Promise<number>;
  insert(slot: RunSlot): Promise<void>;
  /**
   * Takes one of the agent's `max` numbered leases in one statement: a number below `max` that no
   * unexpired lease holds, while the agent holds fewer than `max` unexpired leases. A number is
   * unique per agent, so two instances can never take the same one: the limit holds without a lock
   * or a transaction. False when none is free (nothing is written then).
   */
  acquire(slot: RunSlot, max: number, now: Date): Promise<boolean>;
  renew(id: string, expiresAt: Date): Promise<void>;
  release(id: string): Promise<void>;
  /** Deletes leases that expired before `now` (housekeeping; expired ones never count). */
  purgeExpired(now: Date): Promise<number>;
}
