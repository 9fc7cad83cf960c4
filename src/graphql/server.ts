import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { koaMiddleware } from '@as-integrations/koa';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type Koa from 'koa';
import { DomainError } from '../domain/errors.js';
import { presentedBearer } from '../domain/core/credentials.js';
import { WORKSPACE_HEADER } from '../domain/keys/token-workspace.js';
import type { Services } from '../domain/services.js';
import { createLoaders, type Context } from './context.js';
import { formatError, type ErrorLogger } from './errors.js';
import { MAX_TOKENS, operationLimits } from './limits.js';
import { knownOperationTypes } from './operation-types.js';
import { viewerGuard } from './viewer-guard.js';
import { sessionCsrfProblem, sessionValue } from '../rest/session-cookie.js';
import { assertTenantCredential, publicBaseUrl, requestTenant, tenantRefusal } from '../rest/tenant.middleware.js';
import type { Principal } from '../domain/principal.js';

/**
 * Who a GraphQL request acts as: the member token of its Authorization header (a PERSON token in
 * the workspace of its AES-Workspace header) or, without that header, the console session of its cookie under the cookie's CSRF rules (POST, JSON, this
 * service's Origin — else FORBIDDEN).
 */
async function principalOf(
  ctx: Koa.Context,
  services: Services,
  baseUrl: string,
): Promise<{ principal: Principal; sessionId?: string }> {
  const authorization = ctx.get('authorization');
  const session = authorization ? undefined : sessionValue(ctx);
  // A PERSON token acts in the workspace the request names; a console session has its own switcher.
  // On a tenant host (TENANT_BASE_URL) a person's token acts in the host's workspace unless the
  // request names one, and only that host's workspace's tokens and sessions are taken.
  if (session === undefined) {
    const named = ctx.get(WORKSPACE_HEADER) || undefined;
    const tenant = requestTenant(ctx);
    const principal = await services.keys
      .authenticateMember(presentedBearer(authorization), named ?? tenant?.slug)
      .catch((err: unknown) => {
        if (!named && tenant && err instanceof DomainError && err.code === 'FORBIDDEN') throw tenantRefusal(ctx);
        throw err;
      });
    return { principal: assertTenantCredential(ctx, principal) };
  }
  const problem = sessionCsrfProblem(ctx, publicBaseUrl(ctx, baseUrl), { json: true });
  if (problem) throw new GraphQLError(problem, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
  const found = await services.consoleSessions.authenticateSession(session);
  assertTenantCredential(ctx, found.principal);
  return found;
}

/**
 * Starts Apollo Server over the type-graphql schema and returns the Koa middleware for
 * `POST /graphql`. Every request needs a member token or a console session; without one the
 * answer is UNAUTHENTICATED. `baseUrl` is the service's public origin, which console requests name.
 */
export async function createGraphqlMiddleware(
  schema: GraphQLSchema,
  services: Services,
  logger: ErrorLogger,
  baseUrl: string,
): Promise<{ middleware: Koa.Middleware; stop: () => Promise<void> }> {
  const apollo = new ApolloServer<Context>({
    schema,
    formatError: formatError(logger, schema),
    includeStacktraceInErrorResponses: false,
    validationRules: [knownOperationTypes, operationLimits()],
    parseOptions: { maxTokens: MAX_TOKENS },
    csrfPrevention: true,
    // Apollo's landing page loads its IDE from a CDN (blank without internet); a browser gets the
    // page of src/rest/home.routes.ts instead.
    // The VIEWER role's second wall (the domain is the first): see viewer-guard.ts.
    plugins: [ApolloServerPluginLandingPageDisabled(), viewerGuard()],
    // The composition root owns shutdown (src/main.ts); Apollo must not install signal handlers.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  const middleware = koaMiddleware(apollo, {
    context: async ({ ctx }) => {
      try {
        const { principal, sessionId } = await principalOf(ctx as unknown as Koa.Context, services, baseUrl);
        const tenant = requestTenant(ctx as unknown as Koa.Context);
        return {
          principal,
          services,
          loaders: createLoaders(services, principal),
          ...(sessionId ? { consoleSessionId: sessionId } : {}),
          ...(tenant ? { tenant } : {}),
        };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'UNAUTHENTICATED') {
          throw new GraphQLError(err.message, {
            extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
          });
        }
        // A token that may not act in the workspace its request names (AES-Workspace).
        if (err instanceof DomainError && err.code === 'FORBIDDEN') {
          throw new GraphQLError(err.message, {
            extensions: { code: 'FORBIDDEN', ...err.details, http: { status: 403 } },
          });
        }
        throw err;
      }
    },
  });
  return { middleware: middleware as unknown as Koa.Middleware, stop: () => apollo.stop() };
}
