import type { Handler } from './entry.entities.js';

// Entities of channels (an agent's email address or SMS number) as the domain sees them.
// Repositories map rows to these explicitly.

export const CHANNEL_KINDS = ['EMAIL', 'SMS'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** An address that routes messages to one agent, and how the agent answers them. */
export interface Channel {
  id: string;
  agentId: string;
  kind: ChannelKind;
  /** The email address (lower case) or the E.164 number; unique per kind across the service. */
  address: string;
  handler: Handler;
  modelOverride: string | null;
  /** Senders whose messages are answered; empty: anyone. Others' messages are stored as `ignored`. */
  allowedSenders: string[];
  /** Whether a received message is answered by running the handler. */
  autoReply: boolean;
  createdAt: Date;
  updatedAt: Date;
}
