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
  /** Whether the model takes image parts in user messages (the OpenAI-compatible API refuses them otherwise). */
  acceptsImages: boolean;
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}
