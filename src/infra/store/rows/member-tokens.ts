import type { MemberToken } from '../../../domain/workspace/workspace.entities.js';
import { type Mapping, dateOrNull, date } from './mapping.js';

export const memberTokens: Mapping<MemberToken> = {
  table: 'member_tokens',
  toRow: (e) => ({
    id: e.id,
    member_id: e.memberId,
    name: e.name,
    scope: e.scope,
    token_hash: e.tokenHash,
    prefix: e.prefix,
    last4: e.last4,
    created_at: e.createdAt,
    last_used_at: e.lastUsedAt,
    revoked_at: e.revokedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    memberId: r.member_id,
    name: r.name,
    scope: r.scope,
    tokenHash: r.token_hash,
    prefix: r.prefix,
    last4: r.last4,
    createdAt: date(r.created_at),
    lastUsedAt: dateOrNull(r.last_used_at),
    revokedAt: dateOrNull(r.revoked_at),
  }),
};
