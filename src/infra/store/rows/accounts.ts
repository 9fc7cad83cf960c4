import type { AccountIdentity } from '../../../domain/accounts/sso.ports.js';
import type { Account } from '../../../domain/workspace/account.entities.js';
import { type Mapping, date, dateOrNull } from './mapping.js';

export const accounts: Mapping<Account> = {
  table: 'accounts',
  toRow: (e) => ({
    id: e.id,
    email: e.email,
    name: e.name,
    password_hash: e.passwordHash,
    operator: e.operator,
    last_workspace_id: e.lastWorkspaceId,
    failed_sign_ins: e.failedSignIns,
    locked_until: e.lockedUntil,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    email: r.email,
    name: r.name,
    passwordHash: r.password_hash ?? null,
    operator: !!r.operator,
    lastWorkspaceId: r.last_workspace_id ?? null,
    failedSignIns: Number(r.failed_sign_ins ?? 0),
    lockedUntil: dateOrNull(r.locked_until),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};

export const accountIdentities: Mapping<AccountIdentity> = {
  table: 'account_identities',
  toRow: (e) => ({
    id: e.id,
    account_id: e.accountId,
    issuer: e.issuer,
    subject: e.subject,
    email: e.email,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    accountId: r.account_id,
    issuer: r.issuer,
    subject: r.subject,
    email: r.email ?? null,
    createdAt: date(r.created_at),
  }),
};
