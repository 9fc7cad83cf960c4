import type { DocumentExposure } from '../../../domain/documents/document.entities.js';
import { type Mapping, date } from './mapping.js';

export const exposures: Mapping<DocumentExposure> = {
  table: 'document_exposures',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    document_id: e.documentId,
    can_read: e.read,
    can_write: e.write,
    mcp_read: e.mcp,
    created_at: e.createdAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    documentId: r.document_id,
    read: Boolean(r.can_read),
    write: Boolean(r.can_write),
    mcp: Boolean(r.mcp_read),
    createdAt: date(r.created_at),
  }),
};
