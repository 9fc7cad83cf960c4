import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { AgentResolver } from './resolvers/agent.resolver.js';
import { DocumentResolver } from './resolvers/document.resolver.js';
import { HttpEndpointResolver, McpToolResolver, WebhookDeliveryResolver, WebhookResolver } from './resolvers/entry.resolver.js';
import { KeyResolver } from './resolvers/key.resolver.js';
import { WorkspaceResolver } from './resolvers/workspace.resolver.js';

export const resolvers = [
  WorkspaceResolver,
  AgentResolver,
  KeyResolver,
  HttpEndpointResolver,
  McpToolResolver,
  WebhookResolver,
  WebhookDeliveryResolver,
  DocumentResolver,
] as const;

/** Builds the executable schema from the type-graphql resolvers (no validation: the domain validates). */
export function buildGraphqlSchema(): Promise<GraphQLSchema> {
  return buildSchema({ resolvers, validate: false, emitSchemaFile: false });
}
