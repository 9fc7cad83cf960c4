import type { Schedule } from '../schedules/schedule.entities.js';
import { nextOccurrences } from '../schedules/schedule-timing.js';
import type { ScheduleList } from './workspace-api.schemas.js';

/** A schedule as the Workspace API lists it, with its next five fires from `now` (its handler's text is not shown). */
export function scheduleItem(s: Schedule, now: Date): ScheduleList['schedules'][number] {
  return {
    id: s.id,
    name: s.name,
    cron: 'cron' in s.timing ? s.timing.cron : null,
    timeZone: 'cron' in s.timing ? s.timing.timeZone : null,
    intervalSeconds: 'cron' in s.timing ? null : s.timing.intervalSeconds,
    handlerKind: s.handler.kind,
    enabled: s.enabled,
    catchUp: s.catchUp,
    overlap: s.overlap,
    nextFires: nextOccurrences(s.timing, now, 5).map((d) => d.toISOString()),
  };
}
