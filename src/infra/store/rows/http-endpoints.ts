import type { HttpEndpoint } from '../../../domain/entries/entry.entities.js';
import { pathShape } from '../../../domain/entries/entry.schemas.js';
import { type Mapping, json, parseJson, date } from './mapping.js';

export const httpEndpoints: Mapping<HttpEndpoint> = {
  table: 'http_endpoints',
  toRow: (e) => ({
    id: e.id,
    agent_id: e.agentId,
    path: e.path,
    path_shape: pathShape(e.path),
    methods: json(e.methods),
    handler_kind: e.handler.kind,
    handler_body: e.handler.body,
    model_override: e.modelOverride,
    description: e.description,
    input_schema: e.inputSchema == null ? null : json(e.inputSchema),
    output_schema: e.outputSchema == null ? null : json(e.outputSchema),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    agentId: r.agent_id,
    path: r.path,
    methods: parseJson(r.methods),
    handler: { kind: r.handler_kind, body: r.handler_body },
    modelOverride: r.model_override ?? null,
    description: r.description,
    inputSchema: r.input_schema == null ? null : parseJson(r.input_schema),
    outputSchema: r.output_schema == null ? null : parseJson(r.output_schema),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
