import type { ModelConfig } from '../../../domain/models/model.entities.js';
import { type Mapping, date } from './mapping.js';

export const models: Mapping<ModelConfig> = {
  table: 'models',
  toRow: (e) => ({
    id: e.id,
    workspace_id: e.workspaceId,
    name: e.name,
    provider: e.provider,
    model: e.model,
    base_url: e.baseUrl,
    api_key_secret: e.apiKeySecret,
    input_price_per_million: e.inputPricePerMillion,
    output_price_per_million: e.outputPricePerMillion,
    is_default: e.isDefault,
    accepts_images: e.acceptsImages,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  }),
  fromRow: (r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    provider: r.provider,
    model: r.model,
    baseUrl: r.base_url ?? null,
    apiKeySecret: r.api_key_secret ?? null,
    inputPricePerMillion: Number(r.input_price_per_million),
    outputPricePerMillion: Number(r.output_price_per_million),
    isDefault: Boolean(r.is_default),
    acceptsImages: Boolean(r.accepts_images),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  }),
};
