import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { CHANNEL_KINDS, type ChannelKind } from '../../domain/entries/channel.entities.js';
import { register } from '../graphql-enum.js';
import { HandlerInput } from './entry.types.js';

// Channels (an agent's email addresses and SMS numbers). GraphQL types of the area; inputs carry no
// validation of their own: the domain's zod schemas are the only validation.

export const ChannelKindEnum = register(CHANNEL_KINDS, 'ChannelKind');
export type ChannelKindEnum = ChannelKind;

@ObjectType({
  description: 'An email address or SMS number that routes messages to the agent, and how it answers them',
})
export class Channel {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => ChannelKindEnum) kind!: ChannelKindEnum;
  @Field(() => String, { description: 'The email address (lower case) or the E.164 number' }) address!: string;
  @Field(() => String, { nullable: true }) modelOverride!: string | null;
  @Field(() => [String], {
    description:
      "Senders whose messages are answered (numbers; addresses or @domain); empty: anyone. Others' messages are stored, not answered",
  })
  allowedSenders!: string[];
  @Field(() => Boolean, { description: 'Whether a received message is answered by running the handler' })
  autoReply!: boolean;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@InputType()
export class ChannelInput {
  @Field(() => ChannelKindEnum) kind!: ChannelKindEnum;
  @Field(() => String, {
    description: 'An email address, or a phone number in E.164 form (+14155550100); unique per kind across the service',
  })
  address!: string;
  @Field(() => HandlerInput) handler!: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => [String], { nullable: true, description: 'Default: anyone' }) allowedSenders?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true' }) autoReply?: boolean | null;
}

@InputType()
export class UpdateChannelInput {
  @Field(() => String, { nullable: true }) address?: string;
  @Field(() => HandlerInput, { nullable: true }) handler?: HandlerInput;
  @Field(() => String, { nullable: true }) modelOverride?: string | null;
  @Field(() => [String], { nullable: true, description: 'Null or empty: anyone' }) allowedSenders?: string[] | null;
  @Field(() => Boolean, { nullable: true }) autoReply?: boolean;
}
