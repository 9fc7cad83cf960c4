import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { ApprovalState } from '../../domain/approvals/approval.entities.js';
import type { Context } from '../context.js';
import { Approval, approvalOf, ApprovalPolicy, ApprovalPolicyInput, ApprovalStateEnum } from './approval.types.js';

@Resolver(() => Approval)
export class ApprovalResolver {
  @Query(() => [Approval], {
    description: "The workspace's tool calls waiting for a person (pending first, then newest); members",
  })
  async approvals(
    @Ctx() ctx: Context,
    @Arg('agentId', () => ID, { nullable: true }) agentId?: string | null,
    @Arg('state', () => ApprovalStateEnum, { nullable: true }) state?: ApprovalState | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: 50, description: 'At most 200' }) first?: number | null,
  ): Promise<Approval[]> {
    const list = await ctx.services.approvals.list(ctx.principal, {
      agentId: agentId ?? undefined,
      state: state ?? undefined,
      first: first == null ? undefined : Math.max(1, first),
    });
    return list.map(approvalOf);
  }

  @Mutation(() => Approval, {
    description:
      "Approves a pending tool call: it runs and the agent's run continues. Members of the agent's approver role",
  })
  async approveToolCall(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Approval> {
    return approvalOf(await ctx.services.approvals.decide(ctx.principal, id, true));
  }

  @Mutation(() => Approval, {
    description: 'Denies a pending tool call: the model is told a person refused it. Members of the approver role',
  })
  async denyToolCall(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: Context,
    @Arg('reason', () => String, { nullable: true, description: 'Told to the model; at most 1000 characters' })
    reason?: string | null,
  ): Promise<Approval> {
    return approvalOf(await ctx.services.approvals.decide(ctx.principal, id, false, reason));
  }

  @Query(() => ApprovalPolicy, {
    nullable: true,
    description: "Which of the agent's tools wait for a person (null: none)",
  })
  async approvalPolicy(@Arg('agentId', () => ID) agentId: string, @Ctx() ctx: Context): Promise<ApprovalPolicy | null> {
    const agent = await ctx.services.agents.get(ctx.principal, agentId);
    return ctx.services.approvals.policy(ctx.principal, agent);
  }

  @Mutation(() => ApprovalPolicy, {
    nullable: true,
    description:
      "Sets which of the agent's tools wait for a person (no tools: none waits). Those who configure the agent",
  })
  async setApprovalPolicy(
    @Arg('agentId', () => ID) agentId: string,
    @Arg('input', () => ApprovalPolicyInput) input: ApprovalPolicyInput,
    @Ctx() ctx: Context,
  ): Promise<ApprovalPolicy | null> {
    const agent = await ctx.services.agents.get(ctx.principal, agentId);
    const p = await ctx.services.approvals.setPolicy(ctx.principal, agent, input);
    return p.tools.length ? p : null;
  }
}
