import type { Agent } from '../core/agent.entities.js';
import type { SummedCharge } from './admission.ports.js';

// One agent's credit slice in memory (see CreditSlices): its budget, its runs' reservations and the
// charges of ended runs waiting to be stored.

/** An agent's slice of its daily credit budgets in this instance. */
export interface Slice {
  agent: Agent;
  /** The budget lease in the database, once a grant wrote one. */
  leaseId: string | null;
  /** Credits the lease holds in the database. */
  granted: number;
  /** Reservations of the runs admitted against the slice that have not ended. */
  inFlight: number;
  /** Charges of ended runs not stored yet, by day: still inside `granted` until they are. */
  pending: Map<string, SummedCharge>;
  pendingCredits: number;
  /** The limits the slice was granted under; other limits need a grant of their own. */
  limits: string;
  /** Runs admitted in this life and the one before (the slice's next size). */
  admitted: number;
  admittedBefore: number;
  /** Statements on the lease, one at a time. */
  chain: Promise<unknown>;
  life: NodeJS.Timeout | null;
  flushTimer: NodeJS.Timeout | null;
}

/** A slice with nothing granted yet, under `limits`. */
export function newSlice(agent: Agent, limits: string): Slice {
  return {
    agent,
    leaseId: null,
    granted: 0,
    inFlight: 0,
    pending: new Map(),
    pendingCredits: 0,
    limits,
    admitted: 0,
    admittedBefore: 0,
    chain: Promise.resolve(),
    life: null,
    flushTimer: null,
  };
}

/** Adds an ended run's `charged` credits to the slice's pending charges of `day`. */
export function addPending(s: Slice, agent: Agent, day: string, charged: number): void {
  const had = s.pending.get(day);
  if (had) {
    had.credits = round6(had.credits + charged);
    had.runs++;
    had.maxRunCredits = Math.max(had.maxRunCredits, charged);
  } else
    s.pending.set(day, {
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      teamId: agent.teamId,
      day,
      credits: charged,
      runs: 1,
      maxRunCredits: charged,
    });
  s.pendingCredits = round6(s.pendingCredits + charged);
}

/** Puts charges a failed store left unstored back among the pending ones (merged by day). */
export function keepUnstored(s: Slice, batch: SummedCharge[]): void {
  for (const c of batch) {
    const had = s.pending.get(c.day);
    if (had)
      Object.assign(had, {
        credits: round6(had.credits + c.credits),
        runs: had.runs + c.runs,
        maxRunCredits: Math.max(had.maxRunCredits, c.maxRunCredits),
      });
    else s.pending.set(c.day, c);
  }
}

/** Credits as the database stores them (6 decimals). */
export function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** Credits rounded down to what the database stores. */
export function floor6(n: number): number {
  return Math.floor(n * 1e6 + 1e-6) / 1e6;
}
