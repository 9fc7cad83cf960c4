import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Agent as AgentEntity } from '../../domain/agents/agent.entities.js';
import type { Context } from '../context.js';
import { SurfaceEnum } from '../types/enums.js';
import { CapabilitiesInput, CreateAgentInput, GuardrailsInput, UpdateAgentInput } from '../types/inputs.js';
import {
  ActivityConnection,
  ActivityEntry,
  Agent,
  AgentLimits,
  ApiKey,
  DailyUsage,
  Document,
  DocumentExposure,
  HttpEndpoint,
  McpTool,
  SurfaceSetting,
  SurfaceUsage,
  Webhook,
} from '../types/objects.js';
import { surfacesOut } from './shape.js';
import { selects } from '../selection.js';

/** The fields of an activity entry that are read from its large columns. */
const ACTIVITY_BODY_FIELDS = ['requestHeaders', 'requestBody', 'response'] as const;

@Resolver(() => Agent)
export class AgentResolver {
  @Query(() => [Agent], { description: 'Agents the viewer can see' })
  agents(@Ctx() ctx: Context) {
    return ctx.services.agents.list(ctx.principal);
  }

  @Query(() => Agent)
  agent(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.agents.get(ctx.principal, id);
  }

  @Mutation(() => Agent)
  createAgent(@Arg('input', () => CreateAgentInput) input: CreateAgentInput, @Ctx() ctx: Context) {
    return ctx.services.agents.create(ctx.principal, input);
  }

  @Mutation(() => Agent)
  updateAgent(@Arg('id', () => ID) id: string, @Arg('input', () => UpdateAgentInput) input: UpdateAgentInput, @Ctx() ctx: Context) {
    return ctx.services.agents.update(ctx.principal, id, input);
  }

  @Mutation(() => Boolean)
  deleteAgent(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.agents.delete(ctx.principal, id);
  }

  @Mutation(() => Agent, { description: 'Turns a surface on or off and sets its activity logging' })
  setSurface(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('surface', () => SurfaceEnum) surface: SurfaceEnum,
    @Arg('enabled', () => Boolean, { nullable: true }) enabled: boolean | undefined,
    @Arg('activityLogging', () => Boolean, { nullable: true }) activityLogging: boolean | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.agents.setSurface(ctx.principal, agentId, { surface, enabled: enabled ?? undefined, activityLogging: activityLogging ?? undefined });
  }

  @Mutation(() => Agent, { description: 'HTTP API CORS: platform apps and custom origins (scheme + host)' })
  setCors(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('allowPlatformApps', () => Boolean) allowPlatformApps: boolean,
    @Arg('customOrigins', () => [String], { nullable: true }) customOrigins: string[] | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.agents.setCors(ctx.principal, agentId, { allowPlatformApps, customOrigins: customOrigins ?? [] });
  }

  @Mutation(() => Agent)
  setCapabilities(@Arg('agentId', () => ID) agentId: string, @Arg('input', () => CapabilitiesInput) input: CapabilitiesInput, @Ctx() ctx: Context) {
    return ctx.services.agents.setCapabilities(ctx.principal, agentId, input);
  }

  @Mutation(() => Agent)
  setGuardrails(@Arg('agentId', () => ID) agentId: string, @Arg('input', () => GuardrailsInput) input: GuardrailsInput, @Ctx() ctx: Context) {
    return ctx.services.agents.setGuardrails(ctx.principal, agentId, input);
  }

  @Mutation(() => Agent, { description: 'Daily credit limit and maximum concurrent requests; null removes a limit' })
  setAgentLimits(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('dailyCreditLimit', () => Number, { nullable: true }) dailyCreditLimit: number | null | undefined,
    @Arg('maxConcurrentRequests', () => Int, { nullable: true }) maxConcurrentRequests: number | null | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.agents.setLimits(ctx.principal, agentId, { dailyCreditLimit, maxConcurrentRequests });
  }

  @FieldResolver(() => [SurfaceSetting])
  surfaces(@Root() agent: AgentEntity) {
    return surfacesOut(agent);
  }

  @FieldResolver(() => AgentLimits)
  limits(@Root() agent: AgentEntity): AgentLimits {
    return { dailyCreditLimit: agent.dailyCreditLimit, maxConcurrentRequests: agent.maxConcurrentRequests };
  }

  @FieldResolver(() => [HttpEndpoint])
  httpEndpoints(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.httpEndpoints.load(agent.id);
  }

  @FieldResolver(() => [McpTool])
  mcpTools(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.mcpTools.load(agent.id);
  }

  @FieldResolver(() => [Webhook])
  webhooks(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.webhooks.load(agent.id);
  }

  @FieldResolver(() => [Document])
  documents(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.documents.load(agent.id);
  }

  @FieldResolver(() => [DocumentExposure])
  documentExposures(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.documentExposures.load(agent.id);
  }

  @FieldResolver(() => [ApiKey], { description: "The agent's keys (prefix and last 4 characters only)" })
  apiKeys(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.apiKeys.load(agent.id);
  }

  @FieldResolver(() => ActivityConnection, { description: 'Activity log, newest first, with the entries matching every filter given' })
  activity(
    @Root() agent: AgentEntity,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('surface', () => SurfaceEnum, { nullable: true }) surface: SurfaceEnum | undefined,
    @Arg('status', () => String, {
      nullable: true,
      description: "A status code (429), a class of codes (2xx, 3xx, 4xx, 5xx), or 'error': entries with an error, whatever their status",
    })
    status: string | undefined,
    @Arg('entry', () => String, { nullable: true, description: "The entry's name (an endpoint, tool or integration), exactly" }) entry: string | undefined,
    @Arg('since', () => Date, { nullable: true, description: 'Entries created at or after this instant' }) since: Date | undefined,
    @Arg('until', () => Date, { nullable: true, description: 'Entries created before this instant' }) until: Date | undefined,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.services.activity.list(ctx.principal, agent.id, {
      // A page that shows no headers or bodies (the console's list) does not read them.
      withBodies: selects(info, ['nodes'], ACTIVITY_BODY_FIELDS),
      first,
      after: after ?? undefined,
      surface: surface ?? undefined,
      status: status ?? undefined,
      entry: entry ?? undefined,
      since: since ?? undefined,
      until: until ?? undefined,
    });
  }

  @FieldResolver(() => ActivityEntry, { nullable: true, description: 'One entry of the activity log with its headers and bodies; null when the agent has none with this id' })
  activityEntry(@Root() agent: AgentEntity, @Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.activity.entry(ctx.principal, agent.id, id);
  }

  @FieldResolver(() => [SurfaceUsage], {
    description:
      "Runs and credits per UTC day and surface, newest day first, counted from the activity log: a surface whose activity logging is off, and days past the workspace's activity retention, count nothing",
  })
  usageBySurface(@Root() agent: AgentEntity, @Arg('days', () => Int, { defaultValue: 30 }) days: number, @Ctx() ctx: Context) {
    return ctx.services.activity.usageBySurface(ctx.principal, agent.id, days);
  }

  @FieldResolver(() => [DailyUsage], { description: 'Credits per UTC day, newest first' })
  usage(@Root() agent: AgentEntity, @Arg('days', () => Int, { defaultValue: 30 }) days: number, @Ctx() ctx: Context) {
    return ctx.services.activity.usage(ctx.principal, agent.id, days);
  }
}
