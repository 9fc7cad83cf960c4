// Entities of messages as the domain sees them. Repositories map rows to these explicitly.

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
export interface Message {
  id: string;
  workspaceId: string;
  agentId: string;
  direction: MessageDirection;
  channel: MessageChannel;
  from: string;
  to: string;
  subject: string | null;
  body: string;
  sentAt: Date;
  createdAt: Date;
}
