import type { AgentChildRepo } from '../repo.ports.js';
import type { FireState, Schedule, ScheduleFire } from './schedule.entities.js';

// Ports of schedules the domain talks to. src/infra implements them; nothing here knows about SQL.

/** An enabled schedule with the occurrence of its latest recorded fire (null: none yet). */
export interface ActiveSchedule {
  schedule: Schedule;
  lastOccurrenceAt: Date | null;
  /** Whether a fire of it runs (under a lease still valid) or waits. */
  running: boolean;
  queued: boolean;
}

/** How a fire ended. */
export interface FireEnding {
  state: Exclude<FireState, 'RUNNING' | 'QUEUED'>;
  runId: string | null;
  error: string | null;
  refusal?: { code: string; reason: string | null } | null;
  finishedAt: Date;
}

/** Schedules and their fires. */
export interface ScheduleRepo extends AgentChildRepo<Schedule> {
  /** Every enabled schedule, with what the loop needs to decide (its fires' latest occurrence, running, queued). */
  listActive(now: Date): Promise<ActiveSchedule[]>;
  /**
   * Records an occurrence in `state` unless it is recorded already (or, for RUNNING and QUEUED, a
   * fire of the schedule already is in that state): the insert that makes one instance the one
   * that fires it. True when this call recorded it.
   */
  recordFire(f: ScheduleFire): Promise<boolean>;
  /** Takes the queued fire of a schedule none of whose fires runs: RUNNING under this lease. The fire taken, or null. */
  takeQueued(scheduleId: string, claimedBy: string, leaseUntil: Date): Promise<ScheduleFire | null>;
  /** Extends the lease of a fire this instance runs; false when it no longer holds it. */
  renew(scheduleId: string, occurrenceAt: Date, claimedBy: string, leaseUntil: Date): Promise<boolean>;
  /** Ends a fire this instance runs; false when it no longer holds it (it was marked lost). */
  finish(scheduleId: string, occurrenceAt: Date, claimedBy: string, e: FireEnding): Promise<boolean>;
  /** Marks running fires whose lease ran out before `now` as LOST; returns them. */
  markLost(now: Date): Promise<ScheduleFire[]>;
  /** A schedule's latest fires, newest occurrence first. */
  listFires(scheduleId: string, first: number): Promise<ScheduleFire[]>;
  /** Deletes finished fires recorded before `before`; returns how many. */
  pruneFires(before: Date): Promise<number>;
}
