import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import {
  FIRE_STATES,
  SCHEDULE_OVERLAPS,
  type FireState,
  type ScheduleOverlap,
} from '../../domain/schedules/schedule.entities.js';
import { register } from '../graphql-enum.js';
import { HandlerInput } from './entry.types.js';
import { SCHEDULE_FIELD_DESCRIPTIONS as D } from '../../domain/endpoint-management/endpoint-management.schedules.js';

export const ScheduleOverlapEnum = register(SCHEDULE_OVERLAPS, 'ScheduleOverlap', {
  description:
    'What a fire does while the previous run of its schedule is still going: skipped, or run after it (one waits at most)',
});
export type ScheduleOverlapEnum = ScheduleOverlap;
export const ScheduleFireStateEnum = register(FIRE_STATES, 'ScheduleFireState', {
  description: 'Where a fire is: running, queued behind a running one, or how it ended',
});
export type ScheduleFireStateEnum = FireState;

@ObjectType({
  description: "An agent's run that starts by itself, on a cron expression in a time zone or every N seconds",
})
export class Schedule {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => String) name!: string;
  // cron, timeZone, intervalSeconds, handler, nextFires and fires: ScheduleResolver.
  @Field(() => String, { nullable: true }) modelOverride!: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: "The run's input (its body)" }) input!: unknown;
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => Boolean, { description: 'An occurrence missed while every instance was down is fired once at start' })
  catchUp!: boolean;
  @Field(() => ScheduleOverlapEnum) overlap!: ScheduleOverlapEnum;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType({ description: "A refused fire's refusal, with the codes every surface uses" })
export class ScheduleFireRefusal {
  @Field(() => String, { description: 'INVALID, LIMIT_EXCEEDED, …' }) code!: string;
  @Field(() => String, { nullable: true, description: "A limit's reason (daily_credit_limit, …)" })
  reason!: string | null;
}

@ObjectType({ description: 'One occurrence of a schedule, recorded once' })
export class ScheduleFire {
  @Field(() => Date) occurrenceAt!: Date;
  @Field(() => ScheduleFireStateEnum) state!: ScheduleFireStateEnum;
  @Field(() => Boolean, { description: 'Fired after its time: a catch-up once an instance was back' }) late!: boolean;
  @Field(() => String, { nullable: true }) runId!: string | null;
  @Field(() => String, { nullable: true, description: 'Why it failed, was refused, skipped or lost' })
  error!: string | null;
  @Field(() => ScheduleFireRefusal, {
    nullable: true,
    description: 'A refused fire: the refusal (a limit, guardrails)',
  })
  refusal!: ScheduleFireRefusal | null;
  @Field(() => Date, { nullable: true }) finishedAt!: Date | null;
  // run: ScheduleFireResolver.
}

@InputType()
export class ScheduleInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true, description: D.cron }) cron?: string | null;
  @Field(() => String, { nullable: true, description: D.timeZone }) timeZone?: string | null;
  @Field(() => Int, { nullable: true }) intervalSeconds?: number | null;
  @Field(() => HandlerInput) handler!: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: D.input }) input?: unknown;
  @Field(() => Boolean, { nullable: true, description: D.enabled }) enabled?: boolean;
  @Field(() => Boolean, { nullable: true, description: D.catchUp }) catchUp?: boolean;
  @Field(() => ScheduleOverlapEnum, { nullable: true, description: D.overlap }) overlap?: ScheduleOverlapEnum;
}

@InputType()
export class UpdateScheduleInput {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) cron?: string | null;
  @Field(() => String, { nullable: true }) timeZone?: string | null;
  @Field(() => Int, { nullable: true }) intervalSeconds?: number | null;
  @Field(() => HandlerInput, { nullable: true }) handler?: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => GraphQLJSON, { nullable: true }) input?: unknown;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean;
  @Field(() => Boolean, { nullable: true }) catchUp?: boolean;
  @Field(() => ScheduleOverlapEnum, { nullable: true }) overlap?: ScheduleOverlapEnum;
}
