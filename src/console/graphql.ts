import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

/**
 * Typed GraphQL documents: `graphql-env.d.ts` is generated from `schema.graphql`
 * (`npm run console:schema`), and `npm run typecheck` checks every document against it.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTimeISO: string; JSON: unknown; JSONObject: Record<string, unknown> };
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';
