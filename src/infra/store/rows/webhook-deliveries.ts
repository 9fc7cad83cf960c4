import type { WebhookDelivery, WebhookDeliverySummary } from '../../../domain/webhooks/webhook.entities.js';
import { type Mapping, type Row, date, dateOrNull, json } from './mapping.js';

/** bytea comes back as a Buffer from pg and as a Uint8Array from PGlite. */
export const bytes = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));

export const webhookDeliveries: Mapping<WebhookDelivery> = {
  table: 'webhook_deliveries',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    webhook_id: e.webhookId,
    integration: e.integration,
    sender_delivery_id: e.senderDeliveryId,
    dedupe_key: e.dedupeKey,
    replay_of: e.replayOf,
    method: e.method,
    path: e.path,
    query: json(e.query),
    headers: json(e.headers),
    raw_body: e.rawBody,
    body_dropped_at: e.bodyDroppedAt,
    status: e.status,
    attempts: e.attempts,
    failures: e.failures,
    last_error: e.lastError,
    run_id: e.runId,
    next_attempt_at: e.nextAttemptAt,
    locked_until: e.lockedUntil,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    completed_at: e.completedAt,
    receipt_trace: e.receiptTrace ?? null,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    webhookId: r.webhook_id,
    integration: r.integration,
    senderDeliveryId: r.sender_delivery_id ?? null,
    dedupeKey: r.dedupe_key ?? null,
    replayOf: r.replay_of ?? null,
    method: r.method,
    path: r.path,
    query: r.query ?? {},
    headers: r.headers ?? {},
    rawBody: bytes(r.raw_body),
    bodyDroppedAt: dateOrNull(r.body_dropped_at),
    status: r.status,
    attempts: Number(r.attempts),
    failures: Number(r.failures),
    lastError: r.last_error ?? null,
    runId: r.run_id ?? null,
    nextAttemptAt: date(r.next_attempt_at),
    lockedUntil: dateOrNull(r.locked_until),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    completedAt: dateOrNull(r.completed_at),
    receiptTrace: r.receipt_trace ?? null,
  }),
};

/**
 * Every column but the body: what lists, claims and inserts read back, with the body's size as
 * `body_bytes` (`octet_length(raw_body)`, which reads the size from the stored value's header, not
 * the value).
 */
export const SUMMARY_COLUMNS: readonly string[] = Object.keys(
  webhookDeliveries.toRow({ rawBody: Buffer.alloc(0) } as WebhookDelivery),
).filter((c) => c !== 'raw_body');

/** A row of SUMMARY_COLUMNS and `body_bytes`. */
export function summaryFromRow(r: Row): WebhookDeliverySummary {
  const { rawBody: _, ...rest } = webhookDeliveries.fromRow({ ...r, raw_body: Buffer.alloc(0) });
  return { ...rest, bodyBytes: Number(r.body_bytes) };
}
