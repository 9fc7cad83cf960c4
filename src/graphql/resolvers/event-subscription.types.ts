import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { EVENT_DELIVERY_STATES, type EventDeliveryState } from '../../domain/events/event.entities.js';
import { register } from '../graphql-enum.js';

// Outbound event webhooks: subscriptions, their deliveries and attempts. GraphQL types of the area.

const KINDS =
  'Event kinds: run.completed, run.failed, approval.requested, approval.decided, limit.reached, webhook.delivery.failed, message.received, schedule.fired, key.created, key.revoked';

export const EventDeliveryStateEnum = register(EVENT_DELIVERY_STATES, 'EventDeliveryState', {
  description: 'PENDING: waiting for its (next) attempt; DELIVERED: a 2xx answered; FAILED: every attempt failed',
});
export type EventDeliveryStateEnum = EventDeliveryState;

@ObjectType({ description: 'A URL of the workspace that receives events, signed with Standard Webhooks' })
export class EventSubscription {
  @Field(() => ID) id!: string;
  @Field(() => String) url!: string;
  @Field(() => [String], { description: KINDS }) kinds!: string[];
  @Field(() => ID, { nullable: true, description: 'Only events about this agent' }) agentId!: string | null;
  @Field(() => String) description!: string;
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => Int, { description: 'Deliveries in a row that failed every attempt' }) failureStreak!: number;
  @Field(() => Date, { nullable: true }) disabledAt!: Date | null;
  @Field(() => String, { nullable: true, description: 'Why the subscription was disabled' })
  disabledReason!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType({ description: 'A new subscription and its signing secret, shown only here' })
export class CreatedEventSubscription {
  @Field(() => EventSubscription) subscription!: EventSubscription;
  @Field(() => String, {
    description: 'The Standard Webhooks signing secret (whsec_…) to verify deliveries with; it is not shown again',
  })
  secret!: string;
}

@ObjectType({ description: 'One HTTP attempt of an event delivery' })
export class EventAttempt {
  @Field(() => Int) attempt!: number;
  @Field(() => Int, { nullable: true, description: "The receiver's status; null when no answer came" })
  status!: number | null;
  @Field(() => String, { nullable: true, description: "The beginning of the receiver's answer (1 KiB), or the error" })
  response!: string | null;
  @Field(() => Int) durationMs!: number;
  @Field(() => Date) at!: Date;
}

@ObjectType({ description: 'One event for one subscription, stored before it was sent' })
export class EventDelivery {
  @Field(() => ID) id!: string;
  @Field(() => ID) subscriptionId!: string;
  @Field(() => ID, { description: 'The event id (the webhook-id header): the same on every attempt and replay' })
  eventId!: string;
  @Field(() => String) kind!: string;
  @Field(() => GraphQLJSONObject, { description: 'The body sent' }) payload!: object;
  @Field(() => EventDeliveryStateEnum) state!: EventDeliveryStateEnum;
  @Field(() => Int) attempts!: number;
  @Field(() => Date, { nullable: true }) nextAttemptAt!: Date | null;
  @Field(() => Int, { nullable: true }) lastStatus!: number | null;
  @Field(() => String, { nullable: true }) lastResponse!: string | null;
  @Field(() => ID, { nullable: true, description: 'The delivery this one replays' }) replayOf!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) completedAt!: Date | null;
}

@ObjectType()
export class EventDeliveryConnection {
  @Field(() => [EventDelivery]) nodes!: EventDelivery[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page' }) endCursor!: string | null;
  @Field(() => Boolean) hasNextPage!: boolean;
}

@InputType()
export class EventSubscriptionInput {
  @Field(() => String, { nullable: true, description: 'An http(s) URL, at most 2000 characters' }) url?: string;
  @Field(() => [String], { nullable: true, description: KINDS }) kinds?: string[];
  @Field(() => ID, { nullable: true, description: 'Only events about this agent; null: every agent' })
  agentId?: string | null;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => Boolean, { nullable: true, description: 'Enabling a disabled subscription clears its failure streak' })
  enabled?: boolean;
}
