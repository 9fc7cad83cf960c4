import type { McpTool } from '../../../domain/entries/entry.entities.js';
import { type Mapping, json, parseJson, date } from './mapping.js';

export const mcpTools: Mapping<McpTool> = {
  table: 'mcp_tools',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    name: e.name,
    description: e.description,
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    input_schema: e.inputSchema == null ? null : json(e.inputSchema),
    output_schema: e.outputSchema == null ? null : json(e.outputSchema),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    name: r.name,
    description: r.description,
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    inputSchema: r.input_schema == null ? null : parseJson(r.input_schema),
    outputSchema: r.output_schema == null ? null : parseJson(r.output_schema),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
