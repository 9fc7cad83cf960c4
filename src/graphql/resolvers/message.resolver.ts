import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { Agent as AgentEntity } from '../../domain/core/agent.entities.js';
import { MAX_MESSAGE_PAGE } from '../../domain/messages/message.service.js';
import type { Context } from '../context.js';
import { Agent } from './agent.types.js';
import { MessageChannelEnum, MessageDirectionEnum, MessagePage } from './message.types.js';

/** An agent's email and SMS messages (a field of Agent): the Workspace API's list, for members. */
@Resolver(() => Agent)
export class MessageResolver {
  @FieldResolver(() => MessagePage, {
    description: 'Email and SMS messages sent to or by the agent, both directions, newest first',
  })
  messages(
    @Root() agent: AgentEntity,
    @Arg('page', () => Int, { defaultValue: 1, description: 'The first page is 1; a page past the end is empty' })
    page: number,
    @Arg('pageSize', () => Int, { defaultValue: 50, description: `Messages per page, 1 to ${MAX_MESSAGE_PAGE}` })
    pageSize: number,
    @Arg('direction', () => MessageDirectionEnum, { nullable: true }) direction: MessageDirectionEnum | undefined,
    @Arg('channel', () => MessageChannelEnum, { nullable: true }) channel: MessageChannelEnum | undefined,
    @Arg('since', () => Date, { nullable: true, description: 'Messages sent strictly after this instant' })
    since: Date | undefined,
    @Arg('until', () => Date, { nullable: true, description: 'Messages sent strictly before this instant' })
    until: Date | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.messages.list(ctx.principal, agent.id, {
      page,
      pageSize,
      direction: direction ?? undefined,
      channel: channel ?? undefined,
      since: since ?? undefined,
      until: until ?? undefined,
    });
  }
}
