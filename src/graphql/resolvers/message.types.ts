import { Field, ID, Int, ObjectType } from 'type-graphql';
import {
  MESSAGE_CHANNELS,
  MESSAGE_DIRECTIONS,
  MESSAGE_STATUSES,
  type MessageChannel,
  type MessageDirection,
  type MessageStatus,
} from '../../domain/messages/message.entities.js';
import { register } from '../graphql-enum.js';

// An agent's email and SMS messages. GraphQL types of the area; the provider's raw answers and the
// queue's lease stay out (they are the channel machinery's, not something to read).

export const MessageDirectionEnum = register(MESSAGE_DIRECTIONS, 'MessageDirection');
export type MessageDirectionEnum = MessageDirection;
export const MessageChannelEnum = register(MESSAGE_CHANNELS, 'MessageChannel');
export type MessageChannelEnum = MessageChannel;
export const MessageStatusEnum = register(MESSAGE_STATUSES, 'MessageStatus', {
  description:
    'Inbound: RECEIVED (to be answered), DEFERRED (a limit holds the answer back), ANSWERED, IGNORED (stored, not answered), FAILED. Outbound: QUEUED, SENT (the provider took it), then DELIVERED, UNDELIVERED or FAILED as the provider reports',
});
export type MessageStatusEnum = MessageStatus;

@ObjectType({ description: 'An email or SMS message sent to or by the agent' })
export class Message {
  @Field(() => ID) id!: string;
  @Field(() => ID) agentId!: string;
  @Field(() => MessageDirectionEnum) direction!: MessageDirectionEnum;
  @Field(() => MessageChannelEnum) channel!: MessageChannelEnum;
  @Field(() => String) from!: string;
  @Field(() => String) to!: string;
  @Field(() => String, { nullable: true }) subject!: string | null;
  @Field(() => String, { description: "The text of the message (an email's HTML part is not shown here)" })
  body!: string;
  @Field(() => Date) sentAt!: Date;
  @Field(() => ID, {
    nullable: true,
    description: 'The channel that received or sent it; null when recorded by a connector or the channel was removed',
  })
  channelId!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'The conversation it belongs to (email: the thread; SMS: the channel and the other party)',
  })
  threadId!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "The provider's id of the message (email: Message-ID; SMS: MessageSid)",
  })
  messageId!: string | null;
  @Field(() => String, { nullable: true, description: 'The provider id of the message this one answers' }) inReplyTo!:
    string | null;
  @Field(() => MessageStatusEnum, { nullable: true, description: 'Null for a message recorded by a connector' })
  status!: MessageStatusEnum | null;
  @Field(() => Int, {
    description: 'Processing attempts so far (answering an inbound message, sending an outbound one)',
  })
  attempts!: number;
  @Field(() => Int, { description: 'Attempts that failed (a deferral by a limit is not a failure)' }) failures!: number;
  @Field(() => String, { nullable: true, description: 'Why the latest attempt failed' }) lastError!: string | null;
  @Field(() => String, { nullable: true, description: 'The run that answered it (inbound) or produced it (outbound)' })
  runId!: string | null;
}

@ObjectType({ description: 'A page of messages, newest first, with the number matching the filters' })
export class MessagePage {
  @Field(() => [Message]) nodes!: Message[];
  @Field(() => Int, { description: 'Messages matching the filters, over all pages (exact)' }) totalCount!: number;
  @Field(() => Int) page!: number;
  @Field(() => Int) pageSize!: number;
}
