import type { Workspace } from '../../../domain/workspace/workspace.entities.js';
import { type Mapping, json, parseJson, numOrNull, date } from './mapping.js';

export const workspaces: Mapping<Workspace> = {
  table: 'workspaces',
  toRow: (e) => ({
    id: e.id,
    name: e.name,
    slug: e.slug,
    settings: json(e.settings),
    daily_credit_limit: e.dailyCreditLimit,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    name: r.name,
    slug: r.slug,
    settings: parseJson(r.settings),
    dailyCreditLimit: numOrNull(r.daily_credit_limit),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
