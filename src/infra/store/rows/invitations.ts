import type { Invitation } from '../../../domain/accounts/invitation.entities.js';
import { type Mapping, date, dateOrNull } from './mapping.js';

export const invitations: Mapping<Invitation> = {
  table: 'invitations',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    email: e.email,
    name: e.name,
    role: e.role,
    token_hash: e.tokenHash,
    invited_by: e.invitedBy,
    created_at: e.createdAt,
    expires_at: e.expiresAt,
    accepted_at: e.acceptedAt,
    revoked_at: e.revokedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    email: r.email,
    name: r.name ?? null,
    role: r.role,
    tokenHash: r.token_hash,
    invitedBy: r.invited_by ?? null,
    createdAt: date(r.created_at),
    expiresAt: date(r.expires_at),
    acceptedAt: dateOrNull(r.accepted_at),
    revokedAt: dateOrNull(r.revoked_at),
  }),
};
