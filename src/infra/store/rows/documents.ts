import type { Document } from '../../../domain/documents/document.entities.js';
import { type Mapping, json, parseJson, date } from './mapping.js';

export const documents: Mapping<Document> = {
  table: 'documents',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    agent_id: e.agentId,
    name: e.name,
    description: e.description,
    kind: e.kind,
    content: e.content,
    fields: json(e.fields),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    name: r.name,
    description: r.description,
    kind: r.kind,
    content: r.content,
    fields: parseJson(r.fields),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
