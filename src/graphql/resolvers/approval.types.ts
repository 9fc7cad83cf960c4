import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import {
  APPROVAL_STATES,
  APPROVER_ROLES,
  type Approval as DomainApproval,
  type ApprovalState,
  type ApproverRole,
} from '../../domain/approvals/approval.entities.js';
import { register } from '../graphql-enum.js';

// Human approval of risky actions (issue 54). GraphQL types of the area.

export const ApprovalStateEnum = register(APPROVAL_STATES, 'ApprovalState', {
  description: 'Where a tool call waiting for a person stands: EXPIRED is a denial nobody made in time',
});
export const ApproverRoleEnum = register(APPROVER_ROLES, 'ApproverRole', {
  description: 'Who may decide: ADMIN (workspace admins) or MEMBER (members and admins); viewers never decide',
});

@ObjectType({ description: "An agent's tool call that waits for a person before it runs" })
export class Approval {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => ID, { description: 'The paused run' }) runId!: string;
  @Field(() => String, { description: 'The surface the paused run was called on' }) surface!: string;
  @Field(() => String, { description: 'The tool the model called' }) toolName!: string;
  @Field(() => String) toolCallId!: string;
  @Field(() => String, { description: "The call's arguments as the model sent them (JSON text)" }) arguments!: string;
  @Field(() => ApprovalStateEnum) state!: ApprovalState;
  @Field(() => ApproverRoleEnum) approverRole!: ApproverRole;
  @Field(() => Date) expiresAt!: Date;
  @Field(() => String, { nullable: true, description: 'Email of the member who decided (null: pending or expired)' })
  decidedBy!: string | null;
  @Field(() => Date, { nullable: true }) decidedAt!: Date | null;
  @Field(() => String, { nullable: true, description: "The person's reason for a denial" }) reason!: string | null;
  @Field(() => ID, { nullable: true, description: 'The run that continued the paused one after the decision' })
  continuedRunId!: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: "The continued run's output" }) output!: unknown;
  @Field(() => String, { nullable: true, description: 'Why the continued run failed' }) error!: string | null;
  @Field(() => Date) createdAt!: Date;
}

/** The GraphQL shape of a domain approval. */
export function approvalOf(a: DomainApproval): Approval {
  return {
    id: a.id,
    agentId: a.agentId,
    runId: a.runId,
    surface: a.surface,
    toolName: a.call.name,
    toolCallId: a.call.id,
    arguments: a.call.arguments,
    state: a.state,
    approverRole: a.approverRole,
    expiresAt: a.expiresAt,
    decidedBy: a.decidedBy,
    decidedAt: a.decidedAt,
    reason: a.reason,
    continuedRunId: a.outcome?.runId ?? null,
    output: a.outcome?.output ?? null,
    error: a.outcome?.error ?? null,
    createdAt: a.createdAt,
  };
}

@ObjectType({ description: "Which of an agent's tools wait for a person, who decides and for how long" })
export class ApprovalPolicy {
  @Field(() => [String]) tools!: string[];
  @Field(() => ApproverRoleEnum) approverRole!: ApproverRole;
  @Field(() => Int, { description: 'How long a call waits before it is denied (seconds)' }) expirySeconds!: number;
}

@InputType()
export class ApprovalPolicyInput {
  @Field(() => [String], {
    description:
      'Tool names (send_email, send_sms, a document write, an Endpoint Management operation); empty: none waits',
  })
  tools!: string[];
  @Field(() => ApproverRoleEnum, { nullable: true, description: 'Default ADMIN' }) approverRole?: ApproverRole | null;
  @Field(() => Int, { nullable: true, description: 'Default 86400 (24 h); 60 to 604800' }) expirySeconds?:
    number | null;
}
