import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { Membership } from './account.types.js';
import { Invitation, InvitationResult } from './invitation.types.js';
import { InviteMemberInput, Member, RoleEnum } from './workspace.types.js';

/** Invitations (made, listed, revoked by admins; accepted by the invitee) and admins' changes to members. */
@Resolver()
export class InvitationResolver {
  @Mutation(() => InvitationResult, {
    description:
      'Invites an email to the workspace with a role (default MEMBER): a single-use link valid 7 days, emailed when a smarthost is set. Inviting the same email again replaces the pending invitation. Admins only; an email already a member is a CONFLICT',
  })
  inviteMember(@Arg('input', () => InviteMemberInput) input: InviteMemberInput, @Ctx() ctx: Context) {
    return ctx.services.invitations.invite(ctx.principal, input);
  }

  @Query(() => [Invitation], {
    description: 'Pending invitations (not accepted, revoked or expired), newest first. Admins only',
  })
  invitations(@Ctx() ctx: Context) {
    return ctx.services.invitations.pending(ctx.principal);
  }

  @Mutation(() => Boolean, { description: 'Revokes a pending invitation: its link stops working. Admins only' })
  revokeInvitation(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return ctx.services.invitations.revoke(ctx.principal, id);
  }

  @Mutation(() => Membership, {
    description:
      "Accepts an invitation (the token of its link) for the signed-in person: adds the membership when the invitation is for their account's email, else FORBIDDEN",
  })
  async acceptInvitation(@Arg('token', () => String) token: string, @Ctx() ctx: Context) {
    const { member, workspace } = await ctx.services.invitations.accept(ctx.principal, token);
    return { workspace, memberId: member.id, role: member.role, current: false };
  }

  @Mutation(() => Boolean, {
    description:
      'Removes a member: their console sessions, member tokens, "Try it" keys and OAuth grants in this workspace end at once. Admins only; not yourself, not the last ADMIN',
  })
  removeMember(@Arg('memberId', () => ID) memberId: string, @Ctx() ctx: Context) {
    return ctx.services.memberships.remove(ctx.principal, memberId);
  }

  @Mutation(() => Member, { description: "Sets a member's role. Admins only; the last ADMIN keeps theirs" })
  setMemberRole(
    @Arg('memberId', () => ID) memberId: string,
    @Arg('role', () => RoleEnum) role: RoleEnum,
    @Ctx() ctx: Context,
  ) {
    return ctx.services.memberships.setRole(ctx.principal, memberId, role);
  }
}
