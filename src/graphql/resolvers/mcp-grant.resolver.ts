import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { McpGrant } from './mcp-grant.types.js';

@Resolver(() => McpGrant)
export class McpGrantResolver {
  @Mutation(() => Boolean, {
    description:
      "Revokes an OAuth client's access to the agent's MCP server: the grant and all its tokens end at once (the client's next call gets 401). Members who can see the agent",
  })
  revokeMcpGrant(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('grantId', () => ID) grantId: string,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.mcpGrants.revoke(ctx.principal, agentId, grantId);
  }
}
