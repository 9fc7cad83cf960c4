import type { ConsoleSession } from '../../../domain/console/session.entities.js';
import { type Mapping, dateOrNull, date } from './mapping.js';

export const consoleSessions: Mapping<ConsoleSession> = {
  table: 'console_sessions',
  toRow: (e) => ({
    id: e.id,
    member_id: e.memberId,
    account_id: e.accountId,
    token_id: e.tokenId,
    method: e.method,
    session_hash: e.sessionHash,
    created_at: e.createdAt,
    last_seen_at: e.lastSeenAt,
    revoked_at: e.revokedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    memberId: r.member_id,
    accountId: r.account_id,
    tokenId: r.token_id ?? null,
    method: r.method ?? 'token',
    sessionHash: r.session_hash,
    createdAt: date(r.created_at),
    lastSeenAt: date(r.last_seen_at),
    revokedAt: dateOrNull(r.revoked_at),
  }),
};
