import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Agent as AgentEntity } from '../../domain/core/agent.entities.js';
import type { Context } from '../context.js';
import { Agent } from './agent.types.js';
import { AgentChange, ManifestApplyResult, ManifestPlan } from './manifest.types.js';

/** Agents as code (docs/agents-as-code.md): export, plan and apply agent manifests. */
@Resolver()
export class ManifestResolver {
  @Query(() => String, {
    description:
      'The agents (all the viewer can see when ids is omitted) as manifest YAML, one document per agent, in name order; secrets by name only',
  })
  exportAgents(
    @Arg('ids', () => [ID], { nullable: true }) ids: string[] | undefined,
    @Arg('withRecords', () => Boolean, { nullable: true, description: "Include database documents' records" })
    withRecords: boolean | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.manifests.export(ctx.principal, { ids, withRecords });
  }

  @Query(() => ManifestPlan, {
    description:
      'What applying the manifest would change; BAD_USER_INPUT with every error (line, column) when it is invalid',
  })
  planManifest(
    @Arg('yaml', () => String) yaml: string,
    @Arg('prune', () => Boolean, { nullable: true, description: 'Delete entries the manifest does not list' })
    prune: boolean | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.manifests.plan(ctx.principal, yaml, prune ?? false);
  }

  @Mutation(() => ManifestApplyResult, {
    description: "Applies a manifest in one transaction; CONFLICT when the workspace changed since the plan's digest",
  })
  applyManifest(
    @Arg('yaml', () => String) yaml: string,
    @Arg('planDigest', () => String) planDigest: string,
    @Arg('prune', () => Boolean, { nullable: true }) prune: boolean | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.manifests.apply(ctx.principal, yaml, planDigest, prune ?? false);
  }
}

@Resolver(() => Agent)
export class AgentChangeResolver {
  @FieldResolver(() => [AgentChange], {
    description: "Changes to the agent's configuration made by applying manifests, newest first",
  })
  changeLog(
    @Root() agent: AgentEntity,
    @Arg('first', () => Int, { defaultValue: 20 }) first: number,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.manifests.changeLog(ctx.principal, agent.id, first);
  }
}
