import type { ModelProvider } from './model.entities.js';
import type { ModelDefaults } from './model-resolver.js';
import { maskUrlCredentials } from './url-credentials.js';

/**
 * A model provider the service's environment configures (OPENAI_* / ANTHROPIC_*), as the console
 * shows it beside the workspace's models: never its key, only whether there is one.
 */
export interface EnvironmentModel {
  /** `openai-compatible` for OPENAI_BASE_URL (a server of its own), `openai` for the public API. */
  provider: ModelProvider;
  /** The server called, its credentials masked; null for the provider's public API. */
  baseUrl: string | null;
  /** The model name a run uses when nothing else names one (OPENAI_MODEL / ANTHROPIC_MODEL). */
  model: string;
  /** The variable that configures it. */
  source: 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY';
  hasKey: boolean;
  /** Whether runs that name no model use it when the workspace has no default (the first one does). */
  isFallback: boolean;
}

/** The environment's model providers, in the order a run falls back to them (OpenAI first). */
export function environmentModels(defaults: ModelDefaults): EnvironmentModel[] {
  const found: Omit<EnvironmentModel, 'isFallback'>[] = [];
  const { openai, anthropic } = defaults;
  if (openai) {
    found.push({
      provider: openai.baseUrl ? 'openai-compatible' : 'openai',
      baseUrl: openai.baseUrl ? maskUrlCredentials(openai.baseUrl) : null,
      model: openai.model,
      source: openai.baseUrl ? 'OPENAI_BASE_URL' : 'OPENAI_API_KEY',
      hasKey: Boolean(openai.apiKey),
    });
  }
  if (anthropic) {
    found.push({
      provider: 'anthropic',
      baseUrl: null,
      model: anthropic.model,
      source: 'ANTHROPIC_API_KEY',
      hasKey: true,
    });
  }
  return found.map((m, i) => ({ ...m, isFallback: i === 0 }));
}
