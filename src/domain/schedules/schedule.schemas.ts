import { Cron } from 'croner';
import { z } from 'zod';
import { handlerInput } from '../entries/entry.schemas.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import type { Json } from '../json.js';
import { modelRef } from '../validation.js';
import { Invalid } from '../errors.js';
import { SCHEDULE_OVERLAPS, type ScheduleTiming } from './schedule.entities.js';

/** A schedule's name: unique per agent, URL-safe. */
export const SCHEDULE_NAME = /^[A-Za-z0-9._~-]{1,100}$/;
/** The longest cron expression, in characters. */
export const MAX_CRON = 200;
/** The longest interval: one year. */
export const MAX_INTERVAL_SECONDS = 366 * 86_400;
/** The largest input of a schedule, as JSON text. */
export const MAX_SCHEDULE_INPUT_BYTES = 64 * 1024;
/** The most next fires or recent fires one read returns. */
export const MAX_FIRES_SHOWN = 50;

const scheduleName = z
  .string()
  .regex(SCHEDULE_NAME, 'must be URL-safe: letters, digits and . _ ~ - (1 to 100 characters)');

/** An IANA time zone the runtime knows (`Europe/Paris`, `UTC`). */
export const timeZone = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'is not an IANA time zone (like Europe/Paris or UTC)');

/** A cron expression croner reads: 5 fields, or 6 with seconds first. */
export const cronExpression = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_CRON, `must be at most ${MAX_CRON} characters`)
  .superRefine((c, ctx) => {
    try {
      const job = new Cron(c, { paused: true });
      if (!job.nextRun()) ctx.addIssue({ code: 'custom', message: 'never fires' });
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `is not a cron expression: ${err instanceof Error ? err.message.slice(0, 200) : 'unreadable'}`,
      });
    }
  });

const intervalMessage = `must be a whole number of seconds from 1 to ${MAX_INTERVAL_SECONDS}`;
const intervalSeconds = z
  .number()
  .int(intervalMessage)
  .min(1, intervalMessage)
  .max(MAX_INTERVAL_SECONDS, intervalMessage);

/** A schedule's input: any JSON value up to 64 KiB, nested at most as deep as a request body. */
const scheduleInputValue = z.unknown().superRefine((v, ctx) => {
  const text = JSON.stringify(v ?? null);
  if (Buffer.byteLength(text) > MAX_SCHEDULE_INPUT_BYTES)
    ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_SCHEDULE_INPUT_BYTES} bytes of JSON` });
  else if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    ctx.addIssue({ code: 'custom', message: `must nest at most ${MAX_JSON_DEPTH} levels` });
});

const fields = {
  cron: cronExpression.nullable().optional(),
  timeZone: timeZone.nullable().optional(),
  intervalSeconds: intervalSeconds.nullable().optional(),
  handler: handlerInput,
  modelOverride: modelRef.nullable().optional(),
  input: scheduleInputValue.optional(),
  enabled: z.boolean().optional(),
  catchUp: z.boolean().optional(),
  overlap: z.enum(SCHEDULE_OVERLAPS).optional(),
};

export const scheduleInput = z.object({ name: scheduleName, ...fields });
export const schedulePatch = z.object({ name: scheduleName.optional(), ...fields, handler: handlerInput.optional() });

export type ScheduleInput = z.output<typeof scheduleInput>;

/** The input as stored: JSON, null when none was given. */
export const inputOf = (v: unknown): Json => (v === undefined ? null : (v as Json));

/** The timing fields of an input or patch, as given. */
interface TimingFields {
  cron?: string | null;
  timeZone?: string | null;
  intervalSeconds?: number | null;
}

/**
 * Exactly one of a cron expression (with its time zone, UTC when none is given) or an interval.
 * `current` is the stored timing a patch changes (a patch that names neither keeps it).
 */
export function timingOf(v: TimingFields, current?: ScheduleTiming): ScheduleTiming {
  const cron = v.cron ?? null;
  const interval = v.intervalSeconds ?? null;
  if (cron !== null && interval !== null)
    throw new Invalid('input.intervalSeconds: give exactly one of cron or intervalSeconds', 'input.intervalSeconds');
  if (cron !== null) return { cron, timeZone: v.timeZone ?? (current && 'cron' in current ? current.timeZone : 'UTC') };
  if (interval !== null) {
    if (v.timeZone) throw new Invalid('input.timeZone: a time zone goes with a cron expression only', 'input.timeZone');
    return { intervalSeconds: interval };
  }
  if (current) {
    if (v.timeZone && 'cron' in current) return { ...current, timeZone: v.timeZone };
    if (v.timeZone) throw new Invalid('input.timeZone: a time zone goes with a cron expression only', 'input.timeZone');
    return current;
  }
  throw new Invalid('input.cron: give exactly one of cron or intervalSeconds', 'input.cron');
}
