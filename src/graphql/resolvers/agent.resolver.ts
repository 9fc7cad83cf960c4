import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Agent as AgentEntity } from '../../domain/core/agent.entities.js';
import type { Context } from '../context.js';
import {
  Agent,
  AgentLimits,
  CapabilitiesInput,
  CreateAgentInput,
  GuardrailsInput,
  SurfaceEnum,
  SurfaceSetting,
  UpdateAgentInput,
} from './agent.types.js';
import { Document, DocumentExposure } from './document.types.js';
import { HttpEndpoint, McpTool, Webhook } from './entry.types.js';
import { Channel } from './channel.types.js';
import { ApiKey } from './key.types.js';
import { McpGrant } from './mcp-grant.types.js';
import { ModelInUse } from './model-in-use.types.js';
import { surfacesOut } from './shape.js';

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
  updateAgent(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateAgentInput) input: UpdateAgentInput,
    @Ctx() ctx: Context,
  ) {
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
    return ctx.services.endpointManagement.call(ctx.principal, 'setSurface', {
      agentId,
      surface,
      enabled,
      activityLogging,
    });
  }

  @Mutation(() => Agent, { description: 'HTTP API CORS: platform apps and custom origins (scheme + host)' })
  setCors(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('allowPlatformApps', () => Boolean) allowPlatformApps: boolean,
    @Arg('customOrigins', () => [String], { nullable: true }) customOrigins: string[] | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.endpointManagement.call(ctx.principal, 'setCors', {
      agentId,
      allowPlatformApps,
      customOrigins,
    });
  }

  @Mutation(() => Agent)
  setCapabilities(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => CapabilitiesInput) input: CapabilitiesInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.agents.setCapabilities(ctx.principal, agentId, input);
  }

  @Mutation(() => Agent)
  setGuardrails(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => GuardrailsInput) input: GuardrailsInput,
    @Ctx() ctx: Context,
  ) {
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

  @FieldResolver(() => ModelInUse, {
    description:
      "The model a prompt run uses: an entry's override when given, else the agent's default model, the workspace's default, the environment's",
  })
  modelInUse(
    @Root() agent: AgentEntity,
    @Arg('modelOverride', () => String, { nullable: true, description: "An entry's model override" })
    modelOverride: string | null | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.agents.modelInUse(ctx.principal, agent.id, modelOverride ?? null);
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

  @FieldResolver(() => [Channel], { description: "The agent's email addresses and SMS numbers" })
  channels(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.channels.load(agent.id);
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

  @FieldResolver(() => [McpGrant], { description: 'OAuth clients members approved for the MCP server, newest first' })
  mcpGrants(@Root() agent: AgentEntity, @Ctx() ctx: Context) {
    return ctx.loaders.mcpGrants.load(agent.id);
  }
}
