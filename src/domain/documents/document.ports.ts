import type { AgentChildRepo } from '../repo.ports.js';
import type { Document, DocumentExposure } from './document.entities.js';
import type { RecordFilter, SortKey } from './record-filter.js';
import type { RecordPosition } from './record-cursor.js';

// Ports of documents the domain talks to. src/infra implements them; nothing here knows about SQL.

export interface DocumentRepo extends AgentChildRepo<Document> {}
export interface ExposureRepo extends AgentChildRepo<DocumentExposure> {
  find(agentId: string, documentId: string): Promise<DocumentExposure | null>;
}
/** A database record as stored: its id plus the field values. */
export type StoredRecord = { id: string } & Record<string, unknown>;

export interface RecordRepo {
  /**
   * Records matching every condition of the filter (see record-filter.ts), in the sort order with
   * insertion order breaking ties (insertion order alone without a sort), how many match in all,
   * and — when more records follow this page — the position of its last record.
   */
  query(
    documentId: string,
    filter: RecordFilter,
    page: RecordPage,
  ): Promise<{ records: StoredRecord[]; totalCount: number; last?: RecordPosition }>;
  insertMany(
    documentId: string,
    rows: { id: string; data: Record<string, unknown> }[],
    now: Date,
  ): Promise<StoredRecord[]>;
  update(documentId: string, filter: RecordFilter, set: Record<string, unknown>, now: Date): Promise<number>;
  delete(documentId: string, filter: RecordFilter): Promise<number>;
}
/** A page of a record query: after `offset` records, or after a position (a cursor). */
export interface RecordPage {
  limit: number;
  offset: number;
  sort?: SortKey[];
  after?: RecordPosition;
}
