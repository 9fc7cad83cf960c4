import { z } from 'zod';
import { Invalid } from '../errors.js';
import type { Schedule } from '../schedules/schedule.entities.js';
import { inputOf, scheduleInput, timingOf } from '../schedules/schedule.schemas.js';

// `spec.schedules` of a manifest (issue 54): an agent's schedules matched by name, read and written
// as addSchedule takes them.

/** A schedule as a manifest describes it: the stored one without its ids and times. */
export type ScheduleState = Pick<
  Schedule,
  'name' | 'timing' | 'handler' | 'modelOverride' | 'input' | 'enabled' | 'catchUp' | 'overlap'
>;

/** A schedule of a manifest: addSchedule's input, its timing checked (exactly one of cron or intervalSeconds). */
export const manifestSchedule = scheduleInput.transform((s, ctx) => {
  try {
    return { ...s, timing: timingOf(s) };
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    ctx.issues.push({
      code: 'custom',
      message: err.message.replace(/^[^:]*: /, ''),
      path: [(err.field ?? '').split('.').pop()!],
      input: s,
    });
    return z.NEVER;
  }
});
export type ManifestSchedule = z.output<typeof manifestSchedule>;

/** The stored schedules as state. */
export function schedulesState(list: Schedule[]): ScheduleState[] {
  return list.map((s) => ({
    name: s.name,
    timing: s.timing,
    handler: s.handler,
    modelOverride: s.modelOverride,
    input: s.input,
    enabled: s.enabled,
    catchUp: s.catchUp,
    overlap: s.overlap,
  }));
}

/** The schedules a manifest asks for, with addSchedule's defaults. */
export function desiredSchedules(list: ManifestSchedule[] | undefined): ScheduleState[] {
  return (list ?? []).map((s) => ({
    name: s.name,
    timing: s.timing,
    handler: s.handler,
    modelOverride: s.modelOverride ?? null,
    input: inputOf(s.input),
    enabled: s.enabled ?? true,
    catchUp: s.catchUp ?? false,
    overlap: s.overlap ?? 'SKIP',
  }));
}

/** A schedule's canonical written form; `enabled`, `catchUp` and `overlap` are always written. */
export function scheduleOut(s: ScheduleState): Record<string, unknown> {
  const h = s.handler;
  const out: Record<string, unknown> = { name: s.name };
  if ('cron' in s.timing) Object.assign(out, { cron: s.timing.cron, timeZone: s.timing.timeZone });
  else out.intervalSeconds = s.timing.intervalSeconds;
  out.handler = h.kind === 'prompt' ? { prompt: h.body } : { script: h.body };
  if (s.modelOverride) out.modelOverride = s.modelOverride;
  if (s.input !== null) out.input = s.input;
  return { ...out, enabled: s.enabled, catchUp: s.catchUp, overlap: s.overlap };
}
