import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { KeyScopeEnum } from '../types/enums.js';
import { ApiKey, CreatedApiKey } from '../types/objects.js';

@Resolver(() => ApiKey)
export class KeyResolver {
  @Mutation(() => CreatedApiKey, { description: 'Creates an agent key (ak_); the plaintext is returned only here' })
  createAgentApiKey(@Arg('agentId', () => ID) agentId: string, @Arg('name', () => String) name: string, @Ctx() ctx: Context) {
    return ctx.services.keys.createAgentApiKey(ctx.principal, agentId, name);
  }

  @Mutation(() => CreatedApiKey, { description: 'Creates a workspace key (wk_). Admins only' })
  createWorkspaceApiKey(
    @Arg('name', () => String) name: string,
    @Arg('scopes', () => [KeyScopeEnum], { nullable: true }) scopes: KeyScopeEnum[] | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.keys.createWorkspaceApiKey(ctx.principal, name, scopes ?? []);
  }

  @Mutation(() => Boolean, { description: 'Revokes a key with immediate effect' })
  revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.keys.revokeApiKey(ctx.principal, id);
  }
}
