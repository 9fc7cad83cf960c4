// Entities of schedules (issue 54) as the domain sees them. Repositories map rows to these explicitly.
import type { Handler } from '../entries/entry.entities.js';
import type { Json } from '../json.js';

export const SCHEDULE_OVERLAPS = ['SKIP', 'QUEUE'] as const;
/** What a fire does when the schedule's previous run is still going: recorded as skipped, or run after it (one waits at most). */
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAPS)[number];

/** When a schedule fires: a cron expression read in an IANA time zone, or every N seconds. */
export type ScheduleTiming = { cron: string; timeZone: string } | { intervalSeconds: number };

export interface Schedule {
  id: string;
  workspaceId: string;
  agentId: string;
  /** Unique per agent. */
  name: string;
  timing: ScheduleTiming;
  handler: Handler;
  modelOverride: string | null;
  /** The run's input (its `body`). */
  input: Json;
  enabled: boolean;
  /** An occurrence missed while every instance was down is fired once at start (else recorded as skipped). */
  catchUp: boolean;
  overlap: ScheduleOverlap;
  createdAt: Date;
  updatedAt: Date;
}

export const FIRE_STATES = ['RUNNING', 'QUEUED', 'DONE', 'FAILED', 'REFUSED', 'SKIPPED', 'LOST'] as const;
/**
 * A fire's state: RUNNING under its instance's lease; QUEUED behind a running one (overlap QUEUE);
 * then DONE, FAILED (the handler failed), REFUSED (admission or guardrails refused the run),
 * SKIPPED (overlap SKIP, a second one queued, or missed without `catchUp`) or LOST (its instance
 * stopped while running it: the lease ran out).
 */
export type FireState = (typeof FIRE_STATES)[number];

/** One occurrence of a schedule, recorded once (its key: schedule and occurrence time). */
export interface ScheduleFire {
  scheduleId: string;
  agentId: string;
  occurrenceAt: Date;
  state: FireState;
  /** Fired after its time: a catch-up once an instance was back. */
  late: boolean;
  claimedBy: string | null;
  leaseUntil: Date | null;
  runId: string | null;
  error: string | null;
  /** A refused fire's refusal: its code (INVALID, LIMIT_EXCEEDED, …) and, for a limit, its reason. */
  refusal: { code: string; reason: string | null } | null;
  createdAt: Date;
  finishedAt: Date | null;
}
