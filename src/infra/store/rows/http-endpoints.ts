import type { HttpEndpoint } from '../../../domain/entities.js';
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
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
