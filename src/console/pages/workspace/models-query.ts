import { graphql, type ResultOf } from '../../graphql.js';

/** The workspace's models as the Models section lists them and its form edits them. */
export const ModelsQuery = graphql(`
  query WorkspaceModels {
    models {
      id
      name
      provider
      model
      baseUrl
      apiKeySecret
      isDefault
      acceptsImages
      inputPricePerMillion
      outputPricePerMillion
    }
  }
`);

export type ModelRow = ResultOf<typeof ModelsQuery>['models'][number];
export type Provider = ModelRow['provider'];

/** The request context of every models query and mutation: the list may be empty. */
export const MODELS = { additionalTypenames: ['Model'] };

/** The model providers the service's environment configures (read-only, never a key). */
export const EnvironmentModelsQuery = graphql(`
  query EnvironmentModels {
    environmentModels {
      provider
      baseUrl
      model
      source
      hasKey
      isFallback
    }
  }
`);

export type EnvironmentModelRow = ResultOf<typeof EnvironmentModelsQuery>['environmentModels'][number];

/** A provider as people name it. */
export const providerName = (p: Provider) =>
  ({ OPENAI: 'OpenAI', ANTHROPIC: 'Anthropic', OPENAI_COMPATIBLE: 'OpenAI-compatible' })[p];

/** One line for an environment's provider: "OpenAI-compatible at http://localhost:11434/v1 · llama3.2, from OPENAI_BASE_URL". */
export function environmentLine(m: Pick<EnvironmentModelRow, 'provider' | 'baseUrl' | 'model' | 'source'>): string {
  return `${providerName(m.provider)}${m.baseUrl ? ` at ${m.baseUrl}` : ''} · ${m.model}, from ${m.source}`;
}
