import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Resolver, Root } from 'type-graphql';
import type { Agent as AgentEntity } from '../../domain/core/agent.entities.js';
import type { Context } from '../context.js';
import { selects } from '../selection.js';
import { ActivityConnection, ActivityEntry, DailyUsage, SurfaceUsage } from './activity.types.js';
import { Agent, SurfaceEnum } from './agent.types.js';

/** The fields of an activity entry that are read from its large columns. */
const ACTIVITY_BODY_FIELDS = ['requestHeaders', 'requestBody', 'response'] as const;

/** An agent's activity log and usage (fields of Agent). */
@Resolver(() => Agent)
export class ActivityResolver {
  @FieldResolver(() => ActivityConnection, {
    description: 'Activity log, newest first, with the entries matching every filter given',
  })
  activity(
    @Root() agent: AgentEntity,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('surface', () => SurfaceEnum, { nullable: true }) surface: SurfaceEnum | undefined,
    @Arg('status', () => String, {
      nullable: true,
      description:
        "A status code (429), a class of codes (2xx, 3xx, 4xx, 5xx), or 'error': entries with an error, whatever their status",
    })
    status: string | undefined,
    @Arg('entry', () => String, {
      nullable: true,
      description: "The entry's name (an endpoint, tool or integration), exactly",
    })
    entry: string | undefined,
    @Arg('since', () => Date, { nullable: true, description: 'Entries created at or after this instant' })
    since: Date | undefined,
    @Arg('until', () => Date, { nullable: true, description: 'Entries created before this instant' })
    until: Date | undefined,
    @Arg('includeProtocol', () => Boolean, {
      defaultValue: false,
      description:
        'Whether protocol traffic (entries with `protocol`: an MCP initialize, notifications, the stream probe) is listed too',
    })
    includeProtocol: boolean,
    @Arg('foldDeliveryRuns', () => Boolean, {
      defaultValue: false,
      description:
        "Whether a webhook delivery's runs are left out when its receipt is listed (same filters): one row per delivery, its run in the receipt's `deliveryRun`",
    })
    foldDeliveryRuns: boolean,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.services.activity.list(ctx.principal, agent.id, {
      // A page that shows no headers or bodies (the console's list) does not read them.
      withBodies: selects(info, ['nodes'], ACTIVITY_BODY_FIELDS),
      includeProtocol,
      foldDeliveryRuns,
      deliveryRuns: selects(info, ['nodes'], ['deliveryRun'])
        ? { withBodies: selects(info, ['nodes', 'deliveryRun'], ACTIVITY_BODY_FIELDS) }
        : undefined,
      first,
      after: after ?? undefined,
      surface: surface ?? undefined,
      status: status ?? undefined,
      entry: entry ?? undefined,
      since: since ?? undefined,
      until: until ?? undefined,
    });
  }

  @FieldResolver(() => ActivityEntry, {
    nullable: true,
    description: 'One entry of the activity log with its headers and bodies; null when the agent has none with this id',
  })
  activityEntry(
    @Root() agent: AgentEntity,
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.services.activity.entry(ctx.principal, agent.id, id, selects(info, [], ['deliveryRun']));
  }

  @FieldResolver(() => [SurfaceUsage], {
    description:
      "Runs and credits per UTC day and surface, newest day first, counted from the activity log: a surface whose activity logging is off, and days past the workspace's activity retention, count nothing",
  })
  usageBySurface(
    @Root() agent: AgentEntity,
    @Arg('days', () => Int, { defaultValue: 30 }) days: number,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.activity.usageBySurface(ctx.principal, agent.id, days);
  }

  @FieldResolver(() => [DailyUsage], { description: 'Credits per UTC day, newest first' })
  usage(@Root() agent: AgentEntity, @Arg('days', () => Int, { defaultValue: 30 }) days: number, @Ctx() ctx: Context) {
    return ctx.services.activity.usage(ctx.principal, agent.id, days);
  }
}
