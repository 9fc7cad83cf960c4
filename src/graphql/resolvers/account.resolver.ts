import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Forbidden } from '../../domain/errors.js';
import type { Account as AccountEntity } from '../../domain/workspace/account.entities.js';
import type { Member as MemberEntity } from '../../domain/workspace/workspace.entities.js';
import type { Context } from '../context.js';
import {
  Account,
  CreateWorkspaceInput,
  DeploymentWorkspace,
  Membership,
  SetPasswordInput,
  UpdateAccountInput,
} from './account.types.js';
import { Member, Workspace } from './workspace.types.js';

const accountView = (ctx: Context, a: AccountEntity) => ({
  id: a.id,
  email: a.email,
  name: a.name,
  hasPassword: a.passwordHash !== null,
  operator: ctx.services.accounts.isOperator(a),
  createdAt: a.createdAt,
});

/** The viewer's own person: other members' accounts and workspaces are not anyone else's to read. */
function ownMember(ctx: Context, member: MemberEntity): void {
  if (ctx.principal.kind !== 'member' || ctx.principal.memberId !== member.id)
    throw new Forbidden("Only the viewer's own account and workspaces can be read");
}

@Resolver(() => Member)
export class AccountResolver {
  @FieldResolver(() => Account, { description: "The viewer's account (only on `viewer`)" })
  async account(@Root() member: MemberEntity, @Ctx() ctx: Context) {
    ownMember(ctx, member);
    return accountView(ctx, await ctx.services.accounts.account(ctx.principal));
  }

  @FieldResolver(() => [Membership], {
    name: 'workspaces',
    description: "The viewer's workspaces and role in each (only on `viewer`)",
  })
  async memberWorkspaces(@Root() member: MemberEntity, @Ctx() ctx: Context) {
    ownMember(ctx, member);
    const list = await ctx.services.accounts.memberships(ctx.principal);
    return list.map((m) => ({
      workspace: m.workspace,
      memberId: m.member.id,
      role: m.member.role,
      current: m.member.id === member.id,
    }));
  }

  @Query(() => [DeploymentWorkspace], {
    description: 'Every workspace of the deployment, with its members, agents and credits today. Operators only',
  })
  async workspaces(@Ctx() ctx: Context) {
    const list = await ctx.services.accounts.listWorkspaces(ctx.principal);
    return list.map((s) => ({
      id: s.workspace.id,
      name: s.workspace.name,
      slug: s.workspace.slug,
      createdAt: s.workspace.createdAt,
      members: s.members,
      agents: s.agents,
      creditsToday: s.creditsToday,
    }));
  }

  @Mutation(() => Workspace, {
    description:
      'Creates a workspace with the caller as its ADMIN. Operators, or anyone when SELF_SERVICE_WORKSPACES is on',
  })
  createWorkspace(@Arg('input', () => CreateWorkspaceInput) input: CreateWorkspaceInput, @Ctx() ctx: Context) {
    return ctx.services.accounts.createWorkspace(ctx.principal, input);
  }

  @Mutation(() => Member, {
    description:
      "Moves the console session to another of the viewer's workspaces (id or slug) and remembers it for the next sign-in",
  })
  switchWorkspace(@Arg('workspace', () => String) workspace: string, @Ctx() ctx: Context) {
    // A tenant host (TENANT_BASE_URL) is its workspace's alone: another workspace opens at its own address.
    const named = workspace.trim();
    if (ctx.tenant && named !== ctx.tenant.slug && named !== ctx.tenant.workspaceId)
      throw new Forbidden(
        `This address belongs to the workspace '${ctx.tenant.slug}': open another workspace at its own address, or at the shared one`,
      );
    return ctx.services.consoleSessions
      .switchWorkspace(ctx.consoleSessionId, workspace)
      .then((p) => ctx.services.workspace.viewer(p));
  }

  @Mutation(() => Boolean, { description: "Sets the viewer's password (the current one is required once set)" })
  setPassword(@Arg('input', () => SetPasswordInput) input: SetPasswordInput, @Ctx() ctx: Context) {
    return ctx.services.accounts.setPassword(ctx.principal, input);
  }

  @Mutation(() => Account, { description: "Changes the viewer's name (and the first start's placeholder email)" })
  async updateAccount(@Arg('input', () => UpdateAccountInput) input: UpdateAccountInput, @Ctx() ctx: Context) {
    return accountView(ctx, await ctx.services.accounts.updateAccount(ctx.principal, input));
  }
}
