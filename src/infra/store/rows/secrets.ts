import type { Secret } from '../../../domain/secrets/secret.entities.js';
import { type Mapping, date } from './mapping.js';

export const secrets: Mapping<Secret> = {
  table: 'secrets',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    name: e.name,
    kind: e.kind,
    ciphertext: e.ciphertext,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    kind: r.kind,
    ciphertext: r.ciphertext,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
