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
