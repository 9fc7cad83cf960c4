import type { ActivityEntry } from '../../../domain/activity/activity.entities.js';
import { type Mapping, json, parseJson, numOrNull, date } from './mapping.js';

export const activity: Mapping<ActivityEntry> = {
  table: 'activity_log',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    kind: e.kind,
    surface: e.surface,
    entry: e.entry,
    method: e.method,
    path: e.path,
    status: e.status,
    request_headers: json(e.requestHeaders),
    request_body: json(e.requestBody),
    response: json(e.response),
    truncated: e.truncated,
    credits: e.credits,
    duration_ms: e.durationMs,
    key_id: e.keyId,
    oauth_client_id: e.oauthClientId,
    granted_by: e.grantedBy,
    run_id: e.runId,
    request_id: e.requestId,
    error: e.error,
    logs: json(e.logs),
    created_at: e.createdAt,
    protocol: e.protocol,
    delivery_id: e.deliveryId,
    trace_id: e.traceId ?? null,
    spans: e.spans?.length ? json({ spans: e.spans, dropped: e.spansDropped ?? 0 }) : null,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    kind: r.kind,
    surface: r.surface,
    entry: r.entry ?? null,
    method: r.method ?? null,
    path: r.path ?? null,
    status: numOrNull(r.status),
    requestHeaders: r.request_headers == null ? null : parseJson(r.request_headers),
    requestBody: r.request_body == null ? null : parseJson(r.request_body),
    response: r.response == null ? null : parseJson(r.response),
    truncated: Boolean(r.truncated),
    credits: Number(r.credits),
    durationMs: numOrNull(r.duration_ms),
    keyId: r.key_id ?? null,
    oauthClientId: r.oauth_client_id ?? null,
    grantedBy: r.granted_by ?? null,
    runId: r.run_id ?? null,
    requestId: r.request_id ?? null,
    error: r.error ?? null,
    logs: r.logs == null ? null : parseJson(r.logs),
    createdAt: date(r.created_at),
    protocol: Boolean(r.protocol),
    deliveryId: r.delivery_id ?? null,
    traceId: r.trace_id ?? null,
    ...spansOf(r.spans),
  }),
};

/** The stored spans (`{ spans, dropped }`), or none when the column was not read or holds nothing. */
function spansOf(value: unknown): Pick<ActivityEntry, 'spans' | 'spansDropped'> {
  if (value == null) return { spans: null, spansDropped: 0 };
  const v = parseJson(value) as { spans?: ActivityEntry['spans']; dropped?: number } | null;
  return { spans: Array.isArray(v?.spans) ? v.spans : null, spansDropped: Number(v?.dropped ?? 0) };
}
