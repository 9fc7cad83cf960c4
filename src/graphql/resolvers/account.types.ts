import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { RoleEnum, Workspace } from './workspace.types.js';

// People and the deployment: accounts, memberships, workspaces as the operator sees them. GraphQL
// types of the area; inputs carry no validation of their own: the domain's zod schemas are the only
// validation.

@ObjectType({ description: 'A person: one per email across the deployment' })
export class Account {
  @Field(() => ID) id!: string;
  @Field(() => String) email!: string;
  @Field(() => String) name!: string;
  @Field(() => Boolean, { description: 'Whether they can sign in with a password' }) hasPassword!: boolean;
  @Field(() => Boolean, { description: 'Whether they operate the deployment (create workspaces, see them all)' })
  operator!: boolean;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType({ description: "One of the viewer's workspaces and their role there" })
export class Membership {
  @Field(() => Workspace) workspace!: Workspace;
  @Field(() => ID, { description: 'Their member id in that workspace' }) memberId!: string;
  @Field(() => RoleEnum) role!: RoleEnum;
  @Field(() => Boolean, { description: 'Whether this request acts in it' }) current!: boolean;
}

@ObjectType({ description: 'A workspace as the deployment operator sees it (read-only)' })
export class DeploymentWorkspace {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) slug!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Int) members!: number;
  @Field(() => Int) agents!: number;
  @Field(() => Float, { description: 'Credits spent today (UTC) over its agents' }) creditsToday!: number;
}

@InputType()
export class CreateWorkspaceInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true, description: 'Default: derived from the name, made unique' })
  slug?: string | null;
}

@InputType()
export class SetPasswordInput {
  @Field(() => String, { nullable: true, description: 'Required when a password is set already' })
  currentPassword?: string | null;
  @Field(() => String, { description: 'At least 10 characters' }) newPassword!: string;
}

@InputType()
export class UpdateAccountInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, {
    nullable: true,
    description: "Only while it is the first start's placeholder (admin@localhost)",
  })
  email?: string | null;
}
