// Entities of models as the domain sees them. Repositories map rows to these explicitly.

export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openai-compatible'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface ModelConfig {
  id: string;
  workspaceId: string;
  name: string;
  provider: ModelProvider;
  model: string;
  baseUrl: string | null;
  apiKeySecret: string | null;
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}
