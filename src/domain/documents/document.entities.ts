// Entities of documents as the domain sees them. Repositories map rows to these explicitly.

export const DOCUMENT_KINDS = ['TEXT', 'DATABASE'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
export const FIELD_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'DATETIME', 'JSON'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export interface FieldDef {
  name: string;
  type: FieldType;
  required: boolean;
}

export interface Document {
  id: string;
  workspaceId: string;
  agentId: string;
  name: string;
  description: string;
  kind: DocumentKind;
  content: string;
  fields: FieldDef[];
  createdAt: Date;
  updatedAt: Date;
}

export interface DocumentExposure {
  id: string;
  agentId: string;
  documentId: string;
  read: boolean;
  write: boolean;
  /** Read on the agent's MCP server: listed by `resources/list`, read by `resources/read`. */
  mcp: boolean;
  createdAt: Date;
}
