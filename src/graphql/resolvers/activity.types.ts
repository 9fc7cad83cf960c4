import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { ACTIVITY_KINDS, type ActivityKind } from '../../domain/activity/activity.entities.js';
import { register } from '../graphql-enum.js';
import { SurfaceEnum } from './agent.types.js';

// An agent's activity log and usage. GraphQL types of the area.

export const ActivityKindEnum = register(ACTIVITY_KINDS, 'ActivityKind');
export type ActivityKindEnum = ActivityKind;

@ObjectType()
export class ActivityEntry {
  @Field(() => ID) id!: string;
  @Field(() => ActivityKindEnum) kind!: ActivityKindEnum;
  @Field(() => SurfaceEnum) surface!: SurfaceEnum;
  @Field(() => String, { nullable: true }) entry!: string | null;
  @Field(() => String, { nullable: true }) method!: string | null;
  @Field(() => String, { nullable: true }) path!: string | null;
  @Field(() => Int, { nullable: true }) status!: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) requestHeaders!: object | null;
  @Field(() => GraphQLJSON, { nullable: true }) requestBody!: unknown;
  @Field(() => GraphQLJSON, { nullable: true }) response!: unknown;
  @Field(() => Boolean) truncated!: boolean;
  @Field(() => Float) credits!: number;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
  @Field(() => String, { nullable: true }) keyId!: string | null;
  @Field(() => String, { nullable: true, description: 'The OAuth client that made the call (OAuth calls only)' })
  oauthClientId!: string | null;
  @Field(() => ID, { nullable: true, description: 'The member who approved the OAuth client (OAuth calls only)' })
  grantedBy!: string | null;
  @Field(() => String, { nullable: true }) runId!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The request's X-Request-Id (sent by the caller or generated), also in the service's log line",
  })
  requestId!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Boolean, {
    description:
      "Protocol traffic: an exchange the client's protocol makes around the calls (an MCP initialize, a notification, the GET stream probe answered 405), not a call of the agent. Left out of `activity` unless `includeProtocol`",
  })
  protocol!: boolean;
  @Field(() => String, {
    nullable: true,
    description: 'The webhook delivery this entry received (the receipt, kind REQUEST) or processed (a run, kind RUN)',
  })
  deliveryId!: string | null;
  @Field(() => ActivityEntry, {
    nullable: true,
    description:
      "On a webhook receipt: its delivery's latest run (an entry of kind RUN), null while none has ended; null on other entries",
  })
  deliveryRun?: ActivityEntry | null;
  @Field(() => String, {
    nullable: true,
    description: "The call's W3C trace id (the caller's when it sent a traceparent); a collector shows the same trace",
  })
  traceId?: string | null;
}

@ObjectType()
export class ActivityConnection {
  @Field(() => [ActivityEntry]) nodes!: ActivityEntry[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page' }) endCursor!: string | null;
  @Field(() => Boolean) hasNextPage!: boolean;
}

@ObjectType()
export class DailyUsage {
  @Field(() => String, { description: 'UTC day, YYYY-MM-DD' }) day!: string;
  @Field(() => Float) credits!: number;
  @Field(() => Int) runs!: number;
}

@ObjectType({ description: "Runs of one surface on one UTC day, counted from the agent's activity log" })
export class SurfaceUsage {
  @Field(() => String, { description: 'UTC day, YYYY-MM-DD' }) day!: string;
  @Field(() => SurfaceEnum) surface!: SurfaceEnum;
  @Field(() => Int, { description: 'Runs (each counted once, whatever the entries of its request)' }) runs!: number;
  @Field(() => Float, { description: 'Credits of those runs' }) credits!: number;
}
