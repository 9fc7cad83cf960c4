import { Field, ID, ObjectType } from 'type-graphql';
import { Member } from './workspace.types.js';

// Members' approvals of OAuth clients for an agent's MCP server. GraphQL types of the area.

@ObjectType({
  description:
    "A member's approval of one OAuth client (ChatGPT, Claude, …) for the agent's MCP server; its tokens work while it exists",
})
export class McpGrant {
  @Field(() => ID) id!: string;
  @Field(() => String, {
    description: 'The client id: one the service registered, or the URL of its metadata document',
  })
  clientId!: string;
  @Field(() => String, { nullable: true, description: 'The name the client gave itself' }) clientName!: string | null;
  @Field(() => String, { nullable: true, description: 'The host the person was sent back to when approving' })
  redirectHost!: string | null;
  @Field(() => Member, { nullable: true, description: 'The member who approved the client' }) grantedBy!: Member | null;
  @Field(() => Date, { description: 'When the member approved the client' }) createdAt!: Date;
  @Field(() => Date, {
    nullable: true,
    description: 'When the client last called the agent (to the minute); null: never',
  })
  lastUsedAt!: Date | null;
}
