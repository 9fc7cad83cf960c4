import { Cron } from 'croner';
import type { Schedule, ScheduleTiming } from './schedule.entities.js';

// When schedules fire: pure functions of a schedule and the time (the loop passes its clock's).

/** The cron job of a timing (never started: croner only computes its occurrences). */
function cronOf(t: { cron: string; timeZone: string }): Cron {
  return new Cron(t.cron, { timezone: t.timeZone, paused: true });
}

/**
 * The next `count` occurrences strictly after `after`. Intervals count from the Unix epoch, so that
 * every instance computes the same occurrences (every 60 s: on each whole minute).
 */
export function nextOccurrences(t: ScheduleTiming, after: Date, count: number): Date[] {
  if ('cron' in t) return cronOf(t).nextRuns(count, after);
  const step = t.intervalSeconds * 1000;
  const first = Math.floor(after.getTime() / step) * step + step;
  return Array.from({ length: count }, (_, i) => new Date(first + i * step));
}

/** The latest occurrence at or before `at`, or null (a cron expression that never matched before). */
export function latestOccurrence(t: ScheduleTiming, at: Date): Date | null {
  if ('cron' in t) {
    // previousRuns excludes the reference itself: ask from just after it.
    const [prev] = cronOf(t).previousRuns(1, new Date(at.getTime() + 1));
    return prev ?? null;
  }
  const step = t.intervalSeconds * 1000;
  return new Date(Math.floor(at.getTime() / step) * step);
}

/** What the loop does for a schedule now. */
export type FireDecision =
  | { kind: 'none' }
  /** Fire this occurrence; `late` when it was missed while no instance ran (a catch-up). */
  | { kind: 'fire'; occurrenceAt: Date; late: boolean }
  /** Record this missed occurrence as skipped (the schedule does not catch up). */
  | { kind: 'missed'; occurrenceAt: Date };

/**
 * Whether the schedule has an occurrence to fire now. Only the latest occurrence at or before `now`
 * is ever considered, so that a gap never turns into a burst: the occurrences before it are not
 * fired. It is considered when it is after the last one recorded (`lastRecorded`) and not before
 * the schedule was last changed (`since`). Within `graceMs` of its time it fires on time; later,
 * it was missed while every instance was down (or this one stalled): fired once, late, when the
 * schedule catches up, otherwise recorded as skipped.
 */
export function decideFire(
  s: Pick<Schedule, 'timing' | 'catchUp'>,
  lastRecorded: Date | null,
  since: Date,
  now: Date,
  graceMs: number,
): FireDecision {
  const latest = latestOccurrence(s.timing, now);
  if (!latest || latest < since) return { kind: 'none' };
  if (lastRecorded && latest <= lastRecorded) return { kind: 'none' };
  if (now.getTime() - latest.getTime() <= graceMs) return { kind: 'fire', occurrenceAt: latest, late: false };
  return s.catchUp ? { kind: 'fire', occurrenceAt: latest, late: true } : { kind: 'missed', occurrenceAt: latest };
}

/** What a due occurrence becomes when a fire of the schedule is running or waiting (overlap). */
export function overlapState(
  overlap: Schedule['overlap'],
  busy: { running: boolean; queued: boolean },
): 'RUNNING' | 'QUEUED' | 'SKIPPED' {
  if (!busy.running) return 'RUNNING';
  return overlap === 'QUEUE' && !busy.queued ? 'QUEUED' : 'SKIPPED';
}
