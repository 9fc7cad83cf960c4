import type { Webhook } from '../../../domain/entries/entry.entities.js';
import { type Mapping, date } from './mapping.js';

export const webhooks: Mapping<Webhook> = {
  table: 'webhooks',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    integration: e.integration,
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    signature_scheme: e.signature?.scheme ?? null,
    signature_secret_name: e.signature?.secretName ?? null,
    max_body_bytes: e.maxBodyBytes,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    integration: r.integration,
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    signature: r.signature_scheme ? { scheme: r.signature_scheme, secretName: r.signature_secret_name } : null,
    maxBodyBytes: r.max_body_bytes ?? null,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
