import type { ApiKey } from '../../../domain/entities.js';
import { type Mapping, json, parseJson, dateOrNull, date } from './mapping.js';

export const apiKeys: Mapping<ApiKey> = {
  table: 'api_keys',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    kind: e.kind,
    name: e.name,
    key_hash: e.keyHash,
    prefix: e.prefix,
    last4: e.last4,
    scopes: json(e.scopes),
    created_by: e.createdBy,
    created_at: e.createdAt,
    last_used_at: e.lastUsedAt,
    revoked_at: e.revokedAt,
    expires_at: e.expiresAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id ?? null,
    kind: r.kind,
    name: r.name,
    keyHash: r.key_hash,
    prefix: r.prefix,
    last4: r.last4,
    scopes: parseJson(r.scopes),
    createdBy: r.created_by ?? null,
    createdAt: date(r.created_at),
    lastUsedAt: dateOrNull(r.last_used_at),
    revokedAt: dateOrNull(r.revoked_at),
    expiresAt: dateOrNull(r.expires_at),
  }),
};
