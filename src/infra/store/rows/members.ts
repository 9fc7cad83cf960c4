import type { Member } from '../../../domain/workspace/workspace.entities.js';
import { type Mapping, date } from './mapping.js';

export const members: Mapping<Member> = {
  table: 'members',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    account_id: e.accountId,
    email: e.email,
    name: e.name,
    role: e.role,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    accountId: r.account_id,
    email: r.email,
    name: r.name,
    role: r.role,
    createdAt: date(r.created_at),
  }),
};
