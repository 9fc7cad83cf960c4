import { Arg, Ctx, FieldResolver, Float, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Workspace as WorkspaceEntity } from '../../domain/workspace/workspace.entities.js';
import { DEFAULT_SETTINGS, loginSettingsOf } from '../../domain/workspace/settings.js';
import type { Context } from '../context.js';
import { DailyUsage } from './activity.types.js';
import { ApiKey } from './key.types.js';
import {
  ConfigureModelInput,
  EnvironmentModel,
  Member,
  MemberToken,
  MemberTokenResult,
  Model,
  ModelTestResult,
  RecordMessageInput,
  Secret,
  SecretKindEnum,
  Team,
  TokenScopeEnum,
  Workspace,
  WorkspaceSettings,
  WorkspaceSettingsInput,
} from './workspace.types.js';
import { Message } from './message.types.js';

@Resolver(() => Workspace)
export class WorkspaceResolver {
  @Query(() => Member, { description: 'The member making the request' })
  viewer(@Ctx() ctx: Context) {
    return ctx.services.workspace.viewer(ctx.principal);
  }

  @Query(() => Workspace)
  workspace(@Ctx() ctx: Context) {
    return ctx.services.workspace.workspace(ctx.principal);
  }

  @Query(() => [Secret], { description: 'Names and kinds of the workspace secrets' })
  secrets(@Ctx() ctx: Context) {
    return ctx.services.secrets.list(ctx.principal);
  }

  @Query(() => [Model])
  models(@Ctx() ctx: Context) {
    return ctx.services.models.list(ctx.principal);
  }

  @Query(() => [EnvironmentModel], {
    description:
      "The model providers the service's environment configures, in the order runs fall back to them; read-only (set when the service starts), never a key",
  })
  environmentModels(@Ctx() ctx: Context) {
    return ctx.services.models.environment(ctx.principal);
  }

  @FieldResolver(() => WorkspaceSettings)
  settings(@Root() ws: WorkspaceEntity) {
    // Settings stored before a group existed read as its default.
    return { ...DEFAULT_SETTINGS, ...ws.settings, loginSettings: loginSettingsOf(ws.settings) };
  }

  @FieldResolver(() => [Team])
  teams(@Ctx() ctx: Context) {
    return ctx.services.workspace.teams(ctx.principal);
  }

  @FieldResolver(() => [Member])
  members(@Ctx() ctx: Context) {
    return ctx.services.workspace.members(ctx.principal);
  }

  @FieldResolver(() => [DailyUsage], {
    description: "Credits per UTC day over all the workspace's agents, newest first",
  })
  usage(@Arg('days', () => Int, { defaultValue: 30 }) days: number, @Ctx() ctx: Context) {
    return ctx.services.activity.workspaceUsage(ctx.principal, days);
  }

  @FieldResolver(() => [ApiKey], { description: 'Workspace keys. Admins only' })
  apiKeys(@Ctx() ctx: Context) {
    return ctx.services.keys.listWorkspaceKeys(ctx.principal);
  }

  @Mutation(() => Workspace, {
    description: 'Updates the settings groups the Workspace API overview returns. Admins only',
  })
  updateWorkspaceSettings(
    @Arg('input', () => WorkspaceSettingsInput) input: WorkspaceSettingsInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.workspace.updateSettings(ctx.principal, input);
  }

  @Mutation(() => Workspace, { description: 'Workspace daily credit limit; null removes it. Admins only' })
  setWorkspaceLimits(
    @Arg('dailyCreditLimit', () => Float, { nullable: true }) dailyCreditLimit: number | null | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.workspace.setWorkspaceLimits(ctx.principal, dailyCreditLimit ?? null);
  }

  @Mutation(() => Team, { description: 'Admins only' })
  createTeam(
    @Arg('name', () => String) name: string,
    @Arg('dailyCreditLimit', () => Float, { nullable: true }) dailyCreditLimit: number | null | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.workspace.createTeam(ctx.principal, { name, dailyCreditLimit });
  }

  @Mutation(() => Team, { description: 'Admins only' })
  setTeamLimits(
    @Arg('teamId', () => ID) teamId: string,
    @Arg('dailyCreditLimit', () => Float, { nullable: true }) dailyCreditLimit: number | null | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.workspace.setTeamLimits(ctx.principal, teamId, dailyCreditLimit ?? null);
  }

  @Mutation(() => MemberTokenResult, {
    description:
      'Issues a personal GraphQL token; admins for anyone, members for themselves. A PERSON token (only for yourself) acts in any of your workspaces: the one its request names in the AES-Workspace header',
  })
  createMemberToken(
    @Arg('memberId', () => ID) memberId: string,
    @Arg('name', () => String, { nullable: true }) name: string | undefined,
    @Arg('scope', () => TokenScopeEnum, { nullable: true, description: 'Default: WORKSPACE' })
    scope: TokenScopeEnum | null | undefined,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.workspace.createMemberToken(ctx.principal, memberId, name ?? undefined, scope ?? undefined);
  }

  @Query(() => [MemberToken], { description: "A member's GraphQL tokens; admins for anyone, members for themselves" })
  memberTokens(@Arg('memberId', () => ID) memberId: string, @Ctx() ctx: Context) {
    return ctx.services.workspace.memberTokens(ctx.principal, memberId);
  }

  @Mutation(() => Boolean, {
    description:
      'Revokes a member token with immediate effect: the console sessions signed in with it end, and so do the MCP grants (apps connected over OAuth) approved in those sessions. Admins for anyone, members their own',
  })
  revokeMemberToken(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.workspace.revokeMemberToken(ctx.principal, id);
  }

  @Mutation(() => Secret, { description: 'Stores an encrypted secret. Admins only' })
  createSecret(
    @Arg('name', () => String) name: string,
    @Arg('kind', () => SecretKindEnum) kind: SecretKindEnum,
    @Arg('value', () => String) value: string,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.secrets.create(ctx.principal, { name, kind, value });
  }

  @Mutation(() => Boolean, { description: 'Admins only' })
  deleteSecret(@Arg('name', () => String) name: string, @Ctx() ctx: Context) {
    return ctx.services.secrets.delete(ctx.principal, name);
  }

  @Mutation(() => Model, {
    description:
      'Creates or replaces a model configuration. Admins only. Where the provider lists its models, a name it does not list is refused (naming close ones); where it cannot be checked, the model is saved and `warning` says why',
  })
  configureModel(@Arg('input', () => ConfigureModelInput) input: ConfigureModelInput, @Ctx() ctx: Context) {
    return ctx.services.models.configure(ctx.principal, input);
  }

  @Mutation(() => ModelTestResult, {
    description:
      'Makes one small call to a configured model ("Reply with OK", a few output tokens) and returns its answer or the provider\'s error. Admins only',
  })
  testModel(@Arg('name', () => String) name: string, @Ctx() ctx: Context) {
    return ctx.services.models.test(ctx.principal, name);
  }

  @Mutation(() => Boolean, {
    description:
      'Removes a configured model. Admins only. Refused (CONFLICT) while an agent names it as defaultModel or an entry as modelOverride; the error lists them',
  })
  removeModel(@Arg('name', () => String) name: string, @Ctx() ctx: Context) {
    return ctx.services.models.remove(ctx.principal, name);
  }

  @Mutation(() => Message, {
    description: 'Records an email or SMS message sent to or by an agent (channel connectors)',
  })
  recordMessage(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => RecordMessageInput) input: RecordMessageInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.messages.record(ctx.principal, agentId, input);
  }
}
