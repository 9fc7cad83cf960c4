import type { Team } from '../../../domain/workspace/workspace.entities.js';
import { type Mapping, numOrNull, date } from './mapping.js';

export const teams: Mapping<Team> = {
  table: 'teams',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    name: e.name,
    daily_credit_limit: e.dailyCreditLimit,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    dailyCreditLimit: numOrNull(r.daily_credit_limit),
    createdAt: date(r.created_at),
  }),
};
