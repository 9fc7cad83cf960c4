import type { ActivityRecord } from '../activity/activity-log.js';
import type { Agent } from '../core/agent.entities.js';
import { DomainError, LimitExceeded } from '../errors.js';
import type { SystemPrincipal } from '../principal.js';
import type { UnattendedRuns } from '../runtime/pipeline.js';
import type { RunEntry, RunInput, RunResult } from '../runtime/run.types.js';
import type { EventOutbox } from '../events/event.ports.js';
import type { FireEnding } from './schedule.ports.js';
import type { Schedule, ScheduleFire } from './schedule.entities.js';

/** The unattended runs a fire goes through, and the activity entry of a fire that was lost. */
export interface ScheduleRuns extends UnattendedRuns {
  received(agent: Agent, record: ActivityRecord): void;
}

/** The run input of a fire: the schedule's input as `body`, its name and occurrence as parameters. */
export function fireRunInput(s: Schedule, f: Pick<ScheduleFire, 'occurrenceAt' | 'late'>): RunInput {
  return {
    surface: 'SCHEDULE',
    method: 'POST',
    path: s.name,
    params: { schedule: s.name, occurrence: f.occurrenceAt.toISOString(), late: String(f.late) },
    query: {},
    headers: {},
    body: s.input,
  };
}

/**
 * Runs one claimed fire like any surface's run — admission, guardrails, limits, its `run` entry in
 * the activity log (surface SCHEDULE) — as the system principal `schedule-fire` of its agent, and
 * says how it ended: DONE, FAILED (the handler failed), or REFUSED (a limit, guardrails: the
 * refusal is logged by the lifecycle like any refused run).
 */
export async function runFire(
  calls: UnattendedRuns,
  agent: Agent,
  s: Schedule,
  f: Pick<ScheduleFire, 'occurrenceAt' | 'late'>,
  now: () => Date,
  events?: EventOutbox,
): Promise<FireEnding> {
  const entry: RunEntry = {
    kind: 'schedule',
    id: s.id,
    name: s.name,
    handler: s.handler,
    modelOverride: s.modelOverride,
  };
  const principal: SystemPrincipal = {
    kind: 'system',
    name: 'schedule-fire',
    workspaceId: agent.workspaceId,
    agentId: agent.id,
  };
  let run;
  try {
    run = await calls.begin(principal, agent, entry, fireRunInput(s, f));
  } catch (err) {
    if (!(err instanceof DomainError))
      return { state: 'REFUSED', runId: null, error: 'The run could not start', finishedAt: now() };
    const reason = err instanceof LimitExceeded ? err.reason : null;
    return {
      state: 'REFUSED',
      runId: null,
      error: err.message,
      refusal: { code: err.code, reason },
      finishedAt: now(),
    };
  }
  // Fired: the run was admitted (a refused fire is `limit.reached` or nothing, as any refused run).
  void events?.emit(agent.workspaceId, 'schedule.fired', {
    agentId: agent.id,
    data: { agentId: agent.id, scheduleId: s.id, runId: run.runId, firedAt: now().toISOString() },
  });
  let result: RunResult | undefined;
  try {
    for await (const ev of run.events()) if (ev.type === 'done') result = ev.result;
  } catch (err) {
    const error = err instanceof DomainError ? err.message : 'The run failed';
    return { state: 'FAILED', runId: null, error, finishedAt: now() };
  }
  if (!result) return { state: 'FAILED', runId: null, error: 'The run ended without a result', finishedAt: now() };
  if (result.error) return { state: 'FAILED', runId: result.runId, error: result.error.message, finishedAt: now() };
  return { state: 'DONE', runId: result.runId, error: null, finishedAt: now() };
}

/** The activity entry of a fire whose instance stopped while running it (its lease ran out). */
export function lostFireRecord(s: Pick<Schedule, 'name'> | null, f: ScheduleFire): ActivityRecord {
  return {
    kind: 'run',
    surface: 'SCHEDULE',
    entry: s?.name ?? null,
    method: 'POST',
    path: s?.name ?? null,
    requestBody: { occurrence: f.occurrenceAt.toISOString() },
    response: { error: LOST_ERROR },
    error: LOST_ERROR,
    runId: f.runId,
  };
}

export const LOST_ERROR =
  'Fire lost: the instance running it stopped before the run ended (its lease ran out); it is not run again';
