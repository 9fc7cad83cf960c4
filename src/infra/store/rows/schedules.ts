import type { Schedule, ScheduleFire } from '../../../domain/schedules/schedule.entities.js';
import { type Mapping, type Row, date, dateOrNull, json, parseJson } from './mapping.js';

export const schedules: Mapping<Schedule> = {
  table: 'schedules',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    name: e.name,
    cron: 'cron' in e.timing ? e.timing.cron : null,
    time_zone: 'cron' in e.timing ? e.timing.timeZone : null,
    interval_seconds: 'cron' in e.timing ? null : e.timing.intervalSeconds,
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    input: json(e.input),
    enabled: e.enabled,
    catch_up: e.catchUp,
    overlap: e.overlap,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    name: r.name,
    timing:
      r.cron != null
        ? { cron: r.cron, timeZone: r.time_zone ?? 'UTC' }
        : { intervalSeconds: Number(r.interval_seconds) },
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    input: parseJson(r.input ?? null),
    enabled: !!r.enabled,
    catchUp: !!r.catch_up,
    overlap: r.overlap,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const scheduleFireRow = (f: ScheduleFire): Row => ({
  schedule_id: f.scheduleId,
  agent_id: f.agentId,
  occurrence_at: f.occurrenceAt,
  state: f.state,
  late: f.late,
  claimed_by: f.claimedBy,
  lease_until: f.leaseUntil,
  run_id: f.runId,
  error: f.error,
  error_code: f.refusal?.code ?? null,
  error_reason: f.refusal?.reason ?? null,
  created_at: f.createdAt,
  finished_at: f.finishedAt,
});

export const scheduleFire = (r: Row): ScheduleFire => ({
  scheduleId: r.schedule_id,
  agentId: r.agent_id,
  occurrenceAt: date(r.occurrence_at),
  state: r.state,
  late: !!r.late,
  claimedBy: r.claimed_by ?? null,
  leaseUntil: dateOrNull(r.lease_until),
  runId: r.run_id ?? null,
  error: r.error ?? null,
  refusal: r.error_code ? { code: r.error_code, reason: r.error_reason ?? null } : null,
  createdAt: date(r.created_at),
  finishedAt: dateOrNull(r.finished_at),
});
