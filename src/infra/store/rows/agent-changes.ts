import type { AgentChange } from '../../../domain/manifests/manifest.entities.js';
import { type Mapping, json, parseJson, date } from './mapping.js';

export const agentChanges: Mapping<AgentChange> = {
  table: 'agent_changes',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    member_id: e.memberId,
    source: e.source,
    changes: json(e.changes),
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    memberId: r.member_id ?? null,
    source: r.source,
    changes: parseJson(r.changes),
    createdAt: date(r.created_at),
  }),
};
