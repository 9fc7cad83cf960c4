import { z } from 'zod';
import type { Json } from '../json.js';
import type { Schedule } from '../schedules/schedule.entities.js';
import { scheduleInput, schedulePatch } from '../schedules/schedule.schemas.js';
import { operation, TOOL_DESCRIPTIONS } from './endpoint-management.operation.js';

// The agent's own tools for its schedules (issue 54): add, update, remove, as the GraphQL mutations
// of the same names. They fire only while the SCHEDULE surface is on (set_surface).

/** What the tools' argument schemas and the GraphQL input say of the schedule's fields. */
export const SCHEDULE_FIELD_DESCRIPTIONS = {
  cron: 'A cron expression (5 fields, or 6 with seconds first); or give intervalSeconds',
  timeZone: 'The IANA time zone of the cron expression (default UTC)',
  input: "The run's input, at most 64 KiB of JSON",
  enabled: 'Default true',
  catchUp: 'Fire a run missed while every instance was down once at start; default false',
  overlap: 'SKIP (default): skip a run due while the previous one goes on; QUEUE: run it after',
} as const;
for (const [k, description] of Object.entries(SCHEDULE_FIELD_DESCRIPTIONS))
  TOOL_DESCRIPTIONS.add(scheduleInput.shape[k as keyof typeof SCHEDULE_FIELD_DESCRIPTIONS], { description });

/** A schedule as the tools answer it (GraphQL's names). */
export function scheduleAnswer(s: Schedule): Json {
  const cron = 'cron' in s.timing ? s.timing : null;
  return {
    id: s.id,
    agentId: s.agentId,
    name: s.name,
    cron: cron?.cron ?? null,
    timeZone: cron?.timeZone ?? null,
    intervalSeconds: 'intervalSeconds' in s.timing ? s.timing.intervalSeconds : null,
    handler: {
      kind: s.handler.kind.toUpperCase(),
      prompt: s.handler.kind === 'prompt' ? s.handler.body : null,
      script: s.handler.kind === 'script' ? s.handler.body : null,
    },
    modelOverride: s.modelOverride,
    input: s.input,
    enabled: s.enabled,
    catchUp: s.catchUp,
    overlap: s.overlap,
  };
}

const agentId = z.string();
const id = z.string();

export const SCHEDULE_OPERATIONS = {
  addSchedule: operation({
    tool: 'add_schedule',
    mutation: 'addSchedule',
    description:
      'Add a schedule to this agent: a run that starts by itself on a cron expression or every N seconds (its SCHEDULE surface must be on).',
    args: { agentId, input: scheduleInput },
    run: (s, p, a) => s.schedules.add(p, a.agentId, a.input),
    answer: scheduleAnswer,
  }),
  updateSchedule: operation({
    tool: 'update_schedule',
    mutation: 'updateSchedule',
    description: "Update one of this agent's schedules.",
    args: { id, input: schedulePatch },
    run: (s, p, a) => s.schedules.update(p, a.id, a.input),
    answer: scheduleAnswer,
  }),
  removeSchedule: operation({
    tool: 'remove_schedule',
    mutation: 'removeSchedule',
    description: "Remove one of this agent's schedules.",
    args: { id },
    run: (s, p, a) => s.schedules.remove(p, a.id),
    answer: (r: boolean): Json => r,
  }),
};
