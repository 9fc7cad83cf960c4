import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import type { Channel as ChannelEntity } from '../../domain/entries/channel.entities.js';
import type { Context } from '../context.js';
import { Channel, ChannelInput, UpdateChannelInput } from './channel.types.js';
import { HandlerOut } from './entry.types.js';
import { handlerOut } from './shape.js';

/** Channel mutations: the Endpoint Management operations of the same names (the agent's tools run them too). */
@Resolver(() => Channel)
export class ChannelResolver {
  @Mutation(() => Channel, { description: 'Adds an email address or SMS number to the agent' })
  addChannel(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => ChannelInput) input: ChannelInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'addChannel', { agentId, input });
  }

  @Mutation(() => Channel)
  updateChannel(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateChannelInput) input: UpdateChannelInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'updateChannel', { id, input });
  }

  @Mutation(() => Boolean, { description: 'Removes a channel; its stored messages stay' })
  removeChannel(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.endpointManagement.call(ctx.principal, 'removeChannel', { id });
  }

  @FieldResolver(() => HandlerOut)
  handler(@Root() c: ChannelEntity) {
    return handlerOut(c.handler);
  }
}
