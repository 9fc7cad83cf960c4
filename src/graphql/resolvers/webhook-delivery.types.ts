import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/webhooks/webhook.entities.js';
import { register } from '../graphql-enum.js';

// Webhook deliveries and the outcome of their runs. GraphQL types of the area.

export const DeliveryStatusEnum = register(DELIVERY_STATUSES, 'WebhookDeliveryStatus', {
  description:
    'PENDING: waiting for its next attempt; RUNNING: being processed; DONE: ran; FAILED: gave up after its last attempt',
});
export type DeliveryStatusEnum = DeliveryStatus;

@ObjectType({ description: 'A callback a webhook integration received, and how its processing went' })
export class WebhookDelivery {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) integration!: string;
  @Field(() => DeliveryStatusEnum) status!: DeliveryStatusEnum;
  @Field(() => String, {
    nullable: true,
    description: "The sender's own id of the delivery (X-GitHub-Delivery, webhook-id, Stripe event id, Slack event_id)",
  })
  senderDeliveryId!: string | null;
  @Field(() => ID, { nullable: true, description: 'The delivery this one replays' }) replayOf!: string | null;
  @Field(() => String) method!: string;
  @Field(() => GraphQLJSONObject, { description: 'Request headers; credential and signature headers are not stored' })
  headers!: object;
  @Field(() => GraphQLJSONObject) query!: object;
  @Field(() => Int, { description: 'Processing attempts so far (each has a run entry in the activity log)' })
  attempts!: number;
  @Field(() => Int, { description: 'Attempts that failed (they drive the retry schedule)' }) failures!: number;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => String, { nullable: true, description: 'The run of the latest attempt' }) runId!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => Date, { nullable: true }) completedAt!: Date | null;
  @Field(() => Date, {
    nullable: true,
    description:
      'When the body was dropped, its replay window (WEBHOOK_BODY_RETENTION_DAYS) having passed since the delivery finished: `body` is then empty and the delivery cannot be replayed',
  })
  bodyDroppedAt!: Date | null;
}

@ObjectType()
export class WebhookDeliveryConnection {
  @Field(() => [WebhookDelivery]) nodes!: WebhookDelivery[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page' }) endCursor!: string | null;
  @Field(() => Boolean) hasNextPage!: boolean;
}

@ObjectType({ description: "The outcome of a webhook delivery's latest run, from that run's activity entry" })
export class DeliveryRun {
  @Field(() => ID) runId!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: "The handler's output (null when it failed)" })
  output!: unknown;
  @Field(() => String, { nullable: true, description: 'Why the run failed, or null' }) error!: string | null;
  @Field(() => Float) credits!: number;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
}
