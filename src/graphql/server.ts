import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { koaMiddleware } from '@as-integrations/koa';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type Koa from 'koa';
import { DomainError } from '../domain/errors.js';
import { presentedBearer } from '../domain/keys/credentials.js';
import type { Services } from '../domain/services.js';
import { createLoaders, type Context } from './context.js';
import { formatError, type ErrorLogger } from './errors.js';
import { MAX_TOKENS, operationLimits } from './limits.js';
import { knownOperationTypes } from './operation-types.js';

/**
 * Starts Apollo Server over the type-graphql schema and returns the Koa middleware for
 * `POST /graphql`. Every request needs a member token; without one the answer is UNAUTHENTICATED.
 */
export async function createGraphqlMiddleware(schema: GraphQLSchema, services: Services, logger: ErrorLogger): Promise<{ middleware: Koa.Middleware; stop: () => Promise<void> }> {
  const apollo = new ApolloServer<Context>({
    schema,
    formatError: formatError(logger, schema),
    includeStacktraceInErrorResponses: false,
    validationRules: [knownOperationTypes, operationLimits()],
    parseOptions: { maxTokens: MAX_TOKENS },
    csrfPrevention: true,
    // Apollo's landing page loads its IDE from a CDN (blank without internet); a browser gets the
    // page of src/rest/home.routes.ts instead.
    plugins: [ApolloServerPluginLandingPageDisabled()],
    // The composition root owns shutdown (src/main.ts); Apollo must not install signal handlers.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  const middleware = koaMiddleware(apollo, {
    context: async ({ ctx }) => {
      try {
        const principal = await services.keys.authenticateMember(presentedBearer(ctx.get('authorization')));
        return { principal, services, loaders: createLoaders(services) };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'UNAUTHENTICATED') {
          throw new GraphQLError(err.message, {
            extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
          });
        }
        throw err;
      }
    },
  });
  return { middleware: middleware as unknown as Koa.Middleware, stop: () => apollo.stop() };
}
