import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import type { Agent as AgentEntity } from '../../domain/core/agent.entities.js';
import type {
  Schedule as ScheduleEntity,
  ScheduleFire as ScheduleFireEntity,
} from '../../domain/schedules/schedule.entities.js';
import { DeliveryRun } from './webhook-delivery.types.js';
import type { Context } from '../context.js';
import { Agent } from './agent.types.js';
import { HandlerOut } from './entry.types.js';
import { Schedule, ScheduleFire, ScheduleInput, UpdateScheduleInput } from './schedule.types.js';
import { handlerOut } from './shape.js';

@Resolver(() => Schedule)
export class ScheduleResolver {
  @Mutation(() => Schedule, {
    description: 'Adds a schedule to the agent (it fires only while the SCHEDULE surface is on)',
  })
  addSchedule(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => ScheduleInput) input: ScheduleInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'addSchedule', { agentId, input });
  }

  @Mutation(() => Schedule)
  updateSchedule(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateScheduleInput) input: UpdateScheduleInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'updateSchedule', { id, input });
  }

  @Mutation(() => Boolean)
  removeSchedule(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.endpointManagement.call(ctx.principal, 'removeSchedule', { id });
  }

  @FieldResolver(() => String, { nullable: true, description: 'The cron expression (null: an interval)' })
  cron(@Root() s: ScheduleEntity) {
    return 'cron' in s.timing ? s.timing.cron : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'The IANA time zone the cron expression is read in' })
  timeZone(@Root() s: ScheduleEntity) {
    return 'cron' in s.timing ? s.timing.timeZone : null;
  }

  @FieldResolver(() => Int, {
    nullable: true,
    description: 'Seconds between fires, counted from the Unix epoch (null: a cron expression)',
  })
  intervalSeconds(@Root() s: ScheduleEntity) {
    return 'cron' in s.timing ? null : s.timing.intervalSeconds;
  }

  @FieldResolver(() => HandlerOut)
  handler(@Root() s: ScheduleEntity) {
    return handlerOut(s.handler);
  }

  @FieldResolver(() => [Date], { description: 'The next times it fires (count: 1 to 50)' })
  nextFires(
    @Root() s: ScheduleEntity,
    @Arg('count', () => Int, { defaultValue: 5 }) count: number,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.schedules.nextFires(s, count);
  }

  @FieldResolver(() => [ScheduleFire], { description: 'Its latest recorded fires, newest first (first: 1 to 50)' })
  fires(@Root() s: ScheduleEntity, @Arg('first', () => Int, { defaultValue: 10 }) first: number, @Ctx() ctx: Context) {
    return ctx.services.schedules.fires(s, first);
  }
}

@Resolver(() => ScheduleFire)
export class ScheduleFireResolver {
  @FieldResolver(() => DeliveryRun, {
    nullable: true,
    description:
      "The outcome of the fire's run (output, error, credits); null until it ended, or when activity logging is off",
  })
  async run(@Root() f: ScheduleFireEntity, @Ctx() ctx: Context) {
    if (!f.runId) return null;
    const entry = await ctx.loaders.runs.load(f.runId);
    if (!entry) return null;
    const response = entry.response as { output?: unknown } | null;
    return {
      runId: f.runId,
      output: response?.output ?? null,
      error: entry.error,
      credits: entry.credits,
      durationMs: entry.durationMs,
    };
  }
}

@Resolver(() => Agent)
export class AgentScheduleResolver {
  @FieldResolver(() => [Schedule], { description: "The agent's schedules" })
  schedules(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.schedules.load(agent.id);
  }
}
