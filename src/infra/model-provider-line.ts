import { maskUrlCredentials } from '../domain/models/url-credentials.js';
import type { Config } from './config.js';

/**
 * The one line a start prints about the model provider of its environment: which server, which
 * model, whether a key is set (never the key); or that there is none and what prompt handlers
 * then answer. Models configured in the workspace (configureModel) are listed by GraphQL `models`.
 */
export function modelProviderLine(
  config: Pick<Config, 'openaiApiKey' | 'openaiBaseUrl' | 'openaiModel' | 'anthropicApiKey' | 'anthropicModel'>,
): string {
  const parts: string[] = [];
  if (config.openaiApiKey || config.openaiBaseUrl) {
    const where = config.openaiBaseUrl
      ? maskUrlCredentials(config.openaiBaseUrl)
      : 'https://api.openai.com/v1 (OpenAI)';
    parts.push(
      `OpenAI-compatible at ${where}, model ${config.openaiModel}, ${config.openaiApiKey ? 'key from OPENAI_API_KEY' : 'no key (a local server)'}`,
    );
  }
  if (config.anthropicApiKey) parts.push(`Anthropic, model ${config.anthropicModel}, key from ANTHROPIC_API_KEY`);
  if (parts.length) return `Model provider: ${parts.join('; ')}`;
  return (
    'No model provider: prompt handlers answer 500 until you start with OPENAI_BASE_URL (a local server such as Ollama), ' +
    'OPENAI_API_KEY or ANTHROPIC_API_KEY, or configure a model with configureModel. Script handlers need no model.'
  );
}
