import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { EventDelivery as EventDeliveryEntity } from '../../domain/events/event.entities.js';
import type { Context } from '../context.js';
import {
  CreatedEventSubscription,
  EventAttempt,
  EventDelivery,
  EventDeliveryConnection,
  EventSubscription,
  EventSubscriptionInput,
} from './event-subscription.types.js';

/** The fields the caller gave (type-graphql may leave the others as undefined properties). */
const given = (input: EventSubscriptionInput) =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));

@Resolver(() => EventSubscription)
export class EventSubscriptionResolver {
  @Query(() => [EventSubscription], { description: "The workspace's event subscriptions (outbound event webhooks)" })
  eventSubscriptions(@Ctx() ctx: Context) {
    return ctx.services.events.list(ctx.principal);
  }

  @Mutation(() => CreatedEventSubscription, {
    description:
      'Subscribes a URL to event kinds (optionally of one agent); the signing secret is returned only here. Admins only',
  })
  createEventSubscription(
    @Arg('input', () => EventSubscriptionInput) input: EventSubscriptionInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.events.create(ctx.principal, given(input));
  }

  @Mutation(() => EventSubscription, {
    description: 'Changes an event subscription (enable it again here). Admins only',
  })
  updateEventSubscription(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => EventSubscriptionInput) input: EventSubscriptionInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.events.update(ctx.principal, id, given(input));
  }

  @Mutation(() => Boolean, { description: 'Deletes an event subscription and its deliveries. Admins only' })
  deleteEventSubscription(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.events.delete(ctx.principal, id);
  }

  @Query(() => EventDeliveryConnection, { description: "A subscription's deliveries, newest first" })
  eventDeliveries(
    @Arg('subscriptionId', () => ID) subscriptionId: string,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.events.deliveries(ctx.principal, subscriptionId, first, after ?? undefined);
  }

  @Mutation(() => EventDelivery, {
    description: "Sends a delivery's event again (same event id and body) as a new delivery. Admins only",
  })
  replayEventDelivery(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.events.replay(ctx.principal, id);
  }

  @Mutation(() => EventDelivery, {
    description:
      "Sends an event with sample data (marked `test`) to a subscription: of `kind`, or of the subscription's first kind. Admins only",
  })
  sendTestEvent(
    @Arg('subscriptionId', () => ID) subscriptionId: string,
    @Arg('kind', () => String, { nullable: true }) kind: string | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.events.sendTest(ctx.principal, subscriptionId, kind ?? undefined);
  }
}

@Resolver(() => EventDelivery)
export class EventDeliveryResolver {
  @FieldResolver(() => [EventAttempt], { description: "The delivery's attempts, oldest first" })
  async attemptLog(@Root() d: EventDeliveryEntity, @Ctx() ctx: Context) {
    return ctx.services.events.attempts([d.id]);
  }
}
