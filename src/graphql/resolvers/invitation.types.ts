import { Field, ID, ObjectType } from 'type-graphql';
import { RoleEnum } from './workspace.types.js';

// Invitations of people to a workspace. GraphQL types of the area; the domain validates inputs.

@ObjectType({ description: 'An invitation of an email to the workspace (its link is shown only when made)' })
export class Invitation {
  @Field(() => ID) id!: string;
  @Field(() => String) email!: string;
  @Field(() => String, { nullable: true, description: 'The name the admin gave' }) name?: string | null;
  @Field(() => RoleEnum) role!: RoleEnum;
  @Field(() => ID, { nullable: true, description: "The inviting admin's member id (null once they left)" })
  invitedBy?: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { description: 'The link stops working then (7 days after it was made)' }) expiresAt!: Date;
}

@ObjectType({ description: 'An invitation just made, with its link (shown this once)' })
export class InvitationResult {
  @Field(() => Invitation) invitation!: Invitation;
  @Field(() => String, {
    description: 'The single-use link to the invitation page: send it to the person (it is not shown again)',
  })
  link!: string;
  @Field(() => Boolean, { description: 'Whether the link was also emailed (a smarthost is configured, SMTP_URL)' })
  emailed!: boolean;
}
