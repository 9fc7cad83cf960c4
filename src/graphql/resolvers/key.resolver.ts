import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { ApiKey, ApiKeyOriginEnum, CreatedApiKey, KeyScopeEnum } from './key.types.js';

const EXPIRES_AT =
  'When the key stops working: at least a minute and at most 365 days ahead. Leave out for a key that works until revoked';
const ORIGIN =
  "Who makes the key: PERSON (the default) or CLI for a tool's own short-lived keys, which the console hides by default. TRY_IT is refused: the console's Try it makes those";

@Resolver(() => ApiKey)
export class KeyResolver {
  @Mutation(() => CreatedApiKey, { description: 'Creates an agent key (ak_); the plaintext is returned only here' })
  createAgentApiKey(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('name', () => String) name: string,
    @Arg('expiresAt', () => Date, { nullable: true, description: EXPIRES_AT }) expiresAt: Date | undefined,
    @Arg('origin', () => ApiKeyOriginEnum, { nullable: true, description: ORIGIN })
    origin: ApiKeyOriginEnum | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.keys.createAgentApiKey(ctx.principal, agentId, name, expiresAt, origin);
  }

  @Mutation(() => CreatedApiKey, {
    description:
      'The console\'s "Try it" key for an agent: an agent key named "Console Try it — <member>", expiring after an hour and revoked when the console session that made it ends (sign-out, or its member token revoked); it replaces the session\'s earlier Try-it key for that agent. Only in a console session: a bearer token is refused (FORBIDDEN)',
  })
  createTryItKey(@Arg('agentId', () => ID) agentId: string, @Ctx() ctx: Context) {
    return ctx.services.keys.createTryItKey(ctx.principal, agentId, ctx.consoleSessionId);
  }

  @Mutation(() => CreatedApiKey, { description: 'Creates a workspace key (wk_). Admins only' })
  createWorkspaceApiKey(
    @Arg('name', () => String) name: string,
    @Arg('scopes', () => [KeyScopeEnum], { nullable: true }) scopes: KeyScopeEnum[] | undefined,
    @Arg('expiresAt', () => Date, { nullable: true, description: EXPIRES_AT }) expiresAt: Date | undefined,
    @Arg('origin', () => ApiKeyOriginEnum, { nullable: true, description: ORIGIN })
    origin: ApiKeyOriginEnum | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.keys.createWorkspaceApiKey(ctx.principal, name, scopes ?? [], expiresAt, origin);
  }

  @Mutation(() => Boolean, { description: 'Revokes a key with immediate effect' })
  revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.keys.revokeApiKey(ctx.principal, id);
  }
}
